"""The building as data: the seed's room table and which items each room holds.

One owner for room membership: the floor plan draws it, a room's board filters by it, the triage
list names an item's room with it, and the benchmark calls it. Pure and stdlib-only (no Textual):
the faces render what it returns.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from . import clock, states
from .states import ItemView


@dataclass(frozen=True)
class Room:
    key: str
    name: str
    what: str
    states: tuple[str, ...]  # the states it holds; () for rooms that hold no item state


ROOMS: tuple[Room, ...] = (
    Room("front_desk", "Front Desk", "intake: new and adopted items", ()),
    Room("workshop", "Workshop", "development; each bench a worktree", (states.DEVELOPMENT,)),
    Room("office", "Your Office", "questions, ready?, escalations, holds", (states.AWAITING_YOU, states.ESCALATED)),
    Room("post_room", "Post Room", "every handoff passes here", ()),
    Room("records", "Records", "the journal: dropped and closed", (states.DROPPED, states.CLOSED)),
    Room("library", "Library", "learnings from closed items", ()),
    Room("assay", "Assay Office", "checks and the principal engineer", (states.CHECKS, states.REVIEW)),
    Room("repair", "Repair Shop", "the fixer", (states.FIXING,)),
    Room("stamping", "Stamping Room", "the hallmark is struck", (states.HALLMARKED,)),
    Room("dispatch", "Dispatch Dock", "rebase, open the PR", (states.CLOSED,)),
    Room("delivery", "Delivery Office", "watch shipped PRs until they merge", ()),
)
ROOM_BY_KEY = {room.key: room for room in ROOMS}
OFFICE = "office"

STATE_WORDS = {
    states.DEVELOPMENT: "development",
    states.AWAITING_YOU: "awaiting you",
    states.CHECKS: "checks",
    states.REVIEW: "review",
    states.FIXING: "fixing",
    states.ESCALATED: "escalated",
    states.HALLMARKED: "hallmarked",
    states.CLOSED: "closed",
    states.DROPPED: "dropped",
}


def state_label(state: str) -> str:
    """A state as symbol and word ("◎ review"): never colour alone."""
    return f"{states.SYMBOLS.get(state, '·')} {STATE_WORDS.get(state, state.replace('_', ' '))}"


def since(moment: str, now: datetime | None = None) -> str:
    """'3m', '2h', '5d' since an ISO time, from the pinned clock."""
    if not moment:
        return ""
    try:
        delta = (now or clock.now()) - clock.parse_time(moment)
    except ValueError:
        return ""
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def _recent(moment: str, now: datetime, days: float) -> bool:
    try:
        return now - clock.parse_time(moment) <= timedelta(days=days)
    except ValueError:
        return False


def assign(
    views: list[ItemView], now: datetime | None = None, waiting: Collection[str] = ()
) -> dict[str, list[ItemView]]:
    """Which items each room shows.

    An item sits in the room of its state. Your Office also holds every item waiting for you
    (`waiting`: the ids core.waiting counts, so an item in development with an open question is
    in the Workshop *and* the Office, as the footer counts it). The Front Desk shows arrivals of the
    last day, the Dispatch Dock items shipped in the last week, the Delivery Office every item with
    an open PR being watched.
    """
    now = now or clock.now()
    wanted = set(waiting)
    rooms: dict[str, list[ItemView]] = {room.key: [] for room in ROOMS}
    for view in views:
        for room in ROOMS:
            if room.key == "dispatch":
                continue
            if view.state in room.states:
                rooms[room.key].append(view)
        if view.id in wanted and view.state not in ROOM_BY_KEY[OFFICE].states:
            rooms[OFFICE].append(view)
        if view.created and _recent(view.created, now, 1) and view.events <= 2 and not view.terminal:
            rooms["front_desk"].append(view)
        if view.state == states.CLOSED and _recent(view.state_since, now, 7):
            rooms["dispatch"].append(view)
        if view.pr and view.state in (states.CLOSED, states.DEVELOPMENT):
            rooms["delivery"].append(view)
    for key in rooms:
        rooms[key].sort(key=lambda v: v.updated or "", reverse=key in ("records", "dispatch"))
    return rooms
