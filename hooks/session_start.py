"""SessionStart: tell Claude where it stands (the item, its state and next step, the inbox),
or how to start an item; add what the person said since the last agent run, and the memory
store's context."""

from __future__ import annotations

import os

from hallmark.core.gates import itemstate
from hallmark.core.ids import SESSION_ID
from hallmark.core.states import AWAITING_YOU, DEVELOPMENT

from . import context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths




def export_session(session: str, env_file: str | None) -> bool:
    """Append `export HALL_SESSION_ID='<id>'` to Claude Code's session env file (CLAUDE_ENV_FILE),
    which Claude sources before each Bash command: `hall ask` then records the asking session and
    the daemon can resume it with the answer. Once per id; best effort (never fails the hook)."""
    if not env_file or not SESSION_ID.match(session):
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
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    export_session(session, os.environ.get("CLAUDE_ENV_FILE"))
    found = itemstate.item_for_session(paths, cwd, session)
    parts: list[str] = []
    if found is not None:
        text, view = context.item_summary(paths, found["id"])
        parts.append(text)
        if view.state in (DEVELOPMENT, AWAITING_YOU):
            said = context.person_said(context.item_events(paths, view.id))
            if said:
                parts.append(context.said_text(said))
    else:
        parts.append(context.how_to_start())
    count = context.inbox_count(paths)
    if count:
        parts.append(f"The inbox has {count} entr{'y' if count == 1 else 'ies'} waiting for the person (hall inbox).")
    memory = context.memory_context(paths)
    if memory:
        parts.append(memory)
    text = "\n\n".join(p for p in parts if p)
    if len(text) > 9500:
        text = text[:9500] + "\n…(cut; run hall status for the rest)"
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
