"""UserPromptSubmit: record the prompt; offer pull-back while the item is in the review loop;
while it is in development or waiting for you, add what the person said since the last agent
run, once per session. A reply also clears the session's "waiting" inbox entry."""

from __future__ import annotations

from hallmark.core import item_lookup, journal, orientation, states

from . import common, reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

PROMPT_LIMIT = 4000


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = raw if isinstance(raw := payload.get("session_id"), str) else ""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        prompt = ""
    view = item_lookup.item_for_session(paths, cwd, session)
    item = view.id if view else None
    state = common.read_session(paths, session) if session else {}
    common.record(
        paths,
        item,
        "prompt",
        actor=common.person_actor(),
        prompt=common.clip(prompt, PROMPT_LIMIT),
        truncated=len(prompt) > PROMPT_LIMIT,
        session=session,
    )
    if state.get("waiting"):
        common.record(paths, None, "inbox_cleared", key=f"waiting:{session}")
        common.update_session(paths, session, waiting=False)
    if view is None:
        return None
    notes: list[str] = []
    if view.state in states.IN_LOOP:
        notes.append(orientation.in_loop_note(view))
    elif orientation.listens_to_person(view):
        since = str(state.get("said_until", ""))
        events = journal.read(paths.item_journal(view.id)).events
        said = [s for s in orientation.person_said(events, after_t=since) if s["event"] != "prompt"]
        if said:
            notes.append(orientation.said_text(said))
            if session:
                common.update_session(paths, session, said_until=said[-1]["t"])
    return reply.context(event, "\n\n".join(notes))
