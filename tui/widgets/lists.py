"""OptionList and DataTable with vim keys beside the arrows (j/k, g/G).

Neither binds enter itself: the screen's enter binding (open, act, expand) then runs directly and
shows in the footer, where the widget's own hidden `enter` used to shadow it. A click on a row
still posts the widget's Selected message, which the screens handle too."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable, OptionList


class VimOptionList(OptionList, inherit_bindings=False):
    BINDINGS = [
        *(b for b in OptionList.BINDINGS if isinstance(b, Binding) and b.key != "enter"),
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g", "first", "First", show=False, id="list.first"),
        Binding("G", "last", "Last", show=False, id="list.last"),
    ]


class VimTable(DataTable, inherit_bindings=False):
    BINDINGS = [
        *(b for b in DataTable.BINDINGS if isinstance(b, Binding) and b.key != "enter"),
        Binding("j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("g", "scroll_top", "First", show=False, id="table.first"),
        Binding("G", "scroll_bottom", "Last", show=False, id="table.last"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", False)
        super().__init__(*args, **kwargs)

    def add_fixed_columns(self, *spec: tuple[str, int | None]) -> None:
        """Columns with fixed widths (one None column takes what the terminal has left).

        Fixed widths mean the header never lags behind the rows (DataTable measures auto
        widths later, on idle) and the layout does not jump as rows arrive."""
        fixed = sum(w for _, w in spec if w is not None)
        padding = 2 * self.cell_padding * len(spec) + 2
        fill = max(12, self.app.size.width - fixed - padding)
        for label, width in spec:
            self.add_column(label, width=width if width is not None else fill)
