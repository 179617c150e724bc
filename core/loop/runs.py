"""An item's headless runs as the TUI and the loop see them, and the recovery of runs that died.

A run file with its `hall_run_end` line is finished; one whose lock is held is live; one with
neither is a run that died (its runner was killed). The next pass records it as failed
(`run_ended` with `failed`) and closes the file with an end line, so it is counted once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .. import journal
from ..run_locks import lock_is_held
from ..runner.spawn import ROLE_ACTOR, runs_dir, usage_rows

_NAME = re.compile(r"^(\d{8}T\d{6}\d{3}Z)-([a-z_]+)\.jsonl$")
DIED = "the run died: no end line and no live process holds its lock"


def _started(stamp: str) -> str:
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]}.{stamp[15:18]}Z"


def _scan(path: Path) -> dict[str, Any]:
    """The result line, the end line and the init model of one run file (the last run in it)."""
    found: dict[str, Any] = {"end": None, "result": None, "model": "", "lines": 0, "session_id": "", "cwd": ""}
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                found["lines"] += 1
                if b'"type"' not in raw:
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                kind = record.get("type")
                if kind == "hall_run_end":
                    found["end"] = record
                elif kind == "result":
                    found["result"] = record
                elif kind == "system" and record.get("subtype") == "init":
                    found["model"] = str(record.get("model") or "")
                    found["session_id"] = str(record.get("session_id") or "")
                    found["cwd"] = str(record.get("cwd") or "")
    except OSError:
        pass
    return found


def run_files(repo: Any, item_id: str | None) -> list[Path]:
    folder = runs_dir(repo, item_id)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if _NAME.match(p.name))


def describe_run(path: Path) -> dict[str, Any]:
    match = _NAME.match(path.name)
    stamp, role = (match.group(1), match.group(2)) if match else ("", "")
    scan = _scan(path)
    live = lock_is_held(path.with_suffix(".lock"))
    end = scan["end"]
    rows = usage_rows(scan["result"], scan["model"])
    tokens = sum(r["input_tokens"] + r["output_tokens"] + r["cache_read_tokens"] + r["cache_write_tokens"] for r in rows)
    if live:
        outcome = "live"
    elif end is None:
        outcome = "died"
    elif end.get("failure"):
        outcome = f"failed: {end['failure']}"
    else:
        outcome = "ok"
    return {"file": str(path), "name": path.name, "role": role, "started": _started(stamp) if stamp else "",
            "duration_ms": end.get("duration_ms") if end else None, "exit_code": end.get("exit_code") if end else None,
            "tokens": tokens, "cost_usd": round(sum(r["cost_usd"] for r in rows), 6), "model": scan["model"],
            "outcome": outcome, "failure": end.get("failure") if end else (None if live else DIED), "live": live,
            "lines": scan["lines"], "session_id": scan["session_id"] or None,
            "cwd": (end or {}).get("cwd") or scan["cwd"] or None}


def list_runs(repo: Any, item_id: str | None) -> list[dict[str, Any]]:
    """Every run of the item, oldest first."""
    return [describe_run(p) for p in run_files(repo, item_id)]


def has_live_run(repo: Any, item_id: str | None) -> bool:
    folder = runs_dir(repo, item_id)
    return folder.is_dir() and any(lock_is_held(lock) for lock in folder.glob("*.lock"))


def dead_runs(repo: Any, item_id: str | None) -> list[Path]:
    out = []
    for path in run_files(repo, item_id):
        if lock_is_held(path.with_suffix(".lock")):
            continue
        if _scan(path)["end"] is None:
            out.append(path)
    return out


def recover_dead(repo: Any, item_id: str | None) -> list[str]:
    """Record every dead run of the item as failed, once. Returns the run file names."""
    from filelock import FileLock, Timeout

    recovered = []
    jpath = repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal
    for path in dead_runs(repo, item_id):
        lock = FileLock(str(path.with_suffix(".lock")), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            continue  # it came back to life (a new runner took it): not ours to close
        try:
            if _scan(path)["end"] is not None:
                continue
            role = _NAME.match(path.name).group(2)  # type: ignore[union-attr]
            end = {"type": "hall_run_end", "role": role, "item": item_id, "exit_code": None, "duration_ms": None,
                   "failure": DIED, "cwd": None, "recovered": True}
            with open(path, "rb+") as handle:
                handle.seek(0, 2)
                if handle.tell() > 0:
                    handle.seek(-1, 2)
                    if handle.read(1) != b"\n":
                        handle.write(b"\n")
                handle.write((json.dumps(end) + "\n").encode("utf-8"))
            journal.append(jpath, "run_ended", item=item_id, actor=ROLE_ACTOR.get(role, role), run=path.name,
                           role=role, exit_code=None, duration_ms=None, failed=DIED, recovered=True)
            recovered.append(path.name)
        finally:
            lock.release()
    return recovered
