"""Reopen: a shipped item goes back to development when its PR needs work, and says exactly what.

From what the Delivery Office saw (watch.py), in this order:
- the PR conflicts with its base (`CONFLICTING`): reopened, held `conflict`, with the rebase steps;
- a check failed: reopened, held `ci_failed`, naming the failing checks and saving each failing
  job's log (`gh run view <run> --log-failed`) under the item, whose path the hold names;
- a review thread appeared that Hallmark has not reopened for before: reopened, held `feedback`,
  with each thread's author, path, line and body.
The headless dev run that would rebase, fix CI or address threads by itself is not built yet, so
every reopen is held for a person (the inbox entry says what to do); `hall ready` takes it from
there, and the next ship updates the same PR (`update`) and resolves the threads it answered.
A reopen for red CI whose checks pass on a re-run with nothing changed goes back (`restored`).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from hallmark.core import git, items, states
from hallmark.core.repo import Repo

from . import gh

ACTOR = "delivery"
_RUN = re.compile(r"/actions/runs/(\d+)")


def acted_on(events: list[dict[str, Any]]) -> set[str]:
    """The thread ids a reopen already named (a thread is new feedback once)."""
    return {str(t) for e in events if e.get("event") == "reopened" for t in e.get("threads") or []}


def _shipped_sha(events: list[dict[str, Any]]) -> str:
    shipped = [e for e in events if e.get("event") == "shipped"]
    return str(shipped[-1].get("sha") or "") if shipped else ""


def _logs(repo: Repo, item: states.ItemView, cwd: Path, checks: list[dict[str, Any]]) -> list[str]:
    """Each failing check's job log, saved under the item (what a fixer reads); lines saying where."""
    said: list[str] = []
    for run in sorted({m.group(1) for c in checks if (m := _RUN.search(str(c.get("url") or "")))}):
        answer = gh.run(["run", "view", run, "--log-failed"], cwd, parse=False)
        if not answer.ok:
            said.append(f"the log of run {run} could not be fetched: {answer.why}")
            continue
        path = repo.paths.item_dir(item.id) / f"ci-run-{run}.log"
        path.write_text(answer.text, encoding="utf-8")
        said.append(f"the failing log of run {run}: {path}")
    return said


def judge(
    repo: Repo, item: states.ItemView, seen: dict[str, Any], events: list[dict[str, Any]], cwd: Path
) -> dict[str, Any] | None:
    """Reopen the closed item when its PR needs work (the hold says what); None when it does not."""
    if item.state != states.CLOSED or seen.get("state") != "OPEN":
        return None
    wt = shlex.quote(item.worktree)
    base = item.base or repo.config.base
    if seen.get("mergeable") == "CONFLICTING":
        steps = [f"git -C {wt} fetch origin {base}", f"git -C {wt} rebase origin/{base}", f"hall ready {item.id}"]
        why = f"{item.pr} conflicts with {base}: rebase it, resolve, then hall ready (the PR is updated)"
        return _reopen(repo, item, "conflict", why, steps)
    if seen.get("failing"):
        checks = [c for c in seen.get("checks") or [] if c.get("name") in seen["failing"]]
        logs = _logs(repo, item, cwd, checks)
        why = f"{item.pr}: CI fails ({', '.join(seen['failing'])})" + (f"; {'; '.join(logs)}" if logs else "")
        steps = [f"gh pr checks {item.pr}", f"fix it in {item.worktree}, commit, then hall ready {item.id}"]
        return _reopen(repo, item, "ci_failed", why, steps, failing=list(seen["failing"]))
    new = [t for t in seen.get("threads") or [] if t["id"] not in acted_on(events) and not t.get("by_hallmark")]
    if new:
        named = "; ".join(f"{t['author']} on {t['path']}:{t['line']}: {t['body'][:300]}" for t in new)
        steps = [
            f"address them in {item.worktree}, commit, then hall ready {item.id} (the threads are resolved when it ships)"
        ]
        return _reopen(repo, item, "feedback", f"{item.pr} has new review threads: {named}", steps, threads=new)
    return None


def _reopen(repo: Repo, item: states.ItemView, kind: str, why: str, steps: list[str], **fields: Any) -> dict[str, Any]:
    threads = fields.pop("threads", [])
    items.transition(
        repo,
        item.id,
        "reopened",
        actor=ACTOR,
        kind=kind,
        reason=why,
        pr=item.pr,
        threads=[t["id"] for t in threads],
        **fields,
    )
    items.record(repo, item.id, "held", actor=ACTOR, kind=kind, reason=why, next=steps, threads=threads)
    return {"reopened": kind, "why": why}


def restore(
    repo: Repo, item: states.ItemView, seen: dict[str, Any], events: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """A CI reopen whose checks now pass with nothing changed (PR head and worktree at what shipped) goes back."""
    if item.state != states.DEVELOPMENT or item.hold != "ci_failed" or seen.get("ci") != "passing":
        return None
    shipped = _shipped_sha(events)
    wt = Path(item.worktree)
    if not shipped or seen.get("head") != shipped or not wt.is_dir() or git.head_sha(wt) != shipped:
        return None
    why = f"the checks of {item.pr} passed on a re-run with nothing changed"
    items.record(repo, item.id, "released", actor=ACTOR, reason=why)
    items.transition(repo, item.id, "restored", actor=ACTOR, reason=why, sha=shipped, pr=item.pr)
    return {"restored": True, "why": why}


def resolve_answered(repo: Repo, item_id: str, cwd: Path) -> list[dict[str, Any]]:
    """After the update ships: resolve the threads the last feedback reopen named (GraphQL resolveReviewThread)."""
    events = items.item_events(repo, item_id)
    reopens = [e for e in events if e.get("event") == "reopened"]
    done = {str(e.get("thread")) for e in events if e.get("event") == "thread_resolved"}
    if not reopens or reopens[-1].get("kind") != "feedback":
        return []
    results = []
    for thread in reopens[-1].get("threads") or []:
        if str(thread) in done:
            continue
        answer = gh.resolve_thread(cwd, str(thread))
        if answer.ok:
            items.record(repo, item_id, "thread_resolved", actor="shipper", thread=str(thread))
        else:
            items.record(
                repo,
                item_id,
                "notice",
                actor="shipper",
                kind="thread_not_resolved",
                text=f"{item_id}: {thread}: {answer.why}",
            )
        results.append({"thread": thread, "ok": answer.ok})
    return results
