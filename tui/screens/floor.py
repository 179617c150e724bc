"""The floor plan: the building's eleven rooms with their items, counts and the watchman.

The rooms, their items, badges and the stuck flags come from the app's Building (core.rooms,
core.waiting, core.watchman), so they repaint in place the moment it changes. The Post Room's
handoffs, the Library's pending learnings, a stopped daemon and a broken config are the floor's
own extras, loaded in a worker and kept between reloads: nothing blinks while the daemon works.

Rooms are as tall as what they hold. Below WIDE_ENOUGH columns or TALL_ENOUGH rows the floor
becomes one scrolling list of rooms (no boxes), so a small terminal still shows every item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from hallmark.core import clock, inbox, rooms, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.states import ItemView
from hallmark.tui import labels
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from .base import HallScreen

if TYPE_CHECKING:
    from hallmark.core.building import Building

WIDE_ENOUGH = 70  # below this many columns, or
TALL_ENOUGH = 20  # this many rows, the floor is a list
ROOM_ITEMS = 8  # items a room box lists before "+N more" (enter opens the room's board)


@dataclass
class FloorExtras:
    handoffs_today: int = 0
    handoffs: list[dict[str, Any]] = field(default_factory=list)  # the latest few, oldest first
    daemon_stopped: str = ""
    library_pending: int | None = None  # None: the memory store cannot be read now (library_problem says why)
    library_problem: str = ""
    config_problem: str = ""


def load_extras(repo: Repo) -> FloorExtras:
    """Today's handoffs (the Post Room), a stopped daemon, a broken config and the Library's queue."""
    # imported here, not with the module: the first paint does not wait for the memory store
    from hallmark.core.memory import api as library

    extras = FloorExtras()
    now = clock.now()
    day_start = clock.stamp(now.replace(hour=0, minute=0, second=0, microsecond=0))
    handoffs = repo.index.events(kinds=list(states.TRANSITIONS), since=day_start)
    extras.handoffs_today = len(handoffs)
    extras.handoffs = handoffs[-6:]
    for entry in inbox.entries(repo):
        if entry.item is None and "daemon" in entry.kind:
            extras.daemon_stopped = entry.text or "the daemon stopped"
    try:
        repo.config  # noqa: B018 - loading it is the check
    except HallError as exc:  # commands that need it refuse; the floor says so rather than looking normal
        extras.config_problem = exc.message
    try:
        extras.library_pending = len(library.pending(repo))
    except HallError as exc:  # e.g. an uncommitted project identity: the Library room says memory is paused
        extras.library_pending, extras.library_problem = None, exc.message
    return extras


def room_lines(
    room: rooms.Room, items: tuple[ItemView, ...], building: Building, extra: list[str], width: int, limit: int | None
) -> list[Text]:
    """What a room shows: its counts (symbol, number and word), its extra lines, then its items."""
    lines: list[Text] = []
    if room.key == rooms.OFFICE:
        count = building.waiting.count
        lines.append(Text(f"◆ {count} waiting for you" + ("  (i)" if count else ""), style="bold" if count else ""))
    if room.states:
        parts = [
            f"{states.SYMBOLS[s]} {sum(1 for v in items if v.state == s)} {rooms.STATE_WORDS[s]}" for s in room.states
        ]
        counts = "  ".join(parts)
        if len(counts) > width:  # narrow: one count a line, never a number without its word
            lines.extend(Text(part) for part in parts)
        else:
            lines.append(Text(counts))
    lines.extend(Text(line, style="dim") for line in extra)
    shown = list(items) if limit is None else list(items[:limit])
    stuck = building.stuck_ids
    for view in shown:
        line = Text(no_wrap=True, overflow="ellipsis")
        if view.id in stuck:
            line.append("⚠ ", style="bold")
        line.append(f"{states.SYMBOLS.get(view.state, '·')} {view.id} ")
        found = building.badge(view.id)
        badge = labels.badge(found) if width >= 44 else labels.short_badge(found)
        if badge and found and found[0] != "idle":
            line.append(f"{badge} ", style="bold")
        line.append(view.title or "(untitled)", style="dim" if view.terminal else "")
        lines.append(line)
    if len(items) > len(shown):
        lines.append(Text(f"+{len(items) - len(shown)} more (enter)", style="italic"))
    if not lines:
        lines.append(Text("empty", style="dim italic"))
    return lines


class RoomBox(Widget, can_focus=True):
    """One room: its name on the border, counts per state with their symbols, then its items."""

    DEFAULT_CSS = "RoomBox { height: auto; }"

    def __init__(self, room: rooms.Room) -> None:
        super().__init__(id=f"room-{room.key}", classes="room")
        self.room = room
        self.border_title = room.name
        self.items: tuple[ItemView, ...] = ()
        self.lines: list[Text] = [Text("…", style="dim")]

    def set_content(self, items: tuple[ItemView, ...], building: Building, extra: list[str]) -> None:
        self.items = items
        compact = self.has_class("-compact")
        width = max(10, (self.content_size.width or self.app.size.width // 3) - 1)
        self.lines = room_lines(self.room, items, building, extra, width, None if compact else ROOM_ITEMS)
        count = len(items)
        subtitle = ""
        if self.room.states or self.room.key in ("front_desk", "delivery"):
            subtitle = f"{count} item{'s' if count != 1 else ''}"
        flagged = sum(1 for v in items if v.id in building.stuck_ids)
        if flagged:
            subtitle = f"⚠ {flagged} stuck · {subtitle}"
        self.border_subtitle = subtitle
        self.clear_cached_dimensions()  # as tall as what it holds now
        self.refresh(layout=True)

    def on_click(self, event: events.Click) -> None:
        """A click focuses a room (Textual does that); a double click opens it."""
        if event.chain >= 2:
            self.focus()
            self.screen.action_open_room()  # type: ignore[attr-defined]

    def render(self) -> Text:
        width = max(4, self.content_size.width)
        lines = list(self.lines)
        if self.has_class("-compact"):
            count = f" · {self.border_subtitle}" if self.border_subtitle else ""
            lines.insert(0, Text(f"{self.room.name}{count}", style="bold"))
        out = Text("\n").join(line if line.cell_len <= width else line[: width - 1] + "…" for line in lines)
        out.no_wrap = True
        out.overflow = "ellipsis"
        return out


class FloorScroll(VerticalScroll, can_focus=False, inherit_bindings=False):
    """Scrolls the rooms into view; the arrows belong to the floor (room to room), not the scroller."""


class FloorScreen(HallScreen):
    """f: the building. Arrows or hjkl move between rooms; enter opens the room's items."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1, 0)", "Left", show=False, id="floor.left"),
        Binding("right,l", "move(1, 0)", "Right", show=False, id="floor.right"),
        Binding("up,k", "move(0, -1)", "Up", show=False, id="floor.up"),
        Binding("down,j", "move(0, 1)", "Down", show=False, id="floor.down"),
        Binding("enter", "open_room", "Open room", id="floor.open"),
    ]

    columns = 3

    def __init__(self) -> None:
        super().__init__()
        self.extras: FloorExtras | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with FloorScroll(id="floor-scroll"), Grid(id="floor-grid"):
            for room in rooms.ROOMS:
                yield RoomBox(room)
        yield Static("", id="watchman")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Floor plan"
        self._fit(self.app.size.width, self.app.size.height)
        self.query_one("#room-workshop", RoomBox).focus()
        super().on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    @property
    def compact(self) -> bool:
        return self.columns == 1

    def _fit(self, width: int, height: int) -> None:
        """Four rooms a row on a wide terminal, three from 80 columns, two below; a list when small."""
        small = width < WIDE_ENOUGH or height < TALL_ENOUGH
        self.columns = 1 if small else 4 if width >= 120 else 3 if width >= 80 else 2
        grid = self.query_one("#floor-grid", Grid)
        grid.styles.grid_size_columns = self.columns
        grid.set_class(small, "-compact")
        for box in self.query(RoomBox):
            box.set_class(small, "-compact")
            box.clear_cached_dimensions()
        if self.building is not None:
            self.draw(self.building)

    # -- data ------------------------------------------------------------------------------
    def load(self, repo: Repo) -> FloorExtras:
        return load_extras(repo)

    def show(self, data: FloorExtras) -> None:
        self.extras = data
        if self.building is not None:
            self.draw(self.building)

    def wants_reload(self, changed: frozenset[str]) -> bool:
        return True  # any handoff, learning or repo entry may change an extra

    def draw(self, building: Building) -> None:
        extras = self.extras
        for room in rooms.ROOMS:
            box = self.query_one(f"#room-{room.key}", RoomBox)
            box.set_content(building.rooms.get(room.key, ()), building, self._extra(room, extras))
        parts = []
        if extras is not None and extras.config_problem:
            parts.append(f"⚠ config: {extras.config_problem} (hall doctor)")
        if extras is not None and extras.daemon_stopped:
            parts.append(f"⚠ daemon stopped: {extras.daemon_stopped}")
        if building.stuck:
            shown = ", ".join(f"{s.item} quiet {s.quiet}" for s in building.stuck[:6])
            more = f" (+{len(building.stuck) - 6})" if len(building.stuck) > 6 else ""
            parts.append(f"⚠ stuck: {shown}{more}")
        text = "Watchman: " + ("  ·  ".join(parts) if parts else "✓ all quiet")
        watchman = self.query_one("#watchman", Static)
        watchman.update(Text(text, no_wrap=True, overflow="ellipsis"))
        watchman.set_class(bool(parts), "-alert")

    @staticmethod
    def _extra(room: rooms.Room, extras: FloorExtras | None) -> list[str]:
        if room.key == "front_desk":
            return ["new in the last day"]
        if room.key not in ("post_room", "library"):
            return []
        if extras is None:
            return ["…"]  # the first paint only: afterwards the last figures stay until new ones come
        if room.key == "post_room":
            out = [f"{extras.handoffs_today} handoff{'s' if extras.handoffs_today != 1 else ''} today"]
            out.extend(f"→ {e.get('item') or ''} {e.get('event')}" for e in reversed(extras.handoffs))
            return out
        if extras.library_pending is None:
            return ["⚠ memory paused · L"]
        return [f"{extras.library_pending} learning{'s' if extras.library_pending != 1 else ''} to review (L)"]

    # -- keys ------------------------------------------------------------------------------
    def _boxes(self) -> list[RoomBox]:
        return list(self.query(RoomBox))

    def focused_room(self) -> RoomBox:
        focused = self.focused
        return focused if isinstance(focused, RoomBox) else self._boxes()[0]

    def action_move(self, dx: int, dy: int) -> None:
        boxes = self._boxes()
        index = boxes.index(self.focused_room())
        if self.compact:
            target = index + (dx or dy)
        else:
            target = index + dx + dy * self.columns
            if dx and target // self.columns != index // self.columns:
                return  # h/l stay on the row
        if 0 <= target < len(boxes):
            boxes[target].focus()
            boxes[target].scroll_visible(animate=False)

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
