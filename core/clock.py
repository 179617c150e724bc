"""One source of "now", so tests and snapshots can pin it (HALLMARK_FIXED_NOW)."""

from __future__ import annotations

import os
from datetime import UTC, datetime


def now() -> datetime:
    fixed = os.environ.get("HALLMARK_FIXED_NOW")
    if fixed:
        return parse_time(fixed)
    return datetime.now(UTC)


def stamp(moment: datetime | None = None) -> str:
    """UTC ISO-8601 with milliseconds and a Z, the journal's `t`."""
    moment = moment or now()
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: str) -> datetime:
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def parse_duration(text: str | int | float) -> float:
    """'30m', '4h', '90d', '45s' or a number of seconds -> seconds."""
    if isinstance(text, int | float):
        return float(text)
    value = str(text).strip().lower()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    if value and value[-1] in units:
        return float(value[:-1]) * units[value[-1]]
    return float(value)
