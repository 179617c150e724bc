"""The floor plan: the building's eleven rooms with their items, counts and the watchman."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hallmark.core import clock, config_raw, inbox, run_locks, states, waiting
from hallmark.core.errors import HallError
from hallmark.core.memory import api as library
from hallmark.core.repo import Repo
from hallmark.core.states import ItemView
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.widget import Widget
from textual.widgets import Static

from .. import labels, rooms
from ..messages import DataLoaded
from .base import HallScreen


@dataclass
class FloorData:
    floor: rooms.Floor
    handoffs: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = True  # False: the rooms only (first paint); the rest follows
    inbox: int = 0  # entries in your inbox (questions, ready?, escalations, holds)
    badges: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # item -> core.waiting.classify


def load_rooms(repo: Repo) -> FloorData:
    """The rooms, their items and the watchman: what the first paint needs."""
    views = repo.index.items()
    now = clock.now()
    try:
        # the stdlib reader: the first paint need not wait for pydantic
        stuck_after = clock.parse_duration(config_raw.load_raw(repo.root).get("stuck_after", "30m"))
    except Exception:  # noqa: BLE001 - a bad config is reported by `hall doctor`; the floor still draws
        stuck_after = 1800.0
    asked = {q["item"] for q in repo.index.questions(open_only=True) if q["item"]}
    stuck = [s for s in rooms.watchman(views, stuck_after, now, asked)
             if not run_locks.live_runs(repo, s.item)]  # a live run is progress, however quiet (as the daemon's)
    floor = rooms.Floor(rooms=rooms.assign(views, now), stuck=stuck)
    for view in views:
        floor.counts[view.state] = floor.counts.get(view.state, 0) + 1
    return FloorData(floor, complete=False)


def load_extras(repo: Repo, data: FloorData) -> FloorData:
    """Today's handoffs (the Post Room), a stopped daemon, and the Library's pending learnings."""
    floor = data.floor
    now = clock.now()
    day_start = clock.stamp(now.replace(hour=0, minute=0, second=0, microsecond=0))
    handoffs = repo.index.events(kinds=list(states.TRANSITIONS), since=day_start)
    floor.handoffs_today = len(handoffs)
    for entry in inbox._extra_sources(repo):  # repo-level entries only: the daemon's own
        if "daemon" in str(entry.get("kind", "")):
            floor.daemon_stopped = entry.get("text") or "the daemon stopped"
    try:
        repo.config  # noqa: B018 - loading it is the check
    except HallError as exc:  # commands that need it refuse; the floor says so rather than looking normal
        floor.config_problem = exc.message
    try:
        floor.library_pending = len(library.pending(repo))
    except HallError as exc:  # e.g. an uncommitted project identity: the Library room says memory is paused
        floor.library_pending, floor.library_problem = None, exc.message
    waiting_count = len(inbox.visible(repo))
    found = waiting.badges(repo, [v for views in floor.rooms.values() for v in views])
    return FloorData(floor, handoffs[-6:], complete=True, inbox=waiting_count, badges=found)


def load_floor(repo: Repo) -> FloorData:
    """Everything the floor plan draws, through the core."""
    return load_extras(repo, load_rooms(repo))


class RoomBox(Widget, can_focus=True):
    """One room: its name on the border, counts per state with their symbols, then its items."""

    def __init__(self, room: rooms.Room) -> None:
        super().__init__(id=f"room-{room.key}", classes="room")
        self.room = room
        self.border_title = room.name
        self.items: list[ItemView] = []
        self.stuck: set[str] = set()
        self.extra: list[str] = []
        self.badges: dict[str, tuple[str, str, str]] = {}

    def set_content(self, items: list[ItemView], stuck: set[str], extra: list[str],
                    badges: dict[str, tuple[str, str, str]] | None = None) -> None:
        self.items, self.stuck, self.extra = items, stuck, extra
        self.badges = badges or {}
        count = len(items)
        if self.room.states or self.room.key in ("front_desk", "delivery"):
            self.border_subtitle = f"{count} item{'s' if count != 1 else ''}"
        flagged = sum(1 for v in items if v.id in stuck)
        if flagged:
            self.border_subtitle = f"⚠ {flagged} stuck · {self.border_subtitle}"
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        """A click focuses a room (Textual does that); a double click opens it."""
        if event.chain >= 2:
            self.focus()
            self.screen.action_open_room()  # type: ignore[attr-defined]

    def render(self) -> Text:
        height = max(1, self.content_size.height)
        width = max(4, self.content_size.width)
        lines: list[Text] = []
        if self.room.states:
            counts = Text()
            for state in self.room.states:
                n = sum(1 for v in self.items if v.state == state)
                if counts:
                    counts.append("  ")
                counts.append(f"{states.SYMBOLS[state]} {n} {rooms.STATE_WORDS[state]}")
            if counts.cell_len > width:  # narrow: symbol and count, the word only for the first
                counts = Text("  ".join(f"{states.SYMBOLS[s]} {sum(1 for v in self.items if v.state == s)}"
                                        f"{' ' + rooms.STATE_WORDS[s] if i == 0 else ''}"
                                        for i, s in enumerate(self.room.states)))
            lines.append(counts)
        for line in self.extra:
            lines.append(Text(line, style="dim"))
        room_lines = max(0, height - len(lines))
        shown = self.items[:room_lines]
        if len(self.items) > room_lines and room_lines > 0:
            shown = self.items[: room_lines - 1]
        for view in shown:
            line = Text()
            line.append("⚠ " if view.id in self.stuck else "", style="bold")
            line.append(f"{states.SYMBOLS.get(view.state, '·')} {view.id} ")
            found = self.badges.get(view.id)
            badge = labels.badge(found) if width >= 44 else labels.short_badge(found)
            if badge and found and found[0] != "idle":
                line.append(f"{badge} ", style="bold")
            line.append(view.title or "(untitled)", style="dim" if view.terminal else "")
            lines.append(line)
        if len(self.items) > len(shown) and room_lines > 0:
            lines.append(Text(f"+{len(self.items) - len(shown)} more", style="italic"))
        if not lines:
            lines.append(Text("empty", style="dim italic"))
        out = Text("\n").join(line[:width] if line.cell_len > width else line for line in lines[:height])
        out.no_wrap = True
        out.overflow = "ellipsis"
        return out


class FloorScreen(HallScreen):
    """f: the building. Arrows or hjkl move between rooms; enter opens the room's items."""

    BINDINGS = [
        Binding("left,h", "move(-1, 0)", "Left", show=False, id="floor.left"),
        Binding("right,l", "move(1, 0)", "Right", show=False, id="floor.right"),
        Binding("up,k", "move(0, -1)", "Up", show=False, id="floor.up"),
        Binding("down,j", "move(0, 1)", "Down", show=False, id="floor.down"),
        Binding("enter", "open_room", "Open room", id="floor.open"),
    ]

    columns = 3

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with Grid(id="floor-grid"):
            for room in rooms.ROOMS:
                yield RoomBox(room)
        yield Static("", id="watchman")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Floor plan"
        self._fit(self.app.size.width)
        self.query_one("#room-workshop", RoomBox).focus()
        super().on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Four rooms a row on a wide terminal, three from 80 columns, two below."""
        self.columns = 4 if width >= 120 else 3 if width >= 80 else 2
        grid = self.query_one("#floor-grid", Grid)
        grid.styles.grid_size_columns = self.columns

    def load(self, repo: Repo) -> FloorData:
        first = load_rooms(repo)
        self.post_message(DataLoaded(type(self).__name__, first))  # paint the rooms now
        return load_extras(repo, FloorData(first.floor))

    def show(self, data: FloorData) -> None:
        floor = data.floor
        stuck = {s.item for s in floor.stuck}
        for room in rooms.ROOMS:
            box = self.query_one(f"#room-{room.key}", RoomBox)
            extra: list[str] = []
            if room.key in ("post_room", "library") and not data.complete:
                extra.append("…")
            elif room.key == "post_room":
                extra.append(f"{floor.handoffs_today} handoff{'s' if floor.handoffs_today != 1 else ''} today")
                for event in reversed(data.handoffs):
                    extra.append(f"→ {event.get('item') or ''} {event.get('event')}")
            elif room.key == "library":
                if floor.library_pending is None:
                    extra.append("⚠ memory paused · L")
                else:
                    extra.append(f"{floor.library_pending} learning{'s' if floor.library_pending != 1 else ''} to review")
            elif room.key == "office" and data.complete and data.inbox:
                extra.append(f"✉ {data.inbox} in your inbox (i)")
            elif room.key == "front_desk":
                extra.append("new in the last day")
            box.set_content(floor.rooms.get(room.key, []), stuck, extra, data.badges)
        parts = []
        if floor.config_problem:
            parts.append(f"⚠ config: {floor.config_problem} (hall doctor)")
        if floor.daemon_stopped:
            parts.append(f"⚠ daemon stopped: {floor.daemon_stopped}")
        if floor.stuck:
            shown = ", ".join(f"{s.item} quiet {s.quiet}" for s in floor.stuck[:6])
            more = f" (+{len(floor.stuck) - 6})" if len(floor.stuck) > 6 else ""
            parts.append(f"⚠ stuck: {shown}{more}")
        text = "Watchman: " + ("  ·  ".join(parts) if parts else "✓ all quiet")
        self.query_one("#watchman", Static).update(Text(text))
        self.query_one("#watchman", Static).set_class(bool(parts), "-alert")

    # -- keys ------------------------------------------------------------------------------
    def _boxes(self) -> list[RoomBox]:
        return list(self.query(RoomBox))

    def focused_room(self) -> RoomBox:
        focused = self.focused
        return focused if isinstance(focused, RoomBox) else self._boxes()[0]

    def action_move(self, dx: int, dy: int) -> None:
        boxes = self._boxes()
        index = boxes.index(self.focused_room())
        target = index + dx + dy * self.columns
        if dx and target // self.columns != index // self.columns:
            return  # h/l stay on the row
        if 0 <= target < len(boxes):
            boxes[target].focus()

    def action_open_room(self) -> None:
        room = self.focused_room().room
        if room.key == "library":
            self.app.call_later(self.hall.action_mode, "drain")
            return
        if room.key == "post_room":
            from .handoffs import HandoffsScreen

            self.app.push_screen(HandoffsScreen())
            return
        from .board import BoardScreen

        self.app.push_screen(BoardScreen(room=room.key))
