"""How learnings are used: verdicts name what they used (and contradicted), unused ones are
offered for retirement after `retire_after`, and the last drain is summarised. Stdlib only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hallmark.core import clock
from hallmark.core.errors import HallError

from . import audit
from .access import library_config, paths_of, store_of
from .deciding import propose_retirement
from .lifecycle import ACTIVE
from .reading import get, list_learnings, pending
from .results import DrainSummary
from .store import parse_id

DRAIN_GAP = timedelta(minutes=30)  # decisions closer together than this belong to one drain


def record_usage(
    repo: Any,
    lids: list[str],
    *,
    item: str | None = None,
    contradicted: list[str] | None = None,
    actor: str = "assayer",
) -> dict[str, Any]:
    """A verdict says which learnings it used (and which it found wrong). Contradicted ones are
    proposed for retirement at once; use dates feed `propose_retirements`."""
    from hallmark.core import journal

    store = store_of(repo)
    usage = store.root / "usage.jsonl"
    for lid in lids:
        journal.append(usage, "learning_used", item=item, actor=actor, lid=parse_id(lid))
    proposed = []
    for lid in contradicted or []:
        journal.append(usage, "learning_contradicted", item=item, actor=actor, lid=parse_id(lid))
        learning = get(repo, lid)
        if learning.status in ACTIVE:
            propose_retirement(repo, lid, f"contradicted by the verdict on {item or 'an item'}", actor=actor)
            proposed.append(learning.id)
    return {"used": [parse_id(x) for x in lids], "retirement_proposed": proposed}


def last_used(repo: Any) -> dict[str, str]:
    """When each learning was last used by a verdict: {id: stamp} (ids never used are absent)."""
    from hallmark.core import journal

    store = store_of(repo)
    found: dict[str, str] = {}

    def used(lid: str, when: str) -> None:
        try:
            lid = parse_id(lid)
        except HallError:
            return
        if when > found.get(lid, ""):
            found[lid] = when

    for event in journal.read(store.root / "usage.jsonl").events:
        if event.get("event") == "learning_used":
            used(event["lid"], event["t"])
    # the review loop's verdicts name the learnings they used (`learnings_used`)
    for path in paths_of(repo).items_dir.glob("*/events.jsonl"):
        for event in journal.read(path).events:
            if event.get("event") == "verdict":
                for lid in event.get("learnings_used") or []:
                    used(str(lid), event["t"])
    return found


def propose_retirements(repo: Any, actor: str = "librarian") -> list[str]:
    """Accepted learnings unused for `retire_after` (default 90d) are proposed for retirement."""
    horizon = clock.parse_duration(library_config(repo).get("retire_after") or "90d")
    used_at = last_used(repo)
    now = clock.now()
    out = []
    for learning in list_learnings(repo):
        if learning.status not in ACTIVE or learning.retire_proposal:
            continue
        since = used_at.get(learning.id) or learning.updated or learning.created
        if (now - clock.parse_time(since)).total_seconds() >= horizon:
            days = int(horizon // 86400)
            propose_retirement(repo, learning.id, f"not used by any review for {days} days", actor=actor)
            out.append(learning.id)
    return out


# -- drains ---------------------------------------------------------------------------------------
def last_drain_summary(repo: Any) -> DrainSummary:
    """The most recent drain: the run of decisions no more than 30 minutes apart, counted."""
    store = store_of(repo)
    lines = [
        e
        for e in audit.read(store.audit_path)
        if e.get("event") == "library"
        and e.get("action") in {"accept", "skip", "reject", "keep", "retire", "undo", "reopen"}
    ]
    remaining = len(pending(repo))
    if not lines:
        return DrainSummary.never(remaining)
    run = [lines[-1]]
    for event in reversed(lines[:-1]):
        if clock.parse_time(run[-1]["t"]) - clock.parse_time(event["t"]) > DRAIN_GAP:
            break
        run.append(event)
    run.reverse()

    def count(*actions: str) -> int:
        return sum(1 for e in run if e.get("action") in actions)

    return DrainSummary(
        started=run[0]["t"],
        ended=run[-1]["t"],
        decisions=len(run),
        accepted=count("accept"),
        skipped=count("skip"),
        rejected=count("reject", "keep"),
        retired=count("retire"),
        undone=count("undo"),
        ids=sorted({e["lid"] for e in run}),
        remaining=remaining,
    )
