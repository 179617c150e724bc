"""The Dispatch Dock: rebase the hallmarked commit onto its base, check it again, run `ship` once, close.

- A rebase that conflicts pulls the item back to development and holds it (`conflict`): an inbox
  entry naming the conflicting files, with the steps that work (`git -C <worktree> rebase <onto>`,
  then `hall ready`). A rebase that changes the approved patch pulls it back (ADR 0049).
- A rebase that leaves the patch as it was but changes the tree (the base brought new code) runs
  the gates again on the rebased commit (free from the checks cache when nothing changed). Red:
  the item goes back to `fixing` with the failure as a finding, a new round (`recheck_failed`).
  Green: the approval carries over (ADR 0049), and the hallmark is struck through review.strike on
  the very commit that was checked, naming the approved one. Never on a commit nobody checked.
- Then the hallmark notes go to the remote, and the ship command runs exactly once (ship_once.py):
  `ship_started` first, under the item's lease and the ship lock. Its PR link is recorded and the
  item closes (`shipped`). A failing ship command holds the item (`ship_failed`), an inbox entry.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

from hallmark.core import git, items, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.runner import lifecycle
from hallmark.core.worktree_copy import person_dirt

from . import notes_push, review, ship_once
from . import rebase as _rebase
from .rebase import patch_id  # noqa: F401 - re-exported for callers of ship.patch_id

ACTOR = "shipper"
URL = re.compile(r"https?://\S+")


def body_text(repo: Repo, view: states.ItemView) -> str:
    """The PR description (What / Why / How and the hallmark): core/delivery/pr.py builds it."""
    from hallmark.core.delivery import pr

    return pr.body_text(repo, view)


# -- after the rebase -------------------------------------------------------------------------


def _hold_conflict(repo: Repo, view: states.ItemView, moved: dict[str, Any]) -> dict[str, Any]:
    where = shlex.quote(view.worktree)
    steps = [f"git -C {where} rebase {moved['onto']}", f"hall ready {view.id}"]
    files = list(moved.get("files") or [])
    items.transition(repo, view.id, "pulled_back", actor=ACTOR, reason=moved["reason"], onto=moved["onto"], files=files)
    named = ", ".join(files) if files else "(git did not name them)"
    items.record(
        repo,
        view.id,
        "held",
        actor=ACTOR,
        kind="conflict",
        onto=moved["onto"],
        files=files,
        next=steps,
        reason=(
            f"the approved commit {view.hallmark_sha[:12]} does not rebase onto {moved['onto']}: "
            f"conflicts in {named}. Rebase it by hand ({steps[0]}), resolve, then {steps[1]}"
        ),
    )
    return {
        "item": view.id,
        "outcome": "held",
        "hold": "conflict",
        "reason": moved["reason"],
        "files": files,
        "next": steps,
    }


def _recheck(repo: Repo, view: states.ItemView, moved: dict[str, Any]) -> dict[str, Any] | None:
    """The gates on the rebased commit; None when they pass, else the item goes back to fixing."""
    from hallmark.core import worktree_setup

    from . import checks
    from . import findings as _findings

    try:
        outcome = checks.run_checks(repo, view.id, moved["sha"], Path(view.worktree), actor="assayer")
    except worktree_setup.SetupFailed as setup_failed:
        return worktree_setup.hold(repo, view.id, setup_failed, actor=ACTOR)
    if outcome.passed:
        moved["checks"] = [{"command": r.command, "cached": r.cached} for r in outcome.results]
        return None
    failed = outcome.failed
    found = [_finding(r, moved["onto"]) for r in failed]
    ids = _findings.next_ids(repo, view.id, len(found))
    new = [dict(f, id=fid) for f, fid in zip(found, ids, strict=True)]
    still = [f["id"] for f in _findings.unresolved(repo, view.id) if f["status"] == "open"]
    items.record(
        repo,
        view.id,
        "verdict",
        actor="assayer",
        sha=moved["sha"],
        round=view.round + 1,
        decision="changes_requested",
        source="checks_after_rebase",
        model="",
        human_override=False,
        summary=f"the gates fail on the commit rebased onto {moved['onto']}",
        findings=new,
        still_open=still,
        blocking=[f["id"] for f in new],
    )
    failures = view.check_failures + 1
    fields: dict[str, Any] = {
        "sha": moved["sha"],
        "round": view.round + 1,
        "previous": view.hallmark_sha,
        "onto": moved["onto"],
        "failed": [r.command for r in failed],
        "in_a_row": failures,
        "condensed": outcome.condensed,
    }
    if failures >= repo.config.max_check_failures:
        fields.update(held=True, reason=f"checks failed {failures} times in a row (max_check_failures)")
    items.transition(repo, view.id, "recheck_failed", actor="assayer", **fields)
    return {
        "item": view.id,
        "outcome": "recheck_failed",
        "sha": moved["sha"],
        "failed": fields["failed"],
        "findings": [f["id"] for f in new],
        "state": states.FIXING,
    }


_WHERE = re.compile(r"(?<![\w/.-])([\w.-][\w./-]*\.\w+):(\d+)")


def _finding(result: Any, onto: str) -> dict[str, Any]:
    """The failure as a finding: the first file:line the condensed output names (else the gate)."""
    why = "timed out" if result.timed_out else f"exits {result.exit_code}"
    where = _WHERE.search(result.condensed or "")
    return {
        "lens": "evidence",
        "severity": "blocker",
        "file": where.group(1) if where else f"(gate) {result.command}",
        "line": int(where.group(2)) if where else None,
        "title": f"`{result.command}` fails after the rebase onto {onto}",
        "scenario": (
            f"The approved change, rebased onto {onto}, no longer passes `{result.command}` (it {why}): "
            f"the base changed under it. The full log: {result.log_path}"
        ),
        "suggestion": "Make the change work with the new base (see the failing checks), then commit.",
    }


def _carry(repo: Repo, view: states.ItemView, moved: dict[str, Any]) -> None:
    """The same approved change on a checked commit: the hallmark is struck there, naming the approved one."""
    old = review.read_note(repo, view.hallmark_sha) or {}
    new_sha = moved["sha"]
    review.strike(
        repo,
        view,
        model=str(old.get("model", "")),
        open_findings=list(old.get("open_findings", [])),
        actor="carried",
        sha=new_sha,
        carried_from=view.hallmark_sha,
        run=old.get("run"),
        standin=bool(old.get("standin")),
    )  # the approval's provenance travels with it
    items.record(
        repo,
        view.id,
        "rebased",
        actor=ACTOR,
        sha=new_sha,
        previous=view.hallmark_sha,
        carried=True,
        onto=moved["onto"],
        tree_changed=moved["tree_changed"],
        checked=moved.get("checks"),
    )
    items.record(
        repo,
        view.id,
        "verdict",
        actor="carried",
        sha=new_sha,
        round=view.round,
        decision="approve",
        summary=f"the rebase left the approved change of {view.hallmark_sha[:12]} as it was"
        + (" and the gates pass on it" if moved.get("checks") else ""),
        findings=[],
        still_open=[],
        carried_from=view.hallmark_sha,
        human_override=False,
        model=old.get("model", ""),
    )


def _rebased_before(repo: Repo, view: states.ItemView, head: str) -> dict[str, Any] | None:
    """HEAD is not the hallmarked commit: a shipper that died between its rebase and the carried
    hallmark left the same change rebased (go on from there, checks included); anything else is new
    work, which pulls the item back (None)."""
    worktree = Path(view.worktree)
    base = _rebase.onto(repo, worktree, view.base or repo.config.base)
    on_base = git.run(["merge-base", "--is-ancestor", base, head], worktree, check=False).returncode == 0
    if not on_base or not _rebase.same_patch(worktree, base, view.hallmark_sha, head):
        return None
    return {
        "ok": True,
        "sha": head,
        "moved": True,
        "onto": base,
        "tree_changed": _rebase.tree(worktree, head) != _rebase.tree(worktree, view.hallmark_sha),
    }


# -- the ship command, exactly once -------------------------------------------------------------


def _lease_holder(repo: Repo, item_id: str) -> str | None:
    from . import leases

    lease = leases.current(repo, item_id)
    return str(lease.get("holder")) if lease else None


def _last_shipped_sha(repo: Repo, item_id: str) -> str:
    """What Hallmark last pushed to the PR's branch (or the head the PR had when it was adopted)."""
    found = [e for e in items.item_events(repo, item_id) if e.get("event") in ("shipped", "pr_adopted")]
    return str(found[-1].get("sha") or found[-1].get("head") or "") if found else ""


def _known_pr(repo: Repo, view: states.ItemView) -> str:
    """The item's PR: the one it shipped to, or the one it was adopted from (`hall adopt --pr`)."""
    if view.pr:
        return view.pr
    adopted = [e for e in items.item_events(repo, view.id) if e.get("event") == "pr_adopted"]
    return str(adopted[-1].get("pr") or "") if adopted else ""


def _run_ship_command(repo: Repo, view: states.ItemView, sha: str) -> dict[str, Any]:
    """`ship` opens the PR; an item that has one already (reopened, adopted) runs `update` on it."""
    from hallmark.core.delivery import pr as _pr

    body = repo.paths.item_dir(view.id) / "pr-body.md"
    body.write_text(body_text(repo, view), encoding="utf-8")
    known = _known_pr(repo, view)
    updating = bool(known)
    values = {
        "repo": repo.root.name,
        "id": view.id,
        "branch": view.branch,
        "base": view.base or repo.config.base,
        "title": view.title,
        "slug": view.branch.rsplit("/", 1)[-1],
        "body_file": str(body),
        "pr": known,
        "pr_number": str(_pr.number_of(known) or ""),
        "pr_head": _last_shipped_sha(repo, view.id) or sha,  # what Hallmark pushed: a person's push fails the lease
    }
    command = items._template(repo.config.update if updating else repo.config.ship, values)
    remote = ship_once.push_remote(command)
    from hallmark.core.runner.command import launch_environment

    lock = lifecycle.RunLock(ship_once.lock_path(repo, view.id))
    lock.acquire(timeout_s=5)
    try:
        items.record(
            repo,
            view.id,
            "ship_started",
            actor=ACTOR,
            sha=sha,
            command=command,
            remote=remote,
            branch=view.branch,
            holder=_lease_holder(repo, view.id),
        )
        if remote:
            pushed = notes_push.push_notes(repo, remote)
            if not pushed["ok"]:
                items.record(
                    repo,
                    view.id,
                    "held",
                    actor=ACTOR,
                    kind="ship_failed",
                    command=command,
                    reason=f"the hallmark notes could not be pushed: {pushed['detail']}",
                )
                return {"item": view.id, "outcome": "held", "reason": pushed["detail"]}
        env = launch_environment(repo, view.id, ACTOR)
        log = repo.paths.item_dir(view.id) / "ship.log"
        with open(log, "wb") as out:
            code, _timed_out = lifecycle.run_guarded(
                ["sh", "-c", command],
                cwd=view.worktree,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                pass_fds=lock.pass_fds,
            )
        output = log.read_text(encoding="utf-8", errors="replace").strip()
    finally:
        lock.release()
    if code != 0:
        items.record(
            repo,
            view.id,
            "held",
            actor=ACTOR,
            kind="ship_failed",
            reason=f"the ship command exited {code}: {output[-300:]}",
            command=command,
        )
        return {"item": view.id, "outcome": "held", "reason": f"ship command exited {code}"}
    links = [u.rstrip(".,)") for u in URL.findall(output)]
    pr = next((u for u in links if "/pull/" in u), links[-1] if links else "")
    if updating:
        pr = known
        items.record(repo, view.id, "pr_updated", actor=ACTOR, pr=pr, number=_pr.number_of(pr), sha=sha)
        from hallmark.core.delivery import reopen

        reopen.resolve_answered(repo, view.id, Path(view.worktree))  # the threads this update answers
    elif pr:
        items.record(repo, view.id, "pr_opened", actor=ACTOR, pr=pr, number=_pr.number_of(pr), sha=sha)
    result = _shipped(repo, view.id, sha, pr, command=command, notes=bool(remote), updated=updating)
    if pr:
        posted = _pr.post_reviews(repo, view.id)
        result["reviews_posted"] = [p["url"] for p in posted if p["ok"]]
        failed = [p["why"] for p in posted if not p["ok"]]
        if failed:
            result["review_comment_failed"] = failed
    return result


def _shipped(repo: Repo, item_id: str, sha: str, pr: str, **fields: Any) -> dict[str, Any]:
    view = items.transition(repo, item_id, "shipped", actor=ACTOR, sha=sha, pr=pr, **fields)
    with contextlib.suppress(FileNotFoundError):
        (repo.state_dir / "queue" / f"{item_id}.json").unlink()
    return {"item": item_id, "outcome": "shipped", "pr": pr or None, "sha": sha, "state": view.state}


def _recover(repo: Repo, view: states.ItemView, started: dict[str, Any]) -> dict[str, Any] | None:
    """A ship cut short (a daemon crash): ask the remote before anything runs again. None: run it."""
    plan = ship_once.recovery(repo, view.id, started, Path(view.worktree))
    if plan["action"] == "wait":
        return {"item": view.id, "outcome": "ship_in_progress", "reason": plan["why"]}
    if plan["action"] == "shipped":
        return _shipped(
            repo,
            view.id,
            str(started["sha"]),
            plan.get("pr", ""),
            command=started.get("command"),
            recovered=True,
            why=plan["why"],
        )
    if plan["action"] == "hold":
        items.record(repo, view.id, "held", actor=ACTOR, kind="ship_interrupted", reason=plan["why"])
        return {"item": view.id, "outcome": "held", "reason": plan["why"]}
    items.record(
        repo,
        view.id,
        "notice",
        actor=ACTOR,
        kind="ship_recovery",
        text=f"{view.id}: the ship started at {started.get('t')} did not finish and {plan['why']}; running it again",
    )
    return None


def ship(repo: Repo, item_id: str) -> dict[str, Any]:
    view = items.fold_item(repo, item_id)
    if view.state != states.HALLMARKED:
        raise items.wrong_state(view, "shipped")
    if view.hold:
        raise HallError("WRONG_STATE", f"{item_id} is held ({view.hold}).", [f'hall retry {item_id} --reason "…"'])
    worktree = Path(view.worktree)
    started = ship_once.pending(items.item_events(repo, item_id))
    if started is not None:
        recovered = _recover(repo, view, started)
        if recovered is not None:
            return recovered
    _rebase.abort_stale(worktree)  # a rebase a crashed shipper left half-done
    dirty = person_dirt(repo, view)
    changed = [line[3:] for line in dirty if not line.startswith("??")]
    if changed:  # edits to tracked files: the rebase would refuse them, and they are not what was approved
        items.record(
            repo,
            item_id,
            "held",
            actor=ACTOR,
            kind="ship_failed",
            files=changed[:20],
            next=[f"git -C {shlex.quote(view.worktree)} status", f'hall retry {item_id} --reason "…"'],
            reason=(
                f"the worktree has uncommitted changes to {', '.join(changed[:5])}"
                + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
                + "; they are not part of the approved commit, and the shipper will not push or discard them. "
                "Commit them on a new item or discard them, then hall retry"
            ),
        )
        return {"item": item_id, "outcome": "held", "reason": "dirty worktree", "files": changed[:20]}
    if dirty:  # untracked files only: never reviewed, never pushed; the approved commit ships, they stay
        left = [line[3:] for line in dirty]
        items.record(
            repo,
            item_id,
            "notice",
            actor=ACTOR,
            kind="left_in_worktree",
            files=left[:20],
            text=f"{item_id} ships its approved commit; these untracked files stay in {view.worktree} and are not "
            f"part of it: {', '.join(left[:5])}" + (f" and {len(left) - 5} more" if len(left) > 5 else ""),
        )
    head = git.head_sha(worktree)
    if head != view.hallmark_sha:
        moved = _rebased_before(repo, view, head)
        if moved is None:
            items.transition(
                repo,
                item_id,
                "pulled_back",
                actor=ACTOR,
                reason=f"HEAD moved past the hallmarked commit {view.hallmark_sha[:12]}",
            )
            return {"item": item_id, "outcome": "pulled_back", "reason": "HEAD is not the hallmarked commit"}
    else:
        moved = _rebase.rebase(repo, view)
    if not moved["ok"]:
        if moved.get("conflict"):
            return _hold_conflict(repo, view, moved)
        items.transition(repo, item_id, "pulled_back", actor=ACTOR, reason=moved["reason"], onto=moved.get("onto"))
        return {"item": item_id, "outcome": "pulled_back", "reason": moved["reason"]}
    if moved["moved"]:
        if moved["tree_changed"]:
            red = _recheck(repo, view, moved)
            if red is not None:
                return red
        _carry(repo, view, moved)
        view = items.fold_item(repo, item_id)
    return _run_ship_command(repo, view, moved["sha"])
