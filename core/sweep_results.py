"""What `hall sweep` (core/sweep.py) answers: the worktrees removed (or that a dry run would
remove) and the ones kept, each with why. The CLI adds `next` (tui/cli/items.py::sweep_next)."""

from __future__ import annotations

from typing import ClassVar, Literal

from .results import Result


class RemovedWorktree(Result):
    """A closed or dropped item's worktree that went (or would go, in a dry run)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"deleted_ignored"})

    item: str
    state: str
    worktree: str
    branch: str
    deleted_ignored: list[str] | None = None  # with --delete-ignored: the person's ignored files that went (would go)


class KeptWorktree(Result):
    """A worktree the sweep left in place, and why (dirty, the main checkout, another branch, …)."""

    item: str
    state: str
    worktree: str
    why: str


class Swept(Result):
    """`hall sweep`: the worktrees removed and the ones kept."""

    dry_run: Literal[False] = False
    removed: tuple[RemovedWorktree, ...]
    kept: tuple[KeptWorktree, ...]


class SweepPreview(Result):
    """`hall sweep --dry-run`: the worktrees a sweep would remove and the ones it would keep."""

    dry_run: Literal[True] = True
    would_remove: tuple[RemovedWorktree, ...]
    kept: tuple[KeptWorktree, ...]
