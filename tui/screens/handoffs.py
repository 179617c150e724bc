"""The Post Room: every handoff (transition) across items, newest first."""

from __future__ import annotations

from typing import Any, ClassVar

from hallmark.core import rooms, states
from hallmark.core.repo import Repo
from hallmark.tui.widgets.lists import VimTable
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from .base import HallScreen


class HandoffsScreen(HallScreen):
    AUTO_FOCUS = "#handoffs"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_row", "Open item", id="handoffs.open"),
        Binding("escape", "app.pop_screen", "Back", id="handoffs.back"),
    ]
    items: tuple[str, ...] = ()  # the item of each row, in order

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Label("Post Room: every handoff passes here; a copy goes to Records", classes="screen-note")
        yield VimTable(id="handoffs")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Post Room"
        self.query_one(VimTable).add_fixed_columns(("when", 8), ("item", 7), ("handoff", 18), ("actor", None))
        super().on_mount()

    def load(self, repo: Repo) -> list[dict[str, Any]]:
        return list(reversed(repo.index.events(kinds=list(states.TRANSITIONS))))[:500]

    def show(self, data: list[dict[str, Any]]) -> None:
        table = self.query_one(VimTable)
        table.clear()
        self.items = tuple(str(event.get("item") or "") for event in data)
        for event in data:
            table.add_row(
                rooms.since(event.get("t", "")) + " ago",
                event.get("item") or "",
                event.get("event", ""),
                event.get("actor", ""),
                key=f"{event.get('item')}|{event.get('t')}|{event.get('event')}",
            )
        if not data:
            table.add_row("", "", "no handoffs yet", "")
        table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_row":
            return True if any(self.items) else None
        return True

    def action_open_row(self) -> None:
        row = self.query_one(VimTable).cursor_row
        if 0 <= row < len(self.items) and self.items[row]:
            self.hall.open_item(self.items[row])

    @on(VimTable.RowSelected)
    def _open(self, event: VimTable.RowSelected) -> None:
        """A click on a row (enter is the screen's binding)."""
        item = str(event.row_key.value or "").split("|")[0]
        if item and item != "None":
            self.hall.open_item(item)
