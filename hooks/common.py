"""What every hook shares: the hook log, journal appends, and the per-session file.

Stdlib only. Appends and the session file take core/journal's one lock (`journal.locked`).
"""

from __future__ import annotations

import json
import os

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
        line = json.dumps(
            {"t": clock.stamp(), "event": event, "pid": os.getpid(), "message": clip(message, 2000)},
            ensure_ascii=False,
        )
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except Exception:  # noqa: BLE001 - the log is best effort by design
        pass


def record(paths: RepoPaths, item: str | None, event: str, *, actor: str = HOOK_ACTOR, **fields: Any) -> dict:
    """Append one event to the item's journal (or the repo journal when item is None)."""
    path = paths.item_journal(item) if item else paths.repo_journal
    with journal.locked(path):
        return journal.append_unlocked(path, journal.make_event(event, item, actor, fields))


def person_actor() -> str:
    """Who typed a prompt: HALL_ACTOR when a headless run sets it, else the person."""
    actor = os.environ.get("HALL_ACTOR", "").strip()
    return actor or "you"


# -- per-session state ------------------------------------------------------------------


def session_file(paths: RepoPaths, session_id: str) -> Path | None:
    from hallmark.core.ids import session_path

    return session_path(paths.state_dir, session_id)


def read_session(paths: RepoPaths, session_id: str) -> dict[str, Any]:
    path = session_file(paths, session_id)
    if path is None:
        return {}
    from hallmark.core.bounded_read import STATE_LIMIT, read_bytes

    try:
        data = json.loads(read_bytes(path, STATE_LIMIT))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_session(paths: RepoPaths, session_id: str, **changes: Any) -> dict[str, Any]:
    """Read-modify-write the session file under its own lock."""
    path = session_file(paths, session_id)
    if path is None:
        return {}
    with journal.locked(path):
        data = read_session(paths, session_id)
        data.update(changes)
        data["updated"] = clock.stamp()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    return data


def clip(text: str, limit: int) -> str:
    """Redact, THEN cut (core/secrets.clip): a cut first would keep the head of a secret across it."""
    from hallmark.core.secrets import clip as redact_then_cut  # only when there is text to keep

    return redact_then_cut(text, limit)


def text_field(payload: dict[str, Any], key: str, limit: int = 4000) -> str:
    value = payload.get(key)
    return clip(value, limit) if isinstance(value, str) else ""
