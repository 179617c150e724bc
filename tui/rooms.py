"""The building as data: the seed's room table, which items each room holds, and the watchman.

Pure (no Textual): the floor plan draws this, tests and the benchmark call it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hallmark.core import clock, states
from hallmark.core.states import ItemView


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


@dataclass
class Stuck:
    item: str
    quiet: str  # how long since its last event, e.g. "2h"


@dataclass
class Floor:
    rooms: dict[str, list[ItemView]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    stuck: list[Stuck] = field(default_factory=list)
    daemon_stopped: str = ""  # the inbox text when the daemon stopped, else ""
    library_pending: int | None = None  # None: the memory store cannot be read now (library_problem says why)
    library_problem: str = ""
    config_problem: str = ""  # .hallmark.toml does not load: the loop stops at it until it is fixed
    handoffs_today: int = 0


def _recent(moment: str, now: datetime, days: float) -> bool:
    try:
        return now - clock.parse_time(moment) <= timedelta(days=days)
    except ValueError:
        return False


def assign(views: list[ItemView], now: datetime | None = None) -> dict[str, list[ItemView]]:
    """Which items each room shows. An item sits in the room of its state; the Front Desk shows
    arrivals of the last day, the Dispatch Dock items shipped in the last week, the Delivery
    Office every item with an open PR being watched."""
    now = now or clock.now()
    rooms: dict[str, list[ItemView]] = {room.key: [] for room in ROOMS}
    for view in views:
        for room in ROOMS:
            if room.key == "dispatch":
                continue
            if view.state in room.states:
                rooms[room.key].append(view)
        if view.created and _recent(view.created, now, 1) and view.events <= 2 and not view.terminal:
            rooms["front_desk"].append(view)
        if view.state == states.CLOSED and _recent(view.state_since, now, 7):
            rooms["dispatch"].append(view)
        if view.pr and view.state in (states.CLOSED, states.DEVELOPMENT):
            rooms["delivery"].append(view)
    for key in rooms:
        rooms[key].sort(key=lambda v: v.updated or "", reverse=key in ("records", "dispatch"))
    return rooms


def watchman(views: list[ItemView], stuck_after_s: float, now: datetime | None = None,
             asked: frozenset[str] | set[str] = frozenset()) -> list[Stuck]:
    """Items with no new event for stuck_after, oldest first. Not finished ones, and not ones waiting
    on you: awaiting you, escalated, held, or with an open question (`asked`: their ids)."""
    now = now or clock.now()
    out: list[tuple[float, Stuck]] = []
    for view in views:
        if view.terminal or view.state in (states.AWAITING_YOU, states.ESCALATED) or not view.updated:
            continue
        if view.hold or view.id in asked:
            continue
        try:
            quiet = (now - clock.parse_time(view.updated)).total_seconds()
        except ValueError:
            continue
        if quiet >= stuck_after_s:
            out.append((quiet, Stuck(view.id, since(view.updated, now))))
    out.sort(key=lambda pair: -pair[0])
    return [s for _, s in out]
