"""Push the hallmark notes (`refs/notes/hallmark`) to the remote the branch goes to.

A reviewer or a CI job (`hall verify <ref>`) can only see that a commit was hallmarked when the
note is on the remote too. The notes go before the branch, so the PR's first CI run finds them.
When the remote's notes moved on (another machine shipped), they are fetched and merged, ours
winning for the same commit (`-s ours`), and the push is tried again once.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import git
from hallmark.core.repo import Repo

NOTES_REF = "refs/notes/hallmark"
ACTOR = "shipper"
ENV = {"HALL_ACTOR": ACTOR}


def _push(repo: Repo, remote: str) -> Any:
    return git.run(["push", "-q", remote, f"{NOTES_REF}:{NOTES_REF}"], repo.root, check=False, env=ENV)


def push_notes(repo: Repo, remote: str) -> dict[str, Any]:
    """{ok, detail}: the notes are on the remote (or why not)."""
    if git.run(["rev-parse", "--verify", "-q", NOTES_REF], repo.root, check=False).returncode != 0:
        return {"ok": False, "detail": f"there is no {NOTES_REF} to push"}
    proc = _push(repo, remote)
    if proc.returncode == 0:
        return {"ok": True, "detail": f"{NOTES_REF} pushed to {remote}"}
    theirs = f"refs/notes/hallmark-{remote}"
    fetched = git.run(["fetch", "-q", remote, f"+{NOTES_REF}:{theirs}"], repo.root, check=False, env=ENV)
    if fetched.returncode == 0:
        git.run(["notes", f"--ref={NOTES_REF}", "merge", "-q", "-s", "ours", theirs], repo.root, check=False, env=ENV)
        proc = _push(repo, remote)
        if proc.returncode == 0:
            return {"ok": True, "detail": f"{NOTES_REF} merged with {remote}'s and pushed"}
    detail = (proc.stderr or proc.stdout).strip().splitlines()
    return {"ok": False, "detail": f"git push {remote} {NOTES_REF} failed: {detail[-1] if detail else proc.returncode}"}
