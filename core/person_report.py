"""Unsigned person decisions, shown as what they are: an agent's attempt.

The loop ignores a person event without a valid cap (core/person_cap.py); the person must still see
that one was written, and where an item's state rests on it (the loop then leaves the item alone).
`hall status` warns about those items; `hall doctor` lists every attempt in the journals.
"""

from __future__ import annotations

from typing import Any

from . import journal, person_cap
from .doctor_check import check
from .paths import RepoPaths
from .setup_results import Check

STALLED_STATES = frozenset({"checks", "review", "fixing", "escalated", "hallmarked"})
SHOWN = 5


def _auto_ready(paths: RepoPaths) -> bool:
    from .config_raw import load_raw

    try:
        return bool(load_raw(paths.main_checkout).get("auto_ready"))
    except Exception:  # noqa: BLE001 - a broken config: auto_ready is off
        return False


def stalled(paths: RepoPaths, views: list[Any], index: Any, auto_ready: bool | None = None) -> list[str]:
    """For each item in the loop whose state rests on a person decision that counts for nothing:
    "H-0001 is not worked by the loop in checks: an agent's attempt: unsigned `ready` by you …".
    Read from the index (status never reads a journal it has caught up with): first the item's
    decisions only, and all its events only when one of them counts for nothing."""
    auto = auto_ready
    out = []
    for view in views:
        if view.state not in STALLED_STATES:
            continue
        auto = _auto_ready(paths) if auto is None else auto  # read once, and only when an item is in the loop
        decisions = index.events(item=view.id, kinds=[*sorted(person_cap.ACTED_ON), "verdict"])
        if not person_cap.attempts(decisions, paths, auto_ready=auto):
            continue
        events = index.events(item=view.id)
        why = person_cap.loop_attempt(paths, events, view, auto_ready=auto)
        if why:
            out.append(f"{view.id} is not worked by the loop in {view.state}: {why}")
    return out


def every_attempt(paths: RepoPaths, auto_ready: bool | None = None) -> tuple[list[str], list[str]]:
    """(every person decision in this repository's journals that counts for nothing, described;
    the items whose state rests on one, as stalled() says them)."""
    from . import states

    auto = _auto_ready(paths) if auto_ready is None else auto_ready
    found: list[str] = []
    stuck: list[str] = []
    for path in [paths.repo_journal, *sorted(paths.items_dir.glob("H-*/events.jsonl"))]:
        events = journal.read(path).events
        drop = person_cap.attempts(events, paths, auto_ready=auto)
        found += [person_cap.describe(events[i], why) for i, why in sorted(drop.items())]
        if drop and path != paths.repo_journal:
            view = states.fold(path.parent.name, events)
            why = (
                person_cap.loop_attempt(paths, events, view, auto_ready=auto) if view.state in STALLED_STATES else None
            )
            if why:
                stuck.append(f"{view.id} is not worked by the loop in {view.state}: {why}")
    return found, stuck


def doctor_check(paths: RepoPaths) -> Check:
    """Failed while an item's state rests on an attempt; the rest of the history is listed."""
    seen, stuck = every_attempt(paths)
    if not seen:
        return check("decisions", True, "every person decision the loop acts on is signed by this machine's key")
    listed = stuck or seen
    more = f" (+{len(listed) - SHOWN} more)" if len(listed) > SHOWN else ""
    return check(
        "decisions",
        not stuck,
        f"{len(seen)} unsigned person decision(s), which the loop ignores: " + "; ".join(listed[:SHOWN]) + more,
        "if one was yours, run it again in your own terminal (`hall pull-back <id>`, then `hall ready <id>`)",
    )
