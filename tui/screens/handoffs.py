"""The Post Room: every handoff (transition) across items, newest first."""

from __future__ import annotations

from typing import Any

from hallmark.core import states
from hallmark.core.repo import Repo
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Label

from .. import rooms
from ..widgets.lists import VimTable
from .base import HallScreen


class HandoffsScreen(HallScreen):
    AUTO_FOCUS = "#handoffs"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="handoffs.back")]

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
        for event in data:
            table.add_row(rooms.since(event.get("t", "")) + " ago", event.get("item") or "", event.get("event", ""),
                          event.get("actor", ""), key=f"{event.get('item')}|{event.get('t')}|{event.get('event')}")
        if not data:
            table.add_row("", "", "no handoffs yet", "")
        table.focus()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        item = str(event.row_key.value or "").split("|")[0]
        if item and item != "None":
            self.hall.open_item(item)
