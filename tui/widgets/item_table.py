"""A dense, sortable table of items on the Line API: only the rows on screen are drawn, so a
thousand items scroll and sort without a widget (or a DataTable cell dict) per row.

The cursor is an item id: rows can be replaced, filtered or re-sorted and the cursor stays on the
same item, scrolled into view. The header row stays put while the rows scroll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .strips import text_strip


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int | None  # None: this column takes the width left over
    sort_key: Callable[[Any], Any] | None = None  # from the row's value (default: the text)
    narrow: bool = True  # shown on a narrow table too (else only from WIDE_ENOUGH columns)


@dataclass(frozen=True)
class Row:
    item: str
    cells: tuple[Text, ...]
    values: tuple[Any, ...]  # what each column sorts by
    strong: bool = False  # waits for you: drawn bold


WIDE_ENOUGH = 90  # a narrower table shows only its `narrow` columns (sorting by the others still works)


class ItemTable(ScrollView, can_focus=True, inherit_bindings=False):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"item-table--header", "item-table--cursor", "item-table--sorted"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "move(1)", "Down", show=False, id="table.down"),
        Binding("up,k", "move(-1)", "Up", show=False, id="table.up"),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False, id="table.page_down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="table.page_up"),
        Binding("home,g", "first", "First", show=False, id="table.first"),
        Binding("end,G", "last", "Last", show=False, id="table.last"),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)

    @dataclass
    class Highlighted(Message):
        table: ItemTable
        item: str | None

    @dataclass
    class Chosen(Message):
        table: ItemTable
        item: str

    def __init__(self, columns: Sequence[Column], *, id: str | None = None, sort_column: int = 0) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.rows: list[Row] = []
        self.sort_column = sort_column
        self.sort_reverse = False
        self._index: dict[str, int] = {}
        self._widths: list[int] = []
        self._widths_for = -1  # the content width _widths were laid out for
        self._wanted: str | None = None  # the item the cursor stays on

    # -- data ----------------------------------------------------------------------------------
    def set_rows(self, rows: list[Row]) -> None:
        """Replace the rows (already filtered); they are sorted here. The cursor keeps its item."""
        keep = self._wanted or self.cursor_item
        self.rows = self._sorted(rows)
        self._index = {row.item: n for n, row in enumerate(self.rows)}
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        if keep in self._index:
            self._move_to(self._index[keep], announce=False)
        else:
            self._move_to(min(self.cursor, max(0, len(self.rows) - 1)), announce=True)
        self.refresh()

    def _sorted(self, rows: list[Row]) -> list[Row]:
        column = self.columns[self.sort_column]
        key = column.sort_key or (lambda value: value)
        return sorted(rows, key=lambda row: (key(row.values[self.sort_column]), row.item), reverse=self.sort_reverse)

    def sort_by(self, index: int) -> None:
        """Sort by column `index`; asking for the same column again reverses the order."""
        if not 0 <= index < len(self.columns):
            return
        if index == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = index, False
        self.set_rows(list(self.rows))

    @property
    def cursor_item(self) -> str | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor].item
        return None

    def select(self, item: str) -> bool:
        if item not in self._index:
            return False
        self._move_to(self._index[item], announce=True)
        return True

    # -- cursor --------------------------------------------------------------------------------
    def _move_to(self, index: int, *, announce: bool) -> None:
        before = self.cursor_item
        self.cursor = max(0, min(index, len(self.rows) - 1)) if self.rows else 0
        self._wanted = self.cursor_item
        self._scroll_to_cursor()
        self.refresh()
        if announce or self.cursor_item != before:
            self.post_message(self.Highlighted(self, self.cursor_item))

    def _scroll_to_cursor(self) -> None:
        height = max(1, self.scrollable_content_region.height - 1)  # the header takes a line
        if self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= self.scroll_y + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, force=True)

    def action_move(self, step: int) -> None:
        self._move_to(self.cursor + step, announce=False)

    def action_page(self, step: int) -> None:
        self._move_to(self.cursor + step * max(1, self.scrollable_content_region.height - 2), announce=False)

    def action_first(self) -> None:
        self._move_to(0, announce=False)

    def action_last(self) -> None:
        self._move_to(len(self.rows) - 1, announce=False)

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            index = self._column_at(event.x)
            if index is not None:
                self.sort_by(index)
            return
        row = event.y - 1 + int(self.scroll_y)
        if 0 <= row < len(self.rows):
            self._move_to(row, announce=False)
            if event.chain >= 2:
                self.post_message(self.Chosen(self, self.rows[row].item))

    def _column_at(self, x: int) -> int | None:
        start = 0
        for n, width in enumerate(self._widths):
            if not width:
                continue
            if start <= x < start + width + 1:
                return n
            start += width + 1
        return None

    # -- drawing -------------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self._widths = []
        self.virtual_size = Size(event.size.width, len(self.rows) + 1)

    def widths(self) -> list[int]:
        """Each column's width; 0 for a column a narrow table leaves out."""
        total = self.scrollable_content_region.width or self.size.width
        if not self._widths or total != self._widths_for:  # a scrollbar that comes or goes changes it
            self._widths_for = total
            shown = [c.narrow or total >= WIDE_ENOUGH for c in self.columns]
            fixed = sum(c.width for c, on in zip(self.columns, shown, strict=True) if on and c.width is not None)
            left = max(8, total - fixed - sum(shown))
            self._widths = [
                (c.width if c.width is not None else left) if on else 0
                for c, on in zip(self.columns, shown, strict=True)
            ]
        return self._widths

    def header_text(self) -> Text:
        text = Text(no_wrap=True)
        for n, (column, width) in enumerate(zip(self.columns, self.widths(), strict=True)):
            if not width:
                continue
            label = f"{n + 1} {column.title}"
            if n == self.sort_column:
                label += " ▼" if self.sort_reverse else " ▲"
            text.append(
                label[:width].ljust(width) + " ",
                self.get_component_rich_style("item-table--sorted") if n == self.sort_column else "",
            )
        return text

    def row_text(self, row: Row) -> Text:
        text = Text(no_wrap=True)
        for cell, width in zip(row.cells, self.widths(), strict=True):
            if not width:
                continue
            piece = cell.copy()
            if piece.cell_len > width:
                piece.truncate(width - 1)
                piece.append("…")
            piece.pad_right(width - piece.cell_len)
            text.append_text(piece)
            text.append(" ")
        if row.strong:
            text.stylize("bold")
        return text

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            text = self.header_text()
            text.stylize(self.get_component_rich_style("item-table--header"))
        else:
            index = y - 1 + int(self.scroll_y)
            if index >= len(self.rows):
                return Strip.blank(width, self.rich_style)
            text = self.row_text(self.rows[index])
            if index == self.cursor:
                text.stylize(self.get_component_rich_style("item-table--cursor"))
        text.truncate(width, pad=True)
        return text_strip(text, self.app.console, self.rich_style, width=width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()
