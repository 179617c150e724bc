"""The loop's bounds: a round that makes no progress stops, whatever the reason.

Two independent limits, both reaching the person as a hold (an inbox entry):
- `max_run_failures` (2) failed runs in a row hold the item (`run_failed`). A failed run is one
  `run_ended` with `failed`: the runner's own judgement (a crash, a timeout, no result line) or,
  for the fixer, what the run failed to do (no commit and no dispute, uncommitted edits, a commit
  that changes nothing). A run the loop itself cut short (the daemon stopped or died) is not the
  item's failure and does not count.
- `max_runs_per_round` (8): a hard ceiling on the review and fixer runs started in one round,
  counted from the `run_started` lines themselves, so no counting bug in the fold can pass it.
  A round starts at `ready`, `fix_submitted`, a person's `retried`, or a pull-back.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import items
from hallmark.core.repo import Repo

LOOP_ROLES = frozenset({"review", "fix"})
ROUND_STARTS = frozenset({"ready", "fix_submitted", "retried", "released", "pulled_back", "reopened", "recheck_failed"})
NO_CHANGE = ("made no commit", "changes nothing", "left uncommitted changes")


def max_run_failures(repo: Repo) -> int:
    return int(getattr(repo.config, "max_run_failures", 2) or 2)


def max_runs_per_round(repo: Repo) -> int:
    return int(getattr(repo.config, "max_runs_per_round", 8) or 8)


def runs_this_round(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The review and fixer `run_started` lines since the round began; a run a rate or plan limit
    ended is not the item's (the loop paused), so it is not counted."""
    limited = {e.get("run") for e in events if e.get("event") == "run_ended" and e.get("rate_limited") and e.get("run")}
    found: list[dict[str, Any]] = []
    for event in events:
        name = event.get("event")
        if name in ROUND_STARTS:
            found = []
        elif name == "run_started" and event.get("role") in LOOP_ROLES and event.get("run") not in limited:
            found.append(event)
    return found


def _trace_hint(item_id: str, last: dict[str, Any]) -> str:
    run = last.get("run")
    if run:
        return f"its trace: hall trace {item_id} --run {run}"
    if last.get("log"):
        return f"its output: {last['log']}"
    return f"hall log {item_id} --kind run_ended"


def failed_runs_reason(item_id: str, ended: list[dict[str, Any]]) -> str:
    """What the person reads in the inbox: what the runs failed to do, and where the last one is."""
    count = len(ended)
    last = ended[-1]
    fixer_idle = all(e.get("role") == "fix" and any(k in str(e.get("failed")) for k in NO_CHANGE) for e in ended)
    if fixer_idle:
        what = f"the fixer made no change in {count} run{'s' if count != 1 else ''} in a row ({last.get('failed')})"
    else:
        role = {"fix": "the fixer", "review": "the review"}.get(str(last.get("role")), str(last.get("role") or "a run"))
        what = f"{count} failed run{'s' if count != 1 else ''} in a row; the last, {role}: {last.get('failed')}"
    return f"{what}; {_trace_hint(item_id, last)}"


def counted_failures(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The failed `run_ended` lines the fold counts in the current streak, oldest first."""
    from hallmark.core.states import counts_as_failed_run

    streak: list[dict[str, Any]] = []
    for event in events:
        if event.get("event") == "run_ended":
            if counts_as_failed_run(event):
                streak.append(event)
            elif not event.get("failed"):
                streak = []
        elif event.get("event") in ("retried", "ready"):
            streak = []
    return streak


def hold_after_failed_runs(repo: Repo, item_id: str) -> bool:
    """`max_run_failures` failed runs in a row hold the item for a person (`run_failed`)."""
    view = items.fold_item(repo, item_id)
    events = items.item_events(repo, item_id)
    ended = [e for e in events if e.get("event") == "run_ended"]
    if ended and ended[-1].get("rate_limited"):
        return False  # the plan's limit is not the item's fault: the loop pauses instead
    limit = max_run_failures(repo)
    if view.run_failures >= limit and not view.hold:
        streak = counted_failures(events)[-limit:] or ended[-1:]
        items.record(
            repo,
            item_id,
            "held",
            actor="hall",
            kind="run_failed",
            reason=failed_runs_reason(item_id, streak),
            runs=[e.get("run") for e in streak],
        )
        return True
    return False


def ceiling_reached(repo: Repo, item_id: str) -> dict[str, Any] | None:
    """Hold the item when its round has used up `max_runs_per_round` runs; the held outcome, or None.

    Every entry point that starts a review or fixer run calls this first.
    """
    view = items.fold_item(repo, item_id)
    started = runs_this_round(items.item_events(repo, item_id))
    limit = max_runs_per_round(repo)
    if len(started) < limit:
        return None
    reason = (
        f"{len(started)} runs in round {view.round} reached the ceiling of {limit} (max_runs_per_round) "
        f"without progress; the last: hall trace {item_id} --run {started[-1].get('run')}"
    )
    if not view.hold:
        items.record(repo, item_id, "held", actor="hall", kind="run_ceiling", reason=reason, runs=len(started))
    return {"item": item_id, "outcome": "held", "hold": "run_ceiling", "reason": reason, "held": True}
