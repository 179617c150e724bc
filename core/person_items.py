"""The item verbs' side of person caps: sign a person's line on its way into a journal, and see an
item as the person's signed decisions leave it.

items.transition and items.record call `sealed` on every line they write (a no-op for anything but
a person's decision); a person's verb that the raw fold refuses asks `fair_view`, so an agent's
unsigned `ready` or `retry` neither moves the loop (core/person_cap.py) nor keeps the person from
deciding. Kept apart from items.py, which is the verbs' own module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import journal, person_cap, states
from .actor import PERSON_ACTORS
from .repo import Repo

VERB_OF_ACTION = {v: k for k, v in states.ACTION_OF_VERB.items()}


def sealed(repo: Repo, event: dict[str, Any]) -> dict[str, Any]:
    """A person's decision signed with this machine's key; GATE_DENIED, and nothing recorded, when
    this process cannot sign (an agent without the key)."""
    try:
        return person_cap.seal_if_person(event, repo.paths)
    except person_cap.CapError as exc:
        verb = VERB_OF_ACTION.get(str(event.get("event")), str(event.get("event")))
        raise person_cap.refusal(f"hall {verb}", exc) from None


def line(repo: Repo, event: str, item: str | None, who: str, fields: dict[str, Any]) -> dict[str, Any]:
    """journal.make_event, signed when it is a person's decision."""
    return sealed(repo, journal.make_event(event, item, who, fields))


def append(repo: Repo, path: Path, event: str, item: str | None, who: str, fields: dict[str, Any]) -> dict[str, Any]:
    """journal.append, signed (under the lock, before the line is written) for a person's decision."""
    if not person_cap.needs_cap({**fields, "event": event, "actor": who}):
        return journal.append(path, event, item=item, actor=who, **fields)
    with journal.locked(path):
        return journal.append_unlocked(path, line(repo, event, item, who, fields))


def allowed(view: states.ItemView, action: str) -> bool:
    return states.target(view.state, action) is not None or (action == "retried" and bool(view.hold))


def fair_view(repo: Repo, view: states.ItemView) -> states.ItemView:
    """The item as the person's signed decisions leave it (person_cap.honest). The raw view when
    nothing is left out."""
    events = journal.read(repo.paths.item_journal(view.id)).events
    kept = person_cap.honest(events, repo.paths, auto_ready=repo.config.auto_ready)
    return view if kept is events else states.fold(view.id, kept)


def view_for(repo: Repo, view: states.ItemView, action: str, who: str, fields: dict[str, Any]) -> states.ItemView:
    """The view a transition is checked against: the raw fold, or, for a person's decision the raw
    fold refuses, the fair one when that allows it (an error always names the state status shows)."""
    if allowed(view, action) or who not in PERSON_ACTORS:
        return view
    if not person_cap.needs_cap({**fields, "event": action, "actor": who}):
        return view
    fair = fair_view(repo, view)
    return fair if allowed(fair, action) else view
