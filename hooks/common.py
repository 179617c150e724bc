"""What every hook shares: the hook log, journal appends, and the per-session file.

Stdlib only. Appends take the same lock as core/journal.locked (an exclusive flock on
`<journal>.lock`, which is what filelock uses on POSIX) without importing filelock, whose own
imports cost ~40 ms on a hook that runs on every prompt and tool call.
"""

from __future__ import annotations

import json
import os
import sys
import time

from hallmark.core import clock, journal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from hallmark.core.paths import RepoPaths

HOOK_ACTOR = "hook"
LOG_NAME = "hook.log"
LOG_LIMIT = 1_000_000


def log_path(paths: RepoPaths | None) -> Path:
    if paths is not None and paths.initialized:
        return paths.state_dir / LOG_NAME
    from hallmark.core.paths import user_data_dir

    return user_data_dir() / LOG_NAME


def log(paths: RepoPaths | None, event: str, message: str) -> None:
    """One line in the hook log, secrets redacted. Never raises: a hook must not break a session over its log."""
    try:
        path = log_path(paths)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size > LOG_LIMIT:
                os.replace(path, path.with_name(LOG_NAME + ".1"))
        except OSError:
            pass
        from hallmark.core.secrets import redact

        line = json.dumps({"t": clock.stamp(), "event": event, "pid": os.getpid(), "message": redact(message[:2000])},
                          ensure_ascii=False)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except Exception:  # noqa: BLE001 - the log is best effort by design
        pass


class _Lock:
    """An exclusive flock on the journal's lock file, compatible with core/journal.locked."""

    def __init__(self, path: Path, timeout: float = journal.LOCK_TIMEOUT_S) -> None:
        self.path = journal.lock_path(path)
        self.timeout = timeout
        self.fd = -1

    def __enter__(self) -> _Lock:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self.fd)
                    raise TimeoutError(f"{self.path} stayed locked for {self.timeout}s") from None
                time.sleep(0.01)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


def locked(path: Path):
    if sys.platform == "win32":  # pragma: no cover - filelock's own backend there
        return journal.locked(path)
    return _Lock(path)


def record(paths: RepoPaths, item: str | None, event: str, *, actor: str = HOOK_ACTOR, **fields: Any) -> dict:
    """Append one event to the item's journal (or the repo journal when item is None)."""
    path = paths.item_journal(item) if item else paths.repo_journal
    with locked(path):
        return journal.append_unlocked(path, journal.make_event(event, item, actor, fields))


def person_actor() -> str:
    """Who typed a prompt: HALL_ACTOR when a headless run sets it, else the person."""
    actor = os.environ.get("HALL_ACTOR", "").strip()
    return actor or "you"


# -- per-session state ------------------------------------------------------------------


def session_file(paths: RepoPaths, session_id: str) -> Path | None:
    if not session_id or not isinstance(session_id, str) or "/" in session_id or "\\" in session_id \
            or session_id.startswith(".") or len(session_id) > 200:
        return None
    return paths.state_dir / "sessions" / f"{session_id}.json"


def read_session(paths: RepoPaths, session_id: str) -> dict[str, Any]:
    path = session_file(paths, session_id)
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_session(paths: RepoPaths, session_id: str, **changes: Any) -> dict[str, Any]:
    """Read-modify-write the session file under its own lock."""
    path = session_file(paths, session_id)
    if path is None:
        return {}
    with locked(path):
        data = read_session(paths, session_id)
        data.update(changes)
        data["updated"] = clock.stamp()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    return data


def text_field(payload: dict[str, Any], key: str, limit: int = 4000) -> str:
    value = payload.get(key)
    return value[:limit] if isinstance(value, str) else ""
