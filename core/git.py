"""The few git operations Hallmark needs, as subprocess calls with clear errors."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .errors import HallError


def run(
    args: list[str], cwd: Path | str, *, check: bool = True, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = None
    if env:
        full_env = dict(os.environ)
        full_env.update(env)
    try:
        proc = subprocess.run(
            ["git", *args], cwd=str(cwd), capture_output=True, text=True, env=full_env, input=input, check=False
        )
    except FileNotFoundError as exc:
        raise HallError("COMMAND_FAILED", "git is not installed or not on PATH.", ["hall doctor"]) from exc
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise HallError(
            "COMMAND_FAILED",
            f"git {' '.join(args)} failed: {detail[-1] if detail else proc.returncode}",
            ["hall doctor"],
        )
    return proc


def out(
    args: list[str], cwd: Path | str, *, check: bool = True, env: dict[str, str] | None = None, input: str | None = None
) -> str:
    return run(args, cwd, check=check, env=env, input=input).stdout.strip()


def head_sha(cwd: Path | str) -> str:
    return out(["rev-parse", "HEAD"], cwd)


def try_head_sha(cwd: Path | str) -> str | None:
    proc = run(["rev-parse", "--verify", "-q", "HEAD"], cwd, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def current_branch(cwd: Path | str) -> str | None:
    proc = run(["symbolic-ref", "--short", "-q", "HEAD"], cwd, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def branch_exists(cwd: Path | str, branch: str) -> bool:
    return run(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], cwd, check=False).returncode == 0


def worktrees(cwd: Path | str) -> list[dict[str, str]]:
    """`git worktree list --porcelain` as dicts with path, head, branch (short). With -z (git 2.36+)
    so a path holding a newline is one path; older git, without it."""
    proc = run(["worktree", "list", "--porcelain", "-z"], cwd, check=False)
    if proc.returncode == 0:
        lines = proc.stdout.split("\0")
    else:
        lines = run(["worktree", "list", "--porcelain"], cwd).stdout.splitlines()
    entries: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in lines:
        if not line.strip():
            if current:
                entries.append(current)
            current = {}
            continue
        key, _, value = line.partition(" ")
        if key == "worktree":
            current["path"] = os.path.realpath(value)
        elif key == "HEAD":
            current["head"] = value
        elif key == "branch":
            current["branch"] = value.removeprefix("refs/heads/")
        else:
            current[key] = value or "true"
    if current:
        entries.append(current)
    return entries


def worktree_for_branch(cwd: Path | str, branch: str) -> str | None:
    for entry in worktrees(cwd):
        if entry.get("branch") == branch:
            return entry["path"]
    return None


def default_base(cwd: Path | str) -> str:
    """origin/HEAD's branch when there is one, else the current branch, else main."""
    proc = run(["symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD"], cwd, check=False)
    if proc.returncode == 0 and proc.stdout.strip():
        return proc.stdout.strip().split("/", 1)[-1]
    return current_branch(cwd) or "main"


def merge_base(cwd: Path | str, a: str, b: str) -> str | None:
    proc = run(["merge-base", a, b], cwd, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def show_file(cwd: Path | str, rev: str, path: str) -> str | None:
    proc = run(["show", f"{rev}:{path}"], cwd, check=False)
    return proc.stdout if proc.returncode == 0 else None
