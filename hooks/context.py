"""Context the session hooks inject: the item and its next step, and what the person said.

"What the person said since the last agent run" (seed ADR 0044): the person's own events in the
item's journal (prompts, answers, pull-back reasons, notes) after the last time an agent finished
(a headless run ended or an interactive turn stopped). UserPromptSubmit shows them once per
session; SessionStart shows them whenever a session starts.
"""

from __future__ import annotations

from hallmark.core import journal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

AGENT_DONE = frozenset({"run_ended", "turn"})
TEXT_KEYS = ("prompt", "text", "message", "answer", "reason", "note", "comment", "summary")
SAID_LIMIT = 10


def item_events(paths: RepoPaths, item_id: str) -> list[dict[str, Any]]:
    return journal.read(paths.item_journal(item_id)).events


def person_said(events: list[dict[str, Any]], after_t: str = "") -> list[dict[str, Any]]:
    """The person's words since the last agent run (and after after_t, when given)."""
    start = 0
    for index, event in enumerate(events):
        if event.get("event") in AGENT_DONE:
            start = index + 1
    said = []
    for event in events[start:]:
        if event.get("actor") != "you" or (after_t and str(event.get("t", "")) <= after_t):
            continue
        text = next((event[k] for k in TEXT_KEYS if isinstance(event.get(k), str) and event[k].strip()), "")
        if text:
            said.append({"t": event.get("t", ""), "event": event.get("event", ""), "text": text.strip()[:400]})
    return said[-SAID_LIMIT:]


def said_text(said: list[dict[str, Any]]) -> str:
    if not said:
        return ""
    lines = ["What the person said since the last agent run:"]
    for entry in said:
        lines.append(f"- ({entry['event']}, {entry['t']}) {entry['text']}")
    return "\n".join(lines)


def item_summary(paths: RepoPaths, item_id: str) -> tuple[str, Any]:
    """A paragraph about the item with its `next` commands, and the folded view."""
    from hallmark.core import states
    from hallmark.core.items import next_for

    events = item_events(paths, item_id)
    view = states.fold(item_id, events)
    lines = [f"Hallmark item {view.id}: {view.title!r}, state {view.state}"
             + (f" (held: {view.hold}{' — ' + view.hold_reason if view.hold_reason else ''})" if view.hold else "")
             + (f", round {view.round}" if view.round else "") + "."]
    if view.worktree:
        lines.append(f"Worktree: {view.worktree} (branch {view.branch}). Edit and commit only there.")
    if view.open_questions:
        lines.append(f"Open questions: {', '.join(view.open_questions)} (see hall inbox).")
    lines.append("next: " + " · ".join(next_for(view)))
    return "\n".join(lines), view


def inbox_count(paths: RepoPaths) -> int | None:
    """What waits for the person: core.waiting's one count, the same number the app's footer, the
    inbox and `hall inbox` show (dismissals applied). None when it cannot be read now."""
    from hallmark.core import waiting
    from hallmark.core.repo import Repo

    try:
        return waiting.waiting_for_you(Repo(paths, paths.main_checkout)).count
    except Exception as exc:  # noqa: BLE001 - the count is news, not a gate: the session starts anyway
        from hallmark.hooks.common import log

        log(paths, "session-start", f"inbox count failed: {type(exc).__name__}: {exc}")
        return None


def how_to_start() -> str:
    return ("This repository uses Hallmark: every piece of work is an item with its own branch and worktree. "
            'To start: hall new --title "…" (or hall adopt on an existing work branch), then cd into the '
            "worktree it prints. Edits outside an item's worktree and pushes without a hallmark are denied. "
            "Where things stand: hall status --all, hall inbox.")


def memory_context(paths: RepoPaths) -> str:
    """The memory store's session context, if that part is installed; never fails the hook."""
    try:
        from hallmark.core.memory.inject import session_context
    except Exception:  # noqa: BLE001
        return ""
    try:
        text = session_context(paths)
    except Exception as exc:  # noqa: BLE001
        from hallmark.hooks.common import log

        log(paths, "session-start", f"memory context failed: {type(exc).__name__}: {exc}")
        return ""
    return text if isinstance(text, str) else ""
