"""Boards: items in columns by state, and the triage keys that act on the selected item.

Everything on it comes from the app's Building, so a journal change repaints the cards in place
(only the columns whose cards changed are rebuilt). The selection is an item id, not a row: when
the selected item moves to another state, the cursor moves with it, into view. Empty columns are
hidden (`c` shows them). The triage keys live in triage_keys.py and tui/triage.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hallmark.core import rooms, states
from hallmark.core.states import ItemView
from hallmark.tui import labels
from hallmark.tui.widgets.lists import VimOptionList
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalScroll, Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from .base import HallScreen
from .filtering import FilterKeys
from .triage_keys import TRIAGE_BINDINGS, TriageKeys

if TYPE_CHECKING:
    from hallmark.core.building import Badge, Building

CARD_WIDTH = 26  # a card's text width when the column has not been measured yet
COLUMN_MIN = 30  # a column is never narrower (the board scrolls sideways instead)
COLUMN_MAX = 60


def pack(parts: list[str], width: int = CARD_WIDTH) -> list[str]:
    """Join facts with " · " into as few lines as fit the column (a fact never splits)."""
    lines: list[str] = []
    for part in (p for p in parts if p):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += f" · {part}"
        else:
            lines.append(part)
    return lines


def card(
    view: ItemView, question: bool, found: Badge | None = None, reason: str | None = None, width: int = CARD_WIDTH
) -> Text:
    """The id and title, then what it waits on (symbol and word, and why), its round, cost and age."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{states.SYMBOLS.get(view.state, '·')} ", style="bold")
    text.append(view.id, style="bold")
    text.append(f" {view.title or '(untitled)'}")
    if text.cell_len > width + 2:  # one line for the title, always (the list would wrap it)
        text.truncate(width + 2, overflow="ellipsis")
    shown = labels.badge(found)
    notes = [shown, (reason or "") if found and found[0] == "waiting" else ""]
    if not shown:
        notes = ["? question" if question else "", f"⏸ held: {view.hold}" if view.hold else ""]
    facts = [
        f"round {view.round}" if view.round else "",
        labels.cost(view.tokens, view.cost_usd),
        rooms.since(view.updated),
    ]
    strong = bool(found and found[0] in ("waiting", "done_unseen"))
    for n, line in enumerate(pack(notes + facts, width)):
        text.append(f"\n  {line}", style="bold" if strong and n == 0 else "dim")
    return text


class BoardScroll(HorizontalScroll, inherit_bindings=False):
    """Scrolls sideways to the focused column; the arrows belong to the board, not the scroller."""


class BoardColumn(Vertical):
    def __init__(self, state: str) -> None:
        super().__init__(id=f"col-{state}", classes="board-column")
        self.state = state
        self.shown: tuple[str, ...] = ()  # the cards' text as last drawn: unchanged columns are left alone

    def compose(self) -> ComposeResult:
        yield Label(rooms.state_label(self.state), classes="column-title")
        yield VimOptionList(id=f"list-{self.state}", classes="column-list")

    @property
    def options(self) -> VimOptionList:
        return self.query_one(VimOptionList)

    def ids(self) -> list[str]:
        lst = self.options
        return [str(lst.get_option_at_index(i).id) for i in range(lst.option_count)]


class BoardScreen(FilterKeys, TriageKeys, HallScreen):
    """b: columns by state; j/k within a column, h/l across; enter opens the item."""

    OWN_DATA = False
    AUTO_FOCUS = ".column-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "column(-1)", "Left", show=False, id="board.left"),
        Binding("right,l", "column(1)", "Right", show=False, id="board.right"),
        Binding("enter", "open_item", "Open", id="board.open"),
        *TRIAGE_BINDINGS,
        Binding("slash", "filter", "Filter", key_display="/", id="board.filter"),
        Binding("c", "toggle_empty", "Empty columns", id="board.columns"),
        Binding("escape", "back", "Back", show=False, id="board.back"),
    ]

    FILTER_ID = "board-filter"

    def __init__(self, room: str | None = None) -> None:
        super().__init__()
        self.room = room
        self.views: dict[str, ItemView] = {}
        self.filter_text = ""
        self.show_empty = False
        self.kept: set[str] = set()  # states whose column has been shown: it stays for the session
        self.selected_id: str | None = None  # the item the cursor is on; it follows the item

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Input(
            placeholder="filter: id, title, branch or state (enter to keep, escape to clear)",
            id="board-filter",
            classes="-hidden",
        )
        with BoardScroll(id="board"):
            for state in states.STATES:
                yield BoardColumn(state)
        yield Label("", id="board-empty")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = rooms.ROOM_BY_KEY[self.room].name if self.room else "Boards"
        self.query_one("#board-filter", Input).cursor_blink = False
        super().on_mount()

    def show_waiting(self, item_id: str) -> bool:
        """n lands on the card when the item is on this board (else the app opens its detail)."""
        return self.select_item(item_id)

    # -- drawing ---------------------------------------------------------------------------
    def room_views(self, building: Building) -> tuple[ItemView, ...]:
        return building.rooms.get(self.room, ()) if self.room else building.views

    def draw(self, building: Building) -> None:
        views = self.room_views(building)
        self.views = {v.id: v for v in views}
        needle = self.filter_text.lower()
        by_state: dict[str, list[ItemView]] = {s: [] for s in states.STATES}
        for view in views:
            if needle and needle not in f"{view.id} {view.title} {view.branch} {view.state}".lower():
                continue
            by_state.setdefault(view.state, []).append(view)
        total = 0
        for column in self.query(BoardColumn):
            found = by_state.get(column.state, [])
            total += len(found)
            if found and not needle:
                self.kept.add(column.state)
            # a column stays once shown (no filter): columns coming and going shifted the board under you
            column.display = bool(found) or self.show_empty or (column.state in self.kept and not needle)
            column.query_one(".column-title", Label).update(f"{rooms.state_label(column.state)} ({len(found)})")
            width = max(12, (column.options.content_size.width or CARD_WIDTH + 2) - 3)
            cards = [
                card(v, bool(building.open_questions(v.id)), building.badge(v.id), building.reason(v.id), width)
                for v in found
            ]
            shown = tuple(c.plain for c in cards)
            if shown != column.shown:
                column.shown = shown
                column.options.set_options([Option(c, id=v.id) for c, v in zip(cards, found, strict=True)])
        self._size_columns()
        empty = self.query_one("#board-empty", Label)
        if total == 0:
            empty.update(
                'No items here yet. Start one with  hall new --title "…"'
                if not needle
                else f"No item matches “{self.filter_text}”."
            )
        else:
            empty.update("")
        empty.set_class(total == 0, "-shown")
        self._place_cursor()

    def _size_columns(self) -> None:
        """Shown columns share the width: as many as fit at COLUMN_MIN, each at most COLUMN_MAX."""
        shown = [c for c in self.query(BoardColumn) if c.display]
        if not shown:
            return
        width = max(COLUMN_MIN, min(COLUMN_MAX, (self.app.size.width - 1) // len(shown)))
        for column in shown:
            if column.styles.width is None or column.styles.width.value != width:
                column.styles.width = width

    def on_resize(self) -> None:
        self._size_columns()

    def _place_cursor(self, *, take_focus: bool = False) -> None:
        """Put the cursor on the selected item wherever it is now, else on the first card; and
        bring it into view (a card you cannot see is never the one a key acts on)."""
        filter_field = self.query_one("#board-filter", Input)
        typing = self.focused is filter_field and not take_focus
        if self.selected_id and self._highlight(self.selected_id, focus=not typing):
            return
        for column in self.query(BoardColumn):
            if column.display and column.options.option_count:
                if not typing:
                    column.options.focus(scroll_visible=False)
                column.options.highlighted = column.options.highlighted or 0
                self.selected_id = str(column.options.get_option_at_index(column.options.highlighted or 0).id)
                self.call_after_refresh(self._keep_in_view, column)
                return
        self.selected_id = None

    def _highlight(self, item_id: str, *, focus: bool = True) -> bool:
        for column in self.query(BoardColumn):
            if not column.display:
                continue
            try:
                index = column.options.get_option_index(item_id)
            except Exception:  # noqa: BLE001 - OptionDoesNotExist: not in this column
                continue
            if focus and self.focused is not column.options:
                column.options.focus(scroll_visible=False)
            if column.options.highlighted != index:
                column.options.highlighted = index
            self.call_after_refresh(self._keep_in_view, column)
            return True
        return False

    def _keep_in_view(self, column: BoardColumn, tries: int = 3) -> None:
        """Scroll the column into view once the layout has settled: columns that empty or fill
        change the layout in the same frame, so look again until it holds still. The column's
        place comes from the scroller's own layout (its virtual region), not from the last frame."""
        scroller = self.query_one(BoardScroll)
        if not column.display or not column.is_mounted:
            return
        place = column.virtual_region
        width = scroller.scrollable_content_region.width
        left = scroller.scroll_x
        if place.x < left or place.right > left + width:
            target = place.x if place.width >= width or place.x < left else place.right - width
            scroller.scroll_to(x=max(0, target), animate=False, immediate=True)
        if tries > 1:
            self.call_after_refresh(self._keep_in_view, column, tries - 1)

    # -- selection -------------------------------------------------------------------------
    def current_column(self) -> BoardColumn | None:
        focused = self.focused
        if isinstance(focused, VimOptionList) and isinstance(focused.parent, BoardColumn):
            return focused.parent
        return None

    def selected(self) -> ItemView | None:
        """The card the cursor is on, as drawn (the highlighted option of the focused column)."""
        column = self.current_column()
        if column is not None:
            option = column.options.highlighted_option
            if option is not None and option.id:
                self.selected_id = str(option.id)
        if self.selected_id is None:
            return None
        return self.views.get(self.selected_id)

    def select_item(self, item_id: str) -> bool:
        if item_id not in self.views:
            return False
        self.selected_id = item_id
        if not self._highlight(item_id):
            return False
        self.refresh_bindings()
        return True

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.has_focus and event.option.id:
            self.selected_id = str(event.option.id)
        self.refresh_bindings()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.selected_id = str(event.option.id)
            self.hall.open_item(str(event.option.id))

    def on_descendant_focus(self) -> None:
        column = self.current_column()
        if column is not None:
            option = column.options.highlighted_option
            if option is not None and option.id:
                self.selected_id = str(option.id)
        self.refresh_bindings()

    def action_column(self, step: int) -> None:
        columns = [c for c in self.query(BoardColumn) if c.display]
        current = self.current_column()
        index = columns.index(current) if current in columns else 0
        target = index + step
        while 0 <= target < len(columns):
            if columns[target].options.option_count:
                lst = columns[target].options
                lst.focus(scroll_visible=False)  # Textual's own scroll would animate to a stale place
                if lst.highlighted is None:
                    lst.highlighted = 0
                self._keep_in_view(columns[target])
                return
            target += step

    def action_toggle_empty(self) -> None:
        self.show_empty = not self.show_empty
        self.notify("Empty columns shown." if self.show_empty else "Empty columns hidden.", timeout=2)
        if self.building is not None:
            self.draw(self.building)

    def filter_done(self) -> None:
        self._place_cursor(take_focus=True)

    def action_back(self) -> None:
        if self.clear_filter():
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
