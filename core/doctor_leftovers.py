"""`hall doctor`'s checks for what a crash or a rename leaves behind in git.

- Leftovers: a `hall new` killed during `git worktree add` leaves a registered worktree and its
  branch (named by the `branch` template) with no item journal; nothing else ever sees them, so
  the sweep never removes them. Only branches the template could have named are reported: a
  person's own worktrees and branches are none of Hallmark's business.
- Bases: an unfinished item whose base branch no longer exists (renamed `main` to `trunk`) cannot
  be reviewed or shipped, and git's own error says nothing of why.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from . import git
from .doctor_check import check as _check
from .setup_results import Check


def branch_pattern(template: str) -> re.Pattern[str] | None:
    """The branches the template names, with the item ID as group 1; None without `{id}`."""
    if "{id}" not in template:
        return None
    parts = re.split(r"(\{[a-z_]+\})", template)
    out = []
    for part in parts:
        if part == "{id}":
            out.append(r"(H-\d+)")
        elif part.startswith("{") and part.endswith("}"):
            out.append(r".*?")
        else:
            out.append(re.escape(part))
    return re.compile("^" + "".join(out) + "$")


def folded(repo: Any) -> list[Any]:
    """Every item folded from its journal (doctor reads; it never builds the index)."""
    from . import journal, states

    views = []
    for path in sorted(repo.paths.items_dir.glob("*/events.jsonl")):
        view = states.fold(path.parent.name, journal.read(path).events)
        if view.created:
            views.append(view)
    return views


def _branches(root: Any) -> list[str]:
    proc = git.run(["for-each-ref", "--format=%(refname:short)", "refs/heads/"], root, check=False)
    return [line for line in proc.stdout.splitlines() if line]


def leftovers_check(repo: Any) -> Check:
    """Worktrees and branches the branch template names whose item has no journal, or whose item
    was made on another branch (a killed `hall new`, or one whose retry took a new number)."""
    pattern = branch_pattern(repo.config.branch)
    if pattern is None:
        return _check("leftovers", True, "the branch template has no {id}: nothing to match")
    views = {v.id: v for v in folded(repo)}
    owned = {v.branch for v in views.values()}
    worktree_of = {e.get("branch"): e["path"] for e in git.worktrees(repo.root) if e.get("branch")}
    found: list[str] = []
    fixes: list[str] = []
    for branch in _branches(repo.root):
        match = pattern.match(branch)
        if match is None or branch in owned:
            continue
        if match.group(1) in views and views[match.group(1)].branch == branch:
            continue
        where = worktree_of.get(branch)
        found.append(f"{branch}" + (f" (worktree {where})" if where else "") + ": no item was created on it")
        step = f"git worktree remove {shlex.quote(where)} && " if where else ""
        fixes.append(f"{step}git branch -d {shlex.quote(branch)}")
    if not found:
        return _check("leftovers", True, "no worktree or branch of Hallmark's without its item")
    return _check(
        "leftovers",
        False,
        f"left behind (a hall new that did not finish?): {'; '.join(found[:10])}",
        fixes[0] + " (git branch -d refuses a branch with commits of its own: look before -D)",
        mismatches=found,
    )


def bases_check(repo: Any) -> Check:
    """Every unfinished item's base branch, and the configured one, still exists."""
    missing: list[str] = []
    wanted: dict[str, list[str]] = {repo.config.base: ["the configured base"]}
    for view in folded(repo):
        if view.base and not view.terminal:
            wanted.setdefault(view.base, []).append(view.id)
    for base, whose in wanted.items():
        if not _exists(repo.root, base):
            missing.append(f"{base} ({', '.join(whose[:5])}{' …' if len(whose) > 5 else ''})")
    if not missing:
        return _check("bases", True, "every base branch exists")
    return _check(
        "bases",
        False,
        f"base branches that do not exist (renamed?): {', '.join(missing[:10])}",
        "set base in .hallmark.toml to the branch you now use; an item made on the old name needs "
        "`git branch <old> <new>` (or hall drop) to go on",
        mismatches=missing,
    )


def _exists(root: Any, base: str) -> bool:
    if not base or base.startswith("-"):
        return False
    proc = git.run(["rev-parse", "--verify", "-q", f"{base}^{{commit}}"], root, check=False)
    return proc.returncode == 0
