"""UserPromptSubmit: record the prompt; offer pull-back while the item is in the review loop;
while it is in development or waiting for you, add what the person said since the last agent
run, once per session. A reply also clears the session's "waiting" inbox entry."""

from __future__ import annotations

from hallmark.core.gates import itemstate

from . import common, context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

IN_LOOP = ("checks", "review", "fixing")
PROMPT_LIMIT = 4000


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        prompt = ""
    found = itemstate.item_for_session(paths, cwd, session)
    item = found["id"] if found else None
    state = common.read_session(paths, session) if session else {}
    common.record(paths, item, "prompt", actor=common.person_actor(), prompt=prompt[:PROMPT_LIMIT],
                  truncated=len(prompt) > PROMPT_LIMIT, session=session)
    if state.get("waiting"):
        common.record(paths, None, "inbox_cleared", key=f"waiting:{session}")
        common.update_session(paths, session, waiting=False)
    if found is None:
        return None
    notes: list[str] = []
    if found["state"] in IN_LOOP:
        notes.append(f"{item} is in {found['state']}: its commit is frozen while the review loop runs. If the "
                     f"person wants changes now, run `hall pull-back {item} --reason \"…\"` first, then edit.")
    elif found["state"] in ("development", "awaiting_you"):
        since = str(state.get("said_until", ""))
        said = context.person_said(context.item_events(paths, item), after_t=since)
        said = [s for s in said if s["event"] != "prompt"]
        if said:
            notes.append(context.said_text(said))
            if session:
                common.update_session(paths, session, said_until=said[-1]["t"])
    if not notes:
        return None
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "\n\n".join(notes)}}
