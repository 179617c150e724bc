"""The library's append-only audit log: one line per change (who, when, from, to, why).

Each line also carries the full record after the change, so replaying the log rebuilds the
store exactly; `verify` proves it does. Lines are written by store.Store.save (and by reconcile
and the checkpoint for their own changes). Stdlib + filelock only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hallmark.core import journal


def read(path: Path, lid: str | None = None) -> list[dict[str, Any]]:
    events = journal.read(path).events
    if lid:
        events = [e for e in events if e.get("lid") == lid]
    return events


def summary(event: dict[str, Any]) -> dict[str, Any]:
    """The line without its record: who, when, what, from, to, why."""
    keys = ("t", "actor", "event", "lid", "slug", "decision", "action", "from", "to", "why", "version")
    return {k: event.get(k) for k in keys if k in event}


def replay(path: Path) -> dict[str, dict[str, Any]]:
    """Fold the log: the last record of each learning is its current state."""
    state: dict[str, dict[str, Any]] = {}
    for event in journal.read(path).events:
        if event.get("event") != "library":
            continue
        record = event.get("record")
        lid = event.get("lid")
        if isinstance(record, dict) and lid:
            if record.get("status") != event.get("to"):
                raise ValueError(f"audit line for {lid} v{event.get('version')} disagrees with its record")
            state[lid] = record
    return state


def verify(path: Path, current: dict[str, dict[str, Any]]) -> list[str]:
    """Differences between the replayed log and the files on disk (empty: they agree)."""
    replayed = replay(path)
    problems = []
    for lid in sorted(set(replayed) | set(current)):
        if lid not in replayed:
            problems.append(f"{lid}: on disk but never in the audit log")
        elif lid not in current:
            problems.append(f"{lid}: in the audit log but its file is missing")
        elif replayed[lid] != current[lid]:
            changed = sorted(
                k for k in set(replayed[lid]) | set(current[lid]) if replayed[lid].get(k) != current[lid].get(k)
            )
            problems.append(f"{lid}: the file differs from the audit log in {', '.join(changed)}")
    return problems
