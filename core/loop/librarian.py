"""The librarian after an item closes: the daemon distils each closed item once.

`distill` (core/memory/distill.py) runs the librarian headless through the runner and PROPOSES
what it finds: nothing reaches a prompt until a person accepts it in the drain. Every distillation,
the daemon's or a person's (`hall library distill`), is a `distilled` {run, proposed,
retirement_proposed, skipped, failed} event in the item's journal, so an item is distilled once
(one cut short by Claude's rate limit is tried again after the pause); a failed distillation is a
notice (`hall library distill <id>` tries again) and never blocks the loop. Items closed more than
a week ago (e.g. before the daemon ran) are history, left to `hall library distill`. It is the
lowest-priority worker: one item per repo per pass, and only while the librarian's budgets allow
(the plan limit, the daily total, the librarian room's daily cap; the per-run cap is the runner's
`--max-budget-usd`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hallmark.core import clock, items, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

from . import budget, leases, runs

if TYPE_CHECKING:
    from hallmark.core.memory.move_results import Distilled

ACTOR = "librarian"
PER_PASS = 1
RECENT_S = 7 * 86400  # closed within this long: older closed items are not distilled by the daemon


def owed(repo: Repo) -> list[states.ItemView]:
    """Closed items with no `distilled` record, the earliest closed first."""
    now = clock.now()
    closed = [
        v
        for v in repo.index.items()
        if v.state == states.CLOSED
        and v.state_since
        and (now - clock.parse_time(v.state_since)).total_seconds() <= RECENT_S
    ]
    if not closed:
        return []
    latest = {e.get("item"): e for e in repo.index.events(kinds=["distilled"])}
    return sorted((v for v in closed if _owed(latest.get(v.id))), key=lambda v: (v.state_since, v.id))


def _owed(last: dict[str, Any] | None) -> bool:
    return last is None or bool(last.get("rate_limited"))


def blocked(repo: Repo) -> budget.Block | None:
    return budget.check_plan(repo) or budget.check_daily(repo) or budget.check_room(repo, "librarian")


def distill_closed(repo: Repo, holder: str, *, limit: int = PER_PASS) -> list[dict[str, Any]]:
    """Distil up to `limit` closed items; returns the steps taken (never raises)."""
    done: list[dict[str, Any]] = []
    for view in owed(repo):
        if len(done) >= limit or blocked(repo):
            break
        try:
            lease = leases.acquire(repo, view.id, "librarian", holder)
        except HallError:
            continue  # another worker has it
        try:
            records = [e for e in items.item_events(repo, view.id) if e.get("event") == "distilled"]
            if not _owed(records[-1] if records else None):
                continue  # distilled while we waited
            done.append(distill_one(repo, view.id))
        finally:
            leases.release(repo, view.id, lease["holder"])
    return done


def distill_one(repo: Repo, item_id: str) -> dict[str, Any]:
    """Run the librarian on one closed item and record the outcome, whatever it is."""
    from hallmark.core.memory import distill

    runs.recover_dead(repo, item_id)  # a librarian run that died with an earlier daemon is closed first
    failed: str | None = None
    reply: Distilled | None = None
    try:
        reply = distill.distill(repo, item_id)  # records `distilled` once its run has ended
        failed = reply.failed
    except HallError as exc:
        failed = f"{exc.code}: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - the librarian must never stop the loop
        failed = f"internal error: {exc!r}"
    run = reply.run if reply is not None else None
    if failed and run and _rate_limited(repo, item_id, run):
        budget.pause_for_plan(repo, _resets_at(repo, item_id, run))
        return {"item": item_id, "outcome": "distill_paused", "run": run, "step": ACTOR}
    proposed = [p.id for p in reply.proposed if p.id] if reply is not None else []
    retiring = list(reply.retirement_proposed) if reply is not None else []
    if not _recorded_run(repo, item_id, run):  # it failed before or after its run: still distilled once
        items.record(
            repo,
            item_id,
            "distilled",
            actor=ACTOR,
            run=run,
            proposed=proposed,
            retirement_proposed=retiring,
            skipped=len(reply.skipped) if reply is not None else 0,
            failed=failed,
            rate_limited=False,
        )
    if failed:
        items.record(
            repo,
            item_id,
            "notice",
            actor=ACTOR,
            kind="librarian",
            text=f"The librarian could not distil {item_id} ({failed}); nothing was proposed. "
            f"`hall library distill {item_id}` tries again.",
        )
    elif proposed or retiring:
        parts = [f"{len(proposed)} learning{'s' if len(proposed) != 1 else ''}"] if proposed else []
        if retiring:
            parts.append(f"{len(retiring)} retirement{'s' if len(retiring) != 1 else ''}")
        items.record(
            repo,
            item_id,
            "notice",
            actor=ACTOR,
            kind="learnings",
            text=f"The librarian proposed {' and '.join(parts)} from {item_id}; they wait for you "
            "(hall library review).",
        )
    return {
        "item": item_id,
        "outcome": "distill_failed" if failed else "distilled",
        "run": run,
        "proposed": proposed,
        "retirement_proposed": retiring,
        "step": ACTOR,
    }


def _recorded_run(repo: Repo, item_id: str, run: str | None) -> bool:
    return bool(run) and any(
        e.get("event") == "distilled" and e.get("run") == run for e in items.item_events(repo, item_id)
    )


def _run_end(repo: Repo, item_id: str, run: str) -> dict[str, Any]:
    for event in reversed(items.item_events(repo, item_id)):
        if event.get("event") == "run_ended" and event.get("run") == run:
            return event
    return {}


def _rate_limited(repo: Repo, item_id: str, run: str) -> bool:
    return bool(_run_end(repo, item_id, run).get("rate_limited"))


def _resets_at(repo: Repo, item_id: str, run: str) -> str | None:
    return _run_end(repo, item_id, run).get("resets_at")
