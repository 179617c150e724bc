"""Which API responses' tokens are already recorded, per session, keyed by message id.

Two paths see a session's usage: the runner (stream-json of a headless run) and the Stop hook (the
transcript of any session, a resumed headless one included). Each response is counted once, by
whichever path claims it first: `claim` stores the largest figures counted per message id and
returns only what grew beyond them. One small JSON file per session under the state dir, changed
under an exclusive lock. Stdlib only: the Stop hook imports this.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import journal
from .ids import valid_session

FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
KEEP = 2000  # message ids kept per session (oldest dropped first)


def ledger_path(state_dir: Path, session: str) -> Path | None:
    if not valid_session(session):
        return None
    return Path(state_dir) / "usage-ledger" / f"{session}.json"


def _read(path: Path) -> dict[str, dict[str, int]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def claimed(state_dir: Path, session: str) -> dict[str, dict[str, int]]:
    """Every message id already counted in this session, with the figures counted."""
    path = ledger_path(state_dir, session)
    return _read(path) if path else {}


def claim(
    state_dir: Path, session: str, responses: dict[str, dict[str, int]]
) -> tuple[dict[str, dict[str, int]], set[str]]:
    """Record responses (message id -> figures) as counted; returns, per id, only what is new, and
    the ids no path had counted before.

    A response seen before (by this path or the other) contributes only what its figures grew by,
    so a message streamed in parts, or read again after a resume, is never counted twice."""
    path = ledger_path(state_dir, session)
    if path is None:  # no session to key on: everything is new
        return {k: {f: int(v.get(f, 0) or 0) for f in FIELDS} for k, v in responses.items()}, set(responses)
    new: dict[str, dict[str, int]] = {}
    first: set[str] = set()
    if not responses:
        return new, first
    with journal.locked(path):
        data = _read(path)
        for message_id, figures in responses.items():
            before = data.get(message_id) or {}
            if not before:
                first.add(message_id)
            grew = {f: max(0, int(figures.get(f, 0) or 0) - int(before.get(f, 0) or 0)) for f in FIELDS}
            if any(grew.values()) or not before:
                new[message_id] = grew
            data[message_id] = {f: max(int(figures.get(f, 0) or 0), int(before.get(f, 0) or 0)) for f in FIELDS}
        if len(data) > KEEP:
            data = dict(list(data.items())[-KEEP:])
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    return new, first
