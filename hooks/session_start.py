"""SessionStart: tell Claude where it stands (the item, its state and next step, the inbox),
or how to start an item; add what the person said since the last agent run, and the memory
store's context."""

from __future__ import annotations

import os

from hallmark.core import item_lookup, journal, orientation
from hallmark.core.ids import valid_session

from . import context, reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

CONTEXT_LIMIT = 9500


def export_session(session: str, env_file: str | None) -> bool:
    """Append `export HALL_SESSION_ID='<id>'` to Claude Code's session env file (CLAUDE_ENV_FILE),
    which Claude sources before each Bash command: `hall ask` then records the asking session and
    the daemon can resume it with the answer. Once per id; best effort (never fails the hook)."""
    if not env_file or not valid_session(session):
        return False
    line = f"export HALL_SESSION_ID='{session}'\n"
    try:
        try:
            with open(env_file, encoding="utf-8") as handle:
                if handle.read().endswith(line):
                    return True
        except FileNotFoundError:
            pass
        with open(env_file, "a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        return False
    return True


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = raw if isinstance(raw := payload.get("session_id"), str) else ""
    export_session(session, os.environ.get("CLAUDE_ENV_FILE"))
    view = item_lookup.item_for_session(paths, cwd, session)
    parts: list[str] = []
    if view is not None:
        parts.append(orientation.item_summary(view))
        parts.append(orientation.session_hint(paths.state_dir))  # a src layout installed editable
        if orientation.listens_to_person(view):
            events = journal.read(paths.item_journal(view.id)).events
            parts.append(orientation.said_text(orientation.person_said(events)))
    else:
        parts.append(orientation.how_to_start())
    parts.append(orientation.inbox_line(context.inbox_count(paths) or 0))
    parts.append(context.memory_context(paths))
    text = "\n\n".join(p for p in parts if p)
    if len(text) > CONTEXT_LIMIT:
        text = text[:CONTEXT_LIMIT] + "\n…(cut; run hall status for the rest)"
    return reply.context(event, text)
