"""What the notify worker remembers, in `<state dir>/notify.json`, changed under its lock:

sent      entry key -> {fingerprint, at, reminders, channels: {channel: fingerprint}}
held      channel -> [message fields]  (quiet hours: one digest when they end)
failing   channel -> {since, answer, retry_at, failures}  (recorded once, retried after a back-off)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hallmark.core import atomic, journal

BACKOFF_S = (60, 300, 900, 3600)  # a failing channel's next try: 1 min, 5, 15, then hourly


def path(state_dir: Path) -> Path:
    return Path(state_dir) / "notify.json"


def read(state_dir: Path) -> dict[str, Any]:
    data = atomic.read_json(path(state_dir), {}) or {}
    if not isinstance(data, dict):
        data = {}
    for key in ("sent", "held", "failing"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data


@contextmanager
def changing(state_dir: Path) -> Iterator[dict[str, Any]]:
    """The state to change; written back when the block ends (one worker at a time)."""
    where = path(state_dir)
    with journal.locked(where):
        data = read(state_dir)
        yield data
        atomic.write_json(where, data)


def backoff(failures: int) -> int:
    return BACKOFF_S[min(max(failures, 1), len(BACKOFF_S)) - 1]
