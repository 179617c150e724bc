"""Shipping runs exactly once.

Before the ship command runs, the shipper records `ship_started` (the commit, the command, the
remote and branch, the lease holder) under the item's lease, and the command runs under the run
guard holding `items/<id>/ship.lock`, so it dies with the daemon and its lock says whether it is
still running. A `ship_started` with no outcome after it (`shipped`, a hold, a person's retry) is a
ship that was cut short. Recovery never just runs the command again: it asks the remote first.
- the ship is still running (its lock is held): wait;
- the remote has the branch at the shipped commit (and, when the command opens a PR with `gh`, a PR
  for the branch exists, or gh cannot be asked): it went out, record `shipped` (`recovered`);
- the remote does not have it: run the command again;
- the command pushes nowhere Hallmark can check: hold the item for a person (`ship_interrupted`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hallmark.core import git
from hallmark.core.repo import Repo
from hallmark.core.runs import lock_is_held

OUTCOMES = frozenset({"shipped", "held", "retried", "pulled_back", "released", "recheck_failed"})


def lock_path(repo: Repo, item_id: str) -> Path:
    return repo.paths.item_dir(item_id) / "ship.lock"


def pending(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last `ship_started` when nothing after it says how it ended."""
    found = None
    for event in events:
        name = event.get("event")
        if name == "ship_started":
            found = event
        elif name in OUTCOMES:
            found = None
    return found


def push_remote(command: str) -> str | None:
    """The remote a ship command pushes to (the first `git … push <remote>`), if any."""
    from hallmark.core.doctor import ship_remotes

    found = ship_remotes(command)
    return found[0] if found else None


def remote_head(cwd: Path | str, remote: str, branch: str) -> tuple[bool, str | None]:
    """(could ask, the sha the remote's branch points at or None)."""
    proc = git.run(["ls-remote", "--heads", remote, f"refs/heads/{branch}"], cwd, check=False)
    if proc.returncode != 0:
        return False, None
    for line in proc.stdout.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.strip() == f"refs/heads/{branch}":
            return True, sha.strip()
    return True, None


def existing_pr(cwd: Path | str, branch: str) -> tuple[bool, str]:
    """(could ask, the URL of a PR for the branch or "") through gh, when gh is there."""
    if shutil.which("gh") is None:
        return False, ""
    try:
        proc = subprocess.run(
            ["gh", "pr", "list", "--head", branch, "--state", "all", "--json", "url", "--limit", "1"],
            cwd=str(cwd),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        found = json.loads(proc.stdout or "[]") if proc.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return False, ""
    if found is None:
        return False, ""
    return True, str(found[0].get("url", "")) if found else ""


def recovery(repo: Repo, item_id: str, started: dict[str, Any], worktree: Path) -> dict[str, Any]:
    """What to do about a ship that was cut short: {"action": "wait" | "shipped" | "rerun" | "hold", …}."""
    if lock_is_held(lock_path(repo, item_id)):
        return {"action": "wait", "why": "the ship command from before is still running"}
    remote, branch, sha = started.get("remote"), str(started.get("branch") or ""), str(started.get("sha") or "")
    if not remote or not branch:
        return {
            "action": "hold",
            "why": (
                f"a ship started at {started.get('t')} did not finish, and its command "
                f"({started.get('command')}) pushes nowhere Hallmark can check; see whether "
                "it went out, then hall retry (it runs again)"
            ),
        }
    asked, head = remote_head(worktree, remote, branch)
    if not asked:
        return {
            "action": "hold",
            "why": f"a ship started at {started.get('t')} did not finish, and {remote} cannot "
            "be asked whether it went out; hall retry runs it again",
        }
    if head != sha:
        return {"action": "rerun", "why": f"{remote} does not have {branch} at {sha[:12]}"}
    if "gh pr create" in str(started.get("command") or ""):
        could, url = existing_pr(worktree, branch)
        if could and not url:
            return {"action": "rerun", "why": f"{remote} has {branch}, but no pull request is open for it"}
        return {
            "action": "shipped",
            "pr": url,
            "why": f"{remote} already has {branch} at {sha[:12]}"
            + (f" and its pull request {url}" if url else " (gh could not be asked about a pull request)"),
        }
    return {"action": "shipped", "pr": "", "why": f"{remote} already has {branch} at {sha[:12]}"}
