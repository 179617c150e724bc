"""`hall usage`: tokens and list-price cost of every model run, totalled by item, room, role, model or day."""

from __future__ import annotations

import contextlib
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.run_results import UsageReport, UsageRow, UsageSum

from .budget import window_start

ROOM_OF_ROLE = {
    "review": "Assay Office",
    "fix": "Repair Shop",
    "intake": "Front Desk",
    "librarian": "Library",
    "dev": "Workshop",
    "session": "Workshop",
    "ship": "Dispatch Dock",
}
GROUPINGS = ("item", "room", "role", "model", "day")
FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _key(event: dict[str, Any], by: str) -> str:
    role = str(event.get("role") or "session")
    if by == "item":
        return str(event.get("item") or "(no item)")
    if by == "room":
        return ROOM_OF_ROLE.get(role, role)
    if by == "role":
        return role
    if by == "model":
        return str(event.get("model") or "unknown")
    return str(event.get("t", ""))[:10]


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def report(repo: Repo, by: str = "item", since: str | None = None, item: str | None = None) -> UsageReport:
    if by not in GROUPINGS:
        raise HallError("USAGE", f"--by takes one of {', '.join(GROUPINGS)}, not {by!r}.", ["hall usage --by item"])
    start = window_start(since)
    events = repo.index.events(kinds=["usage"], since=start, item=item)
    rows: dict[str, dict[str, Any]] = {}
    total: dict[str, Any] = {f: 0 for f in FIELDS} | {"cost_usd": 0.0, "runs": 0, "tokens": 0}
    for event in events:
        key = _key(event, by)
        row = rows.setdefault(
            key, {"key": key, **{f: 0 for f in FIELDS}, "cost_usd": 0.0, "runs": 0, "tokens": 0, "standin_runs": 0}
        )
        for target in (row, total):
            for f in FIELDS:
                target[f] += _int(event.get(f))
            target["tokens"] = sum(target[f] for f in FIELDS)
            with contextlib.suppress(TypeError, ValueError):
                target["cost_usd"] = round(target["cost_usd"] + float(event.get("cost_usd") or 0), 6)
            target["runs"] += 1
        if event.get("standin"):
            row["standin_runs"] += 1
    ordered = sorted(rows.values(), key=lambda r: (r["key"] if by == "day" else -r["tokens"], r["key"]))
    return UsageReport(by=by, since=start, rows=tuple(UsageRow(**row) for row in ordered), total=UsageSum(**total))
