"""The Dispatch Dock's rebase: bring the hallmarked commit onto the latest base, or say exactly why not.

A rebase that conflicts is aborted, and the conflicting files are named. A rebase that changes the
approved patch (its patch-id) is reported as such. A rebase that leaves the patch as it was says
whether the tree moved too (the base brought new code, so the gates must run again on it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from hallmark.core import git, states
from hallmark.core.repo import Repo

ACTOR = "shipper"


def patch_id(cwd: str | Path, a: str, b: str) -> str:
    diff = git.run(["diff", "--no-color", "--no-ext-diff", f"{a}..{b}"], cwd).stdout
    if not diff.strip():
        return ""
    proc = subprocess.run(
        ["git", "patch-id", "--stable"], cwd=str(cwd), input=diff, capture_output=True, text=True, check=False
    )
    return proc.stdout.split()[0] if proc.stdout.strip() else ""


def onto(repo: Repo, worktree: Path, base: str) -> str:
    """The base to rebase onto: the remote's copy when there is a remote that has it."""
    remotes = git.out(["remote"], worktree).split()
    if "origin" in remotes:
        git.run(["fetch", "-q", "origin", base], worktree, check=False)
        if (
            git.run(["rev-parse", "--verify", "-q", f"refs/remotes/origin/{base}"], worktree, check=False).returncode
            == 0
        ):
            return f"origin/{base}"
    return base


def git_dir(worktree: Path) -> Path:
    return Path(git.out(["rev-parse", "--absolute-git-dir"], worktree))


def rebase_in_progress(worktree: Path) -> bool:
    where = git_dir(worktree)
    return (where / "rebase-merge").exists() or (where / "rebase-apply").exists()


def abort_stale(worktree: Path) -> bool:
    """A rebase a crashed shipper left half-done is aborted (the branch goes back where it was)."""
    if rebase_in_progress(worktree):
        git.run(["rebase", "--abort"], worktree, check=False)
        return True
    return False


def conflicting_files(worktree: Path) -> list[str]:
    text = git.run(["diff", "--name-only", "--diff-filter=U", "-z"], worktree, check=False).stdout
    return sorted({p for p in text.split("\0") if p})


def tree(cwd: Path | str, rev: str) -> str:
    return git.run(["rev-parse", "--verify", "-q", f"{rev}^{{tree}}"], cwd, check=False).stdout.strip()


def same_patch(worktree: Path, base: str, approved: str, head: str) -> bool:
    """head is a rewrite of approved that carries the same change (compared with the base)."""
    old = patch_id(worktree, git.merge_base(worktree, base, approved) or base, approved)
    new = patch_id(worktree, git.merge_base(worktree, base, head) or base, head)
    return bool(old) and old == new


def rebase(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    """Rebase the item's branch onto its base.

    Returns {ok, sha, moved, onto, tree_changed} or {ok: False, reason, onto, conflict, files}.
    """
    worktree = Path(view.worktree)
    base = onto(repo, worktree, view.base or repo.config.base)
    old_start = git.merge_base(worktree, base, view.hallmark_sha) or base
    before = patch_id(worktree, old_start, view.hallmark_sha)
    if git.run(["merge-base", "--is-ancestor", base, view.hallmark_sha], worktree, check=False).returncode == 0:
        return {"ok": True, "sha": view.hallmark_sha, "moved": False, "onto": base, "tree_changed": False}
    proc = git.run(["rebase", "-q", base], worktree, check=False, env={"HALL_ACTOR": ACTOR})
    if proc.returncode != 0:
        files = conflicting_files(worktree)
        git.run(["rebase", "--abort"], worktree, check=False)
        named = f" in {', '.join(files)}" if files else ""
        return {
            "ok": False,
            "conflict": True,
            "reason": f"the rebase onto {base} conflicts{named}",
            "onto": base,
            "files": files,
            "detail": (proc.stderr or proc.stdout).strip()[-400:],
        }
    new_sha = git.head_sha(worktree)
    after = patch_id(worktree, git.merge_base(worktree, base, new_sha) or base, new_sha)
    if after != before:
        return {
            "ok": False,
            "conflict": False,
            "reason": f"the rebase onto {base} changed the approved patch",
            "onto": base,
            "sha": new_sha,
        }
    changed = tree(worktree, new_sha) != tree(worktree, view.hallmark_sha)
    return {"ok": True, "sha": new_sha, "moved": True, "onto": base, "tree_changed": changed}
