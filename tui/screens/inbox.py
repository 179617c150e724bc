"""i: Your Office. Escalations oldest first (enter acts, D dismisses), notices on a second tab."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hallmark.core import inbox, items
from hallmark.core.repo import Repo
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, TabbedContent, TabPane

from .. import rooms
from ..widgets.lists import VimTable
from .base import HallScreen
from .board import answer_question
from .modals import ReasonModal


@dataclass
class InboxData:
    entries: list[dict[str, Any]] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)


class InboxScreen(HallScreen):
    AUTO_FOCUS = "#entries"
    BINDINGS = [
        Binding("enter", "act", "Act", id="inbox.act"),
        Binding("D", "dismiss_entry", "Dismiss", id="inbox.dismiss"),
        Binding("o", "open_item", "Open item", id="inbox.open"),
        Binding("tab", "next_tab", "Notices/Escalations", id="inbox.tab"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data = InboxData()

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with TabbedContent(id="inbox-tabs"):
            with TabPane("Escalations", id="tab-escalations"):
                yield VimTable(id="entries")
            with TabPane("Notices", id="tab-notices"):
                yield VimTable(id="notices")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Inbox"
        self.query_one("#entries", VimTable).add_fixed_columns(("#", 3), ("kind", 14), ("item", 7), ("since", 5), ("what", None))
        self.query_one("#notices", VimTable).add_fixed_columns(("kind", 14), ("item", 7), ("since", 5), ("what", None))
        super().on_mount()

    def load(self, repo: Repo) -> InboxData:
        return InboxData(inbox.visible(repo), list(reversed(inbox.notices(repo))))

    def show(self, data: InboxData) -> None:
        self.data = data
        table = self.query_one("#entries", VimTable)
        row = table.cursor_row
        table.clear()
        for n, entry in enumerate(data.entries, start=1):
            table.add_row(str(n), entry["kind"], entry.get("item") or "—", rooms.since(entry.get("since", "")),
                          entry.get("text", ""), key=str(n))
        if not data.entries:
            table.add_row("", "", "", "", "✓ nothing waiting on you")
        elif row:
            table.move_cursor(row=min(row, len(data.entries) - 1))
        notices = self.query_one("#notices", VimTable)
        notices.clear()
        for note in data.notices:
            notices.add_row(note.get("kind", ""), note.get("item") or "—", rooms.since(note.get("since") or ""),
                            note.get("text", ""))
        if not data.notices:
            notices.add_row("", "", "", "no notices")
        self.query_one(TabbedContent).border_title = f"{len(data.entries)} waiting"
        if self.focused is None:
            table.focus()
        self.refresh_bindings()

    def selected(self) -> dict[str, Any] | None:
        if self.query_one(TabbedContent).active != "tab-escalations":
            return None
        table = self.query_one("#entries", VimTable)
        if not self.data.entries or table.cursor_row < 0 or table.cursor_row >= len(self.data.entries):
            return None
        return self.data.entries[table.cursor_row]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("act", "dismiss_entry"):
            return True if self.selected() else None
        if action == "open_item":
            entry = self.selected()
            return True if entry and entry.get("item") else None
        return True

    @on(DataTable.RowHighlighted)
    def _moved(self) -> None:
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#entries")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_act()

    @on(TabbedContent.TabActivated)
    def _tab(self) -> None:
        self.refresh_bindings()

    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "tab-notices" if tabs.active == "tab-escalations" else "tab-escalations"
        self.query_one("#notices" if tabs.active == "tab-notices" else "#entries", VimTable).focus()

    def action_act(self) -> None:
        """question: answer it; escalated or a hold: retry with a reason; otherwise open the item."""
        entry = self.selected()
        if entry is None:
            return
        kind = entry["kind"]
        item = entry.get("item")
        if kind == "question":
            answer_question(self, {"qid": entry["qid"], "question": entry["text"], "options": entry.get("options"),
                                   "default": entry.get("default"), "item": item})
            return
        if item and (kind == "escalated" or entry["key"].startswith("hold:")):
            def done(reason: str | None) -> None:
                if reason:
                    self.hall.core_call("retried", items.retry, item, reason=reason, item=item)

            self.app.push_screen(ReasonModal(f"Retry {item}", entry["text"] + "\n\nAllow one more round. Why?"), done)
            return
        if item:
            self.hall.open_item(item)
            return
        self.notify("  ·  ".join(entry.get("next") or []) or entry["text"], title=kind)

    def action_open_item(self) -> None:
        entry = self.selected()
        if entry and entry.get("item"):
            self.hall.open_item(entry["item"])

    def action_dismiss_entry(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        number = self.data.entries.index(entry) + 1
        self.hall.core_call("dismissed", lambda repo: {"dismissed": inbox.dismiss(repo, number)}, item=entry.get("item"))
