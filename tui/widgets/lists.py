"""A vim-keyed OptionList, and VimTable: the app's tables on the Line API.

VimTable keeps the small part of DataTable's interface the screens use (fixed columns, add_row,
clear, cursor_row, move_cursor, RowHighlighted and RowSelected) but draws each visible row as one
line of text: no per-cell renders, nothing re-rendered but what is on screen. DataTable re-rendered
every visible cell whenever its screen came back to the front (its caches go with every restyle),
which made switching to a screen with a full table cost a frame of its own.

Neither widget binds enter itself: the screen's enter binding (open, act, expand) runs directly and
shows in the footer. A click on a row still posts RowSelected (a double click) or moves the cursor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import OptionList

from .strips import text_strip


class VimOptionList(OptionList, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        *(b for b in OptionList.BINDINGS if isinstance(b, Binding) and b.key != "enter"),
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g", "first", "First", show=False, id="list.first"),
        Binding("G", "last", "Last", show=False, id="list.last"),
    ]


@dataclass(frozen=True)
class RowKey:
    value: str | None


@dataclass
class _Row:
    cells: tuple[Any, ...]
    key: RowKey
    height: int = 1
    lines: list[Text] = field(default_factory=list)  # drawn on demand, dropped when widths change


@dataclass
class _RowMessage(Message):
    table: VimTable
    cursor_row: int
    row_key: RowKey

    @property
    def control(self) -> VimTable:
        return self.table


class VimTable(ScrollView, can_focus=True, inherit_bindings=False):
    """A table of text rows with a header line and a row cursor; j/k, g/G beside the arrows."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"vim-table--header", "vim-table--cursor"}
    DEFAULT_CSS = """
    VimTable { height: 1fr; }
    VimTable > .vim-table--header { background: $panel; text-style: bold; }
    VimTable > .vim-table--cursor { background: $primary 25%; }
    VimTable:focus > .vim-table--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("home,g", "scroll_top", "First", show=False, id="table.first"),
        Binding("end,G", "scroll_bottom", "Last", show=False, id="table.last"),
    ]

    cursor_row: reactive[int] = reactive(0, repaint=False, always_update=True)

    class RowHighlighted(_RowMessage):
        """The cursor moved to a row."""

    class RowSelected(_RowMessage):
        """A row was chosen (a double click; enter is the screen's)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.spec: list[tuple[str, int | None]] = []
        self.rows: list[_Row] = []
        self._starts: list[int] = []  # the first line of each row
        self._widths: list[int] = []

    # -- DataTable's interface, the part the screens use -------------------------------------------
    def add_fixed_columns(self, *spec: tuple[str, int | None]) -> None:
        """Columns with fixed widths; one None column takes what the terminal has left."""
        self.spec = list(spec)
        self._widths = []

    def add_column(self, label: str, width: int | None = None) -> None:
        self.spec.append((label, width))
        self._widths = []

    def clear(self) -> None:
        self.rows = []
        self._starts = []
        self._resize()

    def add_row(self, *cells: Any, key: str | None = None, height: int = 1) -> RowKey:
        row = _Row(tuple(cells), RowKey(key), max(1, height))
        self._starts.append(self._starts[-1] + self.rows[-1].height if self.rows else 0)
        self.rows.append(row)
        self._resize()
        return row.key

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def get_row_at(self, index: int) -> list[Any]:
        return list(self.rows[index].cells)

    def move_cursor(self, *, row: int | None = None, **_: Any) -> None:
        if row is not None:
            self._move_to(row)

    def column_widths(self) -> list[int]:
        if not self._widths:
            total = self.scrollable_content_region.width or self.size.width or self.app.size.width
            fixed = sum(w for _, w in self.spec if w is not None) + 2 * len(self.spec)
            fill = max(12, total - fixed)
            self._widths = [w if w is not None else fill for _, w in self.spec]
        return self._widths

    # -- cursor ----------------------------------------------------------------------------------
    def _move_to(self, row: int, *, announce: bool = True) -> None:
        before = self.cursor_row
        self.cursor_row = max(0, min(row, len(self.rows) - 1)) if self.rows else 0
        self._scroll_to_cursor()
        self.refresh()
        if announce and (self.cursor_row != before or not self.rows):
            key = self.rows[self.cursor_row].key if self.rows else RowKey(None)
            self.post_message(self.RowHighlighted(self, self.cursor_row, key))

    def _scroll_to_cursor(self) -> None:
        if not self.rows:
            return
        height = max(1, self.scrollable_content_region.height - 1)
        top = self._starts[self.cursor_row]
        bottom = top + self.rows[self.cursor_row].height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, force=True)
        elif bottom > self.scroll_y + height:
            self.scroll_to(y=bottom - height, animate=False, force=True)

    def action_cursor_down(self) -> None:
        self._move_to(self.cursor_row + 1)

    def action_cursor_up(self) -> None:
        self._move_to(self.cursor_row - 1)

    def action_page_down(self) -> None:
        self._move_to(self.cursor_row + max(1, self.scrollable_content_region.height - 2))

    def action_page_up(self) -> None:
        self._move_to(self.cursor_row - max(1, self.scrollable_content_region.height - 2))

    def action_scroll_top(self) -> None:
        self._move_to(0)

    def action_scroll_bottom(self) -> None:
        self._move_to(len(self.rows) - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            return
        line = event.y - 1 + int(self.scroll_y)
        for index, start in enumerate(self._starts):
            if start <= line < start + self.rows[index].height:
                self._move_to(index)
                if event.chain >= 2:
                    self.post_message(self.RowSelected(self, index, self.rows[index].key))
                return

    # -- drawing -------------------------------------------------------------------------------
    def _resize(self) -> None:
        lines = (self._starts[-1] + self.rows[-1].height) if self.rows else 0
        self.virtual_size = Size(self.size.width, lines + 1)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._widths = []
        for row in self.rows:
            row.lines = []
        self._resize()

    def _row_lines(self, row: _Row) -> list[Text]:
        if row.lines:
            return row.lines
        widths = self.column_widths()
        columns: list[list[Text]] = []
        for cell, width in zip(row.cells, widths, strict=False):
            text = cell.copy() if isinstance(cell, Text) else Text(str(cell))
            parts = text.split("\n") if "\n" in text.plain else [text]
            columns.append([self._fit(part, width) for part in parts])
        lines = []
        for n in range(row.height):
            line = Text(no_wrap=True)
            for column, width in zip(columns, widths, strict=False):
                line.append_text(column[n] if n < len(column) else Text(" " * width))
                line.append("  ")
            lines.append(line)
        row.lines = lines
        return lines

    @staticmethod
    def _fit(text: Text, width: int) -> Text:
        if text.cell_len > width:
            text.truncate(max(1, width - 1))
            text.append("…")
        text.pad_right(width - text.cell_len)
        return text

    def header_text(self) -> Text:
        line = Text(no_wrap=True)
        for (label, _), width in zip(self.spec, self.column_widths(), strict=False):
            line.append_text(self._fit(Text(label), width))
            line.append("  ")
        return line

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            text = self.header_text()
            text.stylize(self.get_component_rich_style("vim-table--header"))
        else:
            line = y - 1 + int(self.scroll_y)
            found = self._text_at(line)
            if found is None:
                return Strip.blank(width, self.rich_style)
            text = found
        text.truncate(width, pad=True)
        return text_strip(text, self.app.console, self.rich_style, width=width)

    def _text_at(self, line: int) -> Text | None:
        import bisect

        index = bisect.bisect_right(self._starts, line) - 1
        if not 0 <= index < len(self.rows):
            return None
        row = self.rows[index]
        offset = line - self._starts[index]
        if offset >= row.height:
            return None
        text = self._row_lines(row)[offset].copy()
        if index == self.cursor_row:
            text.stylize(self.get_component_rich_style("vim-table--cursor"))
        return text

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()
