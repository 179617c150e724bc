"""The sweeper: remove the worktrees of closed and dropped items, and nothing else.

`git worktree remove` without --force, so a dirty worktree is kept (and we say which and why). So is
one holding git-ignored files of the person's (`git status` never shows them and `git worktree
remove` deletes them): an ignored file Hallmark did not copy in, or a copy edited since, keeps the
worktree unless the person asks for `--delete-ignored`. Never the main checkout, never a worktree
on another branch, never one a live item still uses. Branches and journals stay; each removal is a
`worktree_removed` event in the item's journal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import git, states
from .sweep_results import KeptWorktree, RemovedWorktree, SweepPreview, Swept
from .worktree_copy import person_dirt, persons_ignored
from .worktree_remove import kept_for_ignored, remove_worktree


def _real(path: str | Path) -> str:
    return os.path.realpath(path)


def plan(
    repo: Any, item_ids: Iterable[str] | None = None, *, delete_ignored: bool = False
) -> tuple[list[states.ItemView], list[KeptWorktree]]:
    """(items whose worktree can go, items kept with the reason), without touching anything."""
    views = repo.index.items()
    wanted = set(item_ids) if item_ids is not None else None
    registered = {entry["path"]: entry for entry in git.worktrees(repo.root)}
    live_paths = {_real(v.worktree) for v in views if not v.terminal and v.worktree}
    main = _real(repo.root)
    removable: list[states.ItemView] = []
    kept: list[KeptWorktree] = []
    for view in views:
        if wanted is not None and view.id not in wanted:
            continue
        if not view.terminal or not view.worktree or not Path(view.worktree).is_dir():
            continue
        path = _real(view.worktree)
        why = ""
        entry = registered.get(path)
        if path == main:
            why = "it is the main checkout"
        elif entry is None:
            why = "it is not a git worktree of this repository"
        elif path in live_paths:
            why = "a live item still uses it"
        elif entry.get("branch") != view.branch:
            on = entry.get("branch") or "a detached HEAD"
            why = f"it is on {on}, not the item's branch {view.branch}"
        else:
            dirty = person_dirt(repo, view)  # Hallmark's unchanged copies ([worktree] copy) are not dirt
            if dirty:
                shown = ", ".join(line[3:] for line in dirty[:5]) + (" …" if len(dirty) > 5 else "")
                why = f"it has uncommitted changes: {shown}"
            elif not delete_ignored:
                theirs = persons_ignored(repo, view)  # what `git worktree remove` would delete unasked
                if theirs:
                    why = kept_for_ignored(view.id, theirs)
        if why:
            kept.append(KeptWorktree(item=view.id, state=view.state, worktree=view.worktree, why=why))
        else:
            removable.append(view)
    return removable, kept


def sweep(
    repo: Any,
    dry_run: bool = False,
    *,
    actor: str | None = None,
    item_ids: Iterable[str] | None = None,
    delete_ignored: bool = False,
) -> Swept | SweepPreview:
    """Remove the worktrees of closed and dropped items (the daemon's sweeper calls this too, with
    `item_ids` = the items whose PR is done and `actor="sweeper"`, and never `delete_ignored`)."""
    removable, kept = plan(repo, item_ids, delete_ignored=delete_ignored)
    removed: list[RemovedWorktree] = []
    for view in removable:
        if dry_run:
            removed.append(_removed_row(view, tuple(persons_ignored(repo, view)) if delete_ignored else ()))
            continue
        done = remove_worktree(repo, view, actor=actor, delete_ignored=delete_ignored)
        if done.removed:
            removed.append(_removed_row(view, done.deleted))
        else:
            kept.append(KeptWorktree(item=view.id, state=view.state, worktree=view.worktree, why=done.why))
    if dry_run:
        return SweepPreview(would_remove=tuple(removed), kept=tuple(kept))
    return Swept(removed=tuple(removed), kept=tuple(kept))


def _removed_row(view: states.ItemView, deleted: tuple[str, ...]) -> RemovedWorktree:
    return RemovedWorktree(
        item=view.id,
        state=view.state,
        worktree=view.worktree,
        branch=view.branch,
        deleted_ignored=list(deleted) or None,
    )
