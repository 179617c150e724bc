"""Which of an item's runs are live: the runner holds `<stamp>-<role>.lock` for as long as a run lives.

A stream file with no end line whose lock nobody holds is a run that died; only a held lock says
"running now". Stdlib only (fcntl where there is one, else filelock with no wait).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def runs_dir(repo: Any, item_id: str | None) -> Path:
    state = repo.paths.state_dir
    return state / "items" / item_id / "runs" if item_id else state / "runs"


def lock_is_held(lock: Path) -> bool:
    """True when a runner holds its exclusive lock on `lock` (we never keep it).

    The probe asks for a *shared* lock: a runner's exclusive lock refuses it, while other probes'
    shared locks do not, so two probes at the same moment never mistake each other for a live run.
    """
    if not lock.exists():
        return False
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        try:
            with FileLock(str(lock), timeout=0):
                return False
        except Timeout:
            return True
    try:
        fd = os.open(str(lock), os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def live_runs(repo: Any, item_id: str | None) -> list[Path]:
    """The stream files (`.jsonl`) of the item's runs whose lock is held right now, oldest first."""
    folder = runs_dir(repo, item_id)
    if not folder.is_dir():
        return []
    return [lock.with_suffix(".jsonl") for lock in sorted(folder.glob("*.lock")) if lock_is_held(lock)]


def run_files(repo: Any, item_id: str | None) -> list[Path]:
    """Every stream file of the item's runs, oldest first (the stamp prefix sorts by time)."""
    folder = runs_dir(repo, item_id)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.jsonl"))


TAIL_BYTES = 16384  # the end line is the file's last line; a result line before it can be long


def run_outcome(stream: Path) -> tuple[str, str]:
    """(word, detail) for one run from its lock and its last line, without reading the whole file:
    "live", "ok", "failed" (with the failure), "finished" (no runner end line, but the stream ends
    with Claude's own result line: a `claude -p` file from anywhere), or "died" (neither, and
    nobody holds the lock)."""
    if lock_is_held(stream.with_suffix(".lock")):
        return "live", ""
    try:
        with open(stream, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read()
    except OSError:
        return "died", "the stream file cannot be read"
    import json

    for raw in reversed(tail.splitlines()):
        if b"hall_run_end" not in raw:
            continue
        try:
            end = json.loads(raw)
        except ValueError:
            continue
        if isinstance(end, dict) and end.get("type") == "hall_run_end":
            failure = end.get("failure")
            return ("failed", str(failure)) if failure else ("ok", "")
    last = _last_record(tail)
    if last is not None and last.get("type") == "result":
        # a `claude -p` stream that ends with its own result line finished, whoever ran it
        bad = last.get("is_error") is True or str(last.get("subtype", "")).startswith("error")
        return "finished", ("its result line says it failed" if bad else "its result line; no runner end line")
    return "died", "no end line and no live process holds its lock"


def _last_record(tail: bytes) -> dict | None:
    import json

    for raw in reversed(tail.splitlines()):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            return None
        return record if isinstance(record, dict) else None
    return None
