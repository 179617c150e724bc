"""The Dispatch Dock: rebase the hallmarked commit onto its base, run the `ship` template, close.

A rebase that conflicts, or that changes the approved patch, pulls the item back to development.
A rebase that leaves the patch as it was carries the approval to the new commit (a note naming
the approved one, `rebased {carried: true}`). Then the ship command runs in the worktree; its
output's PR link is recorded and the item closes (`shipped`). A failing ship command holds the item
(`ship_failed`), which is an inbox entry.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from .. import git, items, states
from ..errors import HallError
from ..repo import Repo
from ..worktree_copy import person_dirt
from . import review

ACTOR = "shipper"
URL = re.compile(r"https?://\S+")


def patch_id(cwd: str | Path, a: str, b: str) -> str:
    diff = git.run(["diff", "--no-color", "--no-ext-diff", f"{a}..{b}"], cwd).stdout
    if not diff.strip():
        return ""
    proc = subprocess.run(["git", "patch-id", "--stable"], cwd=str(cwd), input=diff, capture_output=True, text=True,
                          check=False)
    return proc.stdout.split()[0] if proc.stdout.strip() else ""


def _onto(repo: Repo, worktree: Path, base: str) -> str:
    """The base to rebase onto: the remote's copy when there is a remote that has it."""
    remotes = git.out(["remote"], worktree).split()
    if "origin" in remotes:
        git.run(["fetch", "-q", "origin", base], worktree, check=False)
        if git.run(["rev-parse", "--verify", "-q", f"refs/remotes/origin/{base}"], worktree, check=False).returncode == 0:
            return f"origin/{base}"
    return base


def rebase(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    """Rebase the item's branch onto its base; returns {ok, sha, moved, reason}."""
    worktree = Path(view.worktree)
    base = _onto(repo, worktree, view.base or repo.config.base)
    old_start = git.merge_base(worktree, base, view.hallmark_sha) or base
    before = patch_id(worktree, old_start, view.hallmark_sha)
    if git.run(["merge-base", "--is-ancestor", base, view.hallmark_sha], worktree, check=False).returncode == 0:
        return {"ok": True, "sha": view.hallmark_sha, "moved": False, "onto": base}
    proc = git.run(["rebase", "-q", base], worktree, check=False, env={"HALL_ACTOR": ACTOR})
    if proc.returncode != 0:
        git.run(["rebase", "--abort"], worktree, check=False)
        return {"ok": False, "reason": f"the rebase onto {base} conflicts", "onto": base,
                "detail": (proc.stderr or proc.stdout).strip()[-400:]}
    new_sha = git.head_sha(worktree)
    after = patch_id(worktree, git.merge_base(worktree, base, new_sha) or base, new_sha)
    if after != before:
        return {"ok": False, "reason": f"the rebase onto {base} changed the approved patch", "onto": base,
                "sha": new_sha}
    return {"ok": True, "sha": new_sha, "moved": True, "onto": base}


def _carry(repo: Repo, view: states.ItemView, new_sha: str) -> None:
    old = review.read_note(repo, view.hallmark_sha) or {}
    note = {"v": 1, "item": view.id, "sha": new_sha, "round": view.round, "model": old.get("model", ""),
            "open_findings": old.get("open_findings", []), "actor": "carried", "carried_from": view.hallmark_sha}
    git.run(["notes", f"--ref={review.NOTES_REF}", "add", "-f", "-m", json.dumps(note, separators=(",", ":")), new_sha],
            repo.root, env={"HALL_ACTOR": ACTOR})
    items.record(repo, view.id, "rebased", actor=ACTOR, sha=new_sha, previous=view.hallmark_sha, carried=True)
    items.record(repo, view.id, "verdict", actor="carried", sha=new_sha, round=view.round, decision="approve",
                 summary=f"the rebase left the approved change of {view.hallmark_sha[:12]} as it was", findings=[],
                 still_open=[], carried_from=view.hallmark_sha, human_override=False, model=old.get("model", ""))


def body_text(repo: Repo, view: states.ItemView) -> str:
    what = view.summary or view.title
    verdicts = [e for e in items.item_events(repo, view.id) if e.get("event") == "verdict"]
    last = verdicts[-1] if verdicts else {}
    override = " (a human override)" if last.get("human_override") else ""
    lines = [f"## What\n\n{what}\n", f"## Why\n\n{view.request or view.title}\n",
             f"## How\n\nHallmarked {view.hallmark_sha[:12]} after {view.round} round(s){override}: "
             f"{last.get('summary', '')}\n", f"---\nHallmark item {view.id}."]
    return "\n".join(lines) + "\n"


def ship(repo: Repo, item_id: str) -> dict[str, Any]:
    view = items.fold_item(repo, item_id)
    if view.state != states.HALLMARKED:
        raise items.wrong_state(view, "shipped")
    if view.hold:
        raise HallError("WRONG_STATE", f"{item_id} is held ({view.hold}).", [f'hall retry {item_id} --reason "…"'])
    worktree = Path(view.worktree)
    if person_dirt(repo, view):
        items.record(repo, item_id, "held", actor=ACTOR, kind="ship_failed",
                     reason="the worktree has uncommitted changes; the shipper will not push them")
        return {"item": item_id, "outcome": "held", "reason": "dirty worktree"}
    if git.head_sha(worktree) != view.hallmark_sha:
        items.transition(repo, item_id, "pulled_back", actor=ACTOR,
                         reason=f"HEAD moved past the hallmarked commit {view.hallmark_sha[:12]}")
        return {"item": item_id, "outcome": "pulled_back", "reason": "HEAD is not the hallmarked commit"}
    moved = rebase(repo, view)
    if not moved["ok"]:
        items.transition(repo, item_id, "pulled_back", actor=ACTOR, reason=moved["reason"], onto=moved.get("onto"))
        return {"item": item_id, "outcome": "pulled_back", "reason": moved["reason"]}
    if moved["moved"]:
        _carry(repo, view, moved["sha"])
    body = repo.paths.item_dir(item_id) / "pr-body.md"
    body.write_text(body_text(repo, view), encoding="utf-8")
    values = {"repo": repo.root.name, "id": item_id, "branch": view.branch, "base": view.base or repo.config.base,
              "title": view.title, "slug": view.branch.rsplit("/", 1)[-1], "body_file": str(body)}
    command = items._template(repo.config.ship, values)
    from ..runner.spawn import launch_environment

    env = launch_environment(repo, item_id, ACTOR)
    proc = subprocess.run(["sh", "-c", command], cwd=str(worktree), env=env, capture_output=True, text=True,
                          check=False)
    output = (proc.stdout + "\n" + proc.stderr).strip()
    if proc.returncode != 0:
        items.record(repo, item_id, "held", actor=ACTOR, kind="ship_failed",
                     reason=f"the ship command exited {proc.returncode}: {output[-300:]}", command=command)
        return {"item": item_id, "outcome": "held", "reason": f"ship command exited {proc.returncode}"}
    links = [u.rstrip(".,)") for u in URL.findall(proc.stdout)]
    pr = next((u for u in links if "/pull/" in u), links[-1] if links else "")
    view = items.transition(repo, item_id, "shipped", actor=ACTOR, sha=moved["sha"], pr=pr, command=command)
    try:
        (repo.state_dir / "queue" / f"{item_id}.json").unlink()
    except FileNotFoundError:
        pass
    return {"item": item_id, "outcome": "shipped", "pr": pr or None, "sha": moved["sha"], "state": view.state}
