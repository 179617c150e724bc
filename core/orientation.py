"""What a Claude Code session is told about where it stands: the item, its state and next step,
what the person said since the last agent run, or how to start an item.

"What the person said since the last agent run" (seed ADR 0044): the person's own events in the
item's journal (prompts, answers, pull-back reasons, notes) after the last time an agent finished
(a headless run ended or an interactive turn stopped). The hooks show it: UserPromptSubmit once per
session, SessionStart whenever a session starts. Stdlib only and import-light (the hook path).
"""

from __future__ import annotations

import os

from . import states
from .next_steps import next_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .states import ItemView

AGENT_DONE = frozenset({"run_ended", "turn"})
TEXT_KEYS = ("prompt", "text", "message", "answer", "reason", "note", "comment", "summary")
SAID_LIMIT = 10
PERSON = "you"


def person_said(events: list[dict[str, Any]], after_t: str = "") -> list[dict[str, Any]]:
    """The person's words since the last agent run (and after after_t, when given)."""
    start = 0
    for index, event in enumerate(events):
        if event.get("event") in AGENT_DONE:
            start = index + 1
    said = []
    for event in events[start:]:
        if event.get("actor") != PERSON or (after_t and str(event.get("t", "")) <= after_t):
            continue
        text = next((event[k] for k in TEXT_KEYS if isinstance(event.get(k), str) and event[k].strip()), "")
        if text:
            said.append({"t": event.get("t", ""), "event": event.get("event", ""), "text": text.strip()[:400]})
    return said[-SAID_LIMIT:]


def said_text(said: list[dict[str, Any]]) -> str:
    if not said:
        return ""
    lines = ["What the person said since the last agent run:"]
    lines += [f"- ({entry['event']}, {entry['t']}) {entry['text']}" for entry in said]
    return "\n".join(lines)


def item_summary(view: ItemView) -> str:
    """A paragraph about the item, with the `next` commands that fit its state."""
    hold = ""
    if view.hold:
        hold = f" (held: {view.hold}{' — ' + view.hold_reason if view.hold_reason else ''})"
    lines = [
        f"Hallmark item {view.id}: {view.title!r}, state {view.state}{hold}"
        + (f", round {view.round}" if view.round else "")
        + "."
    ]
    if view.worktree:
        lines.append(f"Worktree: {view.worktree} (branch {view.branch}). Edit and commit only there.")
    if view.open_questions:
        lines.append(f"Open questions: {', '.join(view.open_questions)} (see hall inbox).")
    lines.append("next: " + " · ".join(next_for(view)))
    return "\n".join(lines)


def in_loop_note(view: ItemView) -> str:
    """While the review loop holds the item's commit: how the person's changes get in."""
    return (
        f"{view.id} is in {view.state}: its commit is frozen while the review loop runs. If the person wants "
        f'changes now, run `hall pull-back {view.id} --reason "…"` first, then edit.'
    )


def listens_to_person(view: ItemView) -> bool:
    """Development or waiting for you: the states where the person's words are the agent's to act on."""
    return view.state in (states.DEVELOPMENT, states.AWAITING_YOU)


def how_to_start() -> str:
    return (
        "This repository uses Hallmark: every piece of work is an item with its own branch and worktree. "
        'To start: hall new --title "…" (or hall adopt on an existing work branch), then cd into the '
        "worktree it prints. Edits outside an item's worktree and pushes without a hallmark are denied. "
        "Where things stand: hall status --all, hall inbox."
    )


def inbox_line(count: int) -> str:
    return (
        f"The inbox has {count} entr{'y' if count == 1 else 'ies'} waiting for the person (hall inbox)."
        if count
        else ""
    )


SESSION_NOTE = "worktree-code.json"  # in the state dir, kept by core/worktree_env.py (checks, init, doctor)


def session_hint(state_dir: Path) -> str:
    """For a session in an item's worktree: how to run the worktree's code when the environment
    imports the main checkout's (an editable install); "" when it does not. Reads one small file."""
    from . import atomic

    data = atomic.read_json(state_dir / SESSION_NOTE, None)
    found = [p for p in (data or {}).get("paths") or [] if isinstance(p, str)] if isinstance(data, dict) else []
    if not found:
        return ""
    where = os.pathsep.join(found)
    return (
        f"This environment imports the package from the main checkout ({', '.join(found)} there, an editable "
        f"install): a bare `pytest` (or `python -m …`) in this worktree tests the MAIN checkout's code. Run the "
        f"worktree's own code with `PYTHONPATH={where} pytest …`, as Hallmark's checks do."
    )
