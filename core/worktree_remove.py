"""Removing an item's worktree (drop, sweep, the daemon's sweeper), and nothing of the person's.

`git worktree remove` without --force keeps a worktree with uncommitted changes, but it deletes
git-ignored files without asking, and `git status` never shows them. So a worktree holding an
ignored file Hallmark did not copy in, or a `[worktree] copy` edited since, is kept, and the reply
names those files once, unless the person asked for `delete_ignored` (`--delete-ignored`).
Hallmark's own unchanged copies are deleted first (git would refuse the removal over them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from . import git, items
from .worktree_copy import person_dirt, persons_ignored, remove_own_copies


class Removal(NamedTuple):
    """What removing a worktree did: removed or not, why it was kept, the ignored files deleted."""

    removed: bool
    why: str
    deleted: tuple[str, ...] = ()


def remove_worktree(repo: Any, view: Any, *, actor: str | None = None, delete_ignored: bool = False) -> Removal:
    """Remove an item's worktree without --force: one with uncommitted changes is kept, and so is
    one holding git-ignored files of the person's (which `git worktree remove` would delete without
    asking) unless `delete_ignored`; we say why."""
    wt = Path(view.worktree)
    if os.path.realpath(wt) == os.path.realpath(repo.root):
        return Removal(False, "it is the main checkout")
    if person_dirt(repo, view):
        return Removal(False, "it has uncommitted changes")
    theirs = persons_ignored(repo, view)
    if theirs and not delete_ignored:
        return Removal(False, kept_for_ignored(view.id, theirs))
    remove_own_copies(repo, view)  # Hallmark's own: git would refuse to remove a worktree holding them
    with items.worktree_lock(repo):
        proc = git.run(["worktree", "remove", str(wt)], repo.root, check=False)
    if proc.returncode != 0:
        return Removal(False, proc.stderr.strip() or "git worktree remove failed")
    fields: dict[str, Any] = {"worktree": str(wt)}
    if theirs:
        fields["deleted_ignored"] = theirs
    items.record(repo, view.id, "worktree_removed", actor=actor, **fields)
    return Removal(True, "", tuple(theirs))


def kept_for_ignored(item_id: str, theirs: list[str]) -> str:
    """Why a worktree stays: the person's ignored files, named, and the flag that deletes them."""
    shown = ", ".join(theirs[:5]) + (f" and {len(theirs) - 5} more" if len(theirs) > 5 else "")
    return (
        f"it holds files git ignores that are not Hallmark's: {shown}; removing the worktree would delete "
        f"them (copy them out first, or run hall sweep {item_id} --delete-ignored to delete them with it)"
    )
