"""v: the triage list. Every item in one dense table (id, state, why it waits, age, round, cost,
title), sortable by any column (1-7; the same digit again reverses), filtered with `/`, with the
selected item's detail beside it and the board's triage keys acting in place.

Rows come from the app's Building; the table draws only the rows on screen, so a thousand items
stay smooth. The detail pane shows what the Building knows at once and the item's latest journal
lines and open findings a moment later (a worker, started when the cursor rests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from hallmark.core import items, rooms, states
from hallmark.core.errors import HallError
from hallmark.core.states import ItemView
from hallmark.tui import labels
from hallmark.tui.widgets.item_table import Column, ItemTable, Row
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from .base import HallScreen
from .filtering import FilterKeys
from .triage_keys import TRIAGE_BINDINGS, TriageKeys

if TYPE_CHECKING:
    from hallmark.core.building import Building
    from hallmark.core.loop.findings import Finding

WAITING_FIRST = 2  # the default sort: what waits for you first (the "waits for" column)
STATE_ORDER = {state: n for n, state in enumerate(states.STATES)}
NARROW = 110  # below this many columns the detail pane goes under the table
DETAIL_DELAY_S = 0.12  # the cursor rests this long before the detail's journal is read


def _id_number(item_id: str) -> int:
    try:
        return int(item_id.split("-", 1)[1])
    except (IndexError, ValueError):
        return 0


COLUMNS = (
    Column("id", "id", 7, lambda v: _id_number(v)),
    Column("state", "state", 14, lambda v: STATE_ORDER.get(v, 99)),
    Column("why", "waits for", 18),  # waiting for you first, then the loop's, then nothing
    Column("age", "age", 6, lambda v: -(v or 0.0), narrow=False),
    Column("round", "rnd", 4, narrow=False),
    Column("cost", "cost", 16, narrow=False),
    Column("title", "title", None, lambda v: v.lower()),
)


def row_for(view: ItemView, building: Building) -> Row:
    from hallmark.core import clock

    badge = building.badge(view.id)
    reason = building.reason(view.id)
    why = f"◆ {reason}" if reason else (labels.badge(badge) if badge and badge[0] not in ("idle", "waiting") else "")
    try:
        updated = clock.parse_time(view.updated).timestamp() if view.updated else 0.0
    except ValueError:
        updated = 0.0
    stuck = "⚠ " if view.id in building.stuck_ids else ""
    cells = (
        Text(view.id),
        Text(rooms.state_label(view.state)),
        Text(stuck + why),
        Text(rooms.since(view.updated)),
        Text(str(view.round) if view.round else "·"),
        Text(labels.cost(view.tokens, view.cost_usd)),
        Text(view.title or "(untitled)", style="dim" if view.terminal else ""),
    )
    rank = 0 if reason else (1 if why else 2)
    values = (view.id, view.state, (rank, reason or why), updated, view.round, view.cost_usd, view.title or "")
    return Row(view.id, cells, values, strong=bool(reason))


@dataclass
class DetailLoaded(Message):
    item: str
    events: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str = ""


def detail_text(view: ItemView, building: Building, loaded: DetailLoaded | None) -> Text:
    """The selected item at a glance: state and why it waits, its question, facts, the latest
    journal lines and the open findings."""
    text = Text()
    text.append(f"{view.id}  {view.title or '(untitled)'}\n", style="bold")
    text.append(rooms.state_label(view.state))
    badge = building.badge(view.id)
    if badge:
        text.append(f"   {labels.badge(badge, building.reason(view.id) or None)}", style="bold")
    text.append("\n")
    for question in building.open_questions(view.id):
        text.append(f"\n? {question.get('qid')}: {question.get('question')}\n", style="bold")
        for n, option in enumerate(question.get("options") or []):
            text.append(f"   {chr(ord('a') + n)}) {option}\n")
        text.append("   a: answer\n", style="dim")
    if view.hold:
        text.append(f"\n⏸ held ({view.hold}): {view.hold_reason}\n", style="bold")
    facts = [
        ("round", str(view.round)),
        ("cost", labels.cost(view.tokens, view.cost_usd)),
        ("branch", view.branch or "—"),
        ("updated", rooms.since(view.updated) + " ago" if view.updated else "—"),
    ]
    if view.pr:
        facts.append(("PR", view.pr))
    if view.summary:
        facts.append(("summary", view.summary))
    text.append("\n")
    for key, value in facts:
        text.append(f"{key}: ", style="dim")
        text.append(f"{value}\n")
    if loaded is None or loaded.item != view.id:
        text.append("\njournal …\n", style="dim")
        return text
    if loaded.error:
        text.append(f"\n{loaded.error}\n", style="dim")
        return text
    from .item import event_summary

    open_findings = [f for f in loaded.findings if f.status == "open"]
    if open_findings:
        text.append(f"\nopen findings ({len(open_findings)})\n", style="bold")
        for finding in open_findings[:3]:
            where = f"{finding.file}:{finding.line}" if finding.line else finding.file
            text.append(f"  {finding.id} {finding.severity} {where}\n")
            if finding.title:
                text.append(f"    {finding.title}\n", style="dim")
    text.append("\nlatest\n", style="bold")
    for event in reversed(loaded.events[-6:]):
        text.append(f"  {rooms.since(event.get('t', '')):>4} ", style="dim")
        text.append(f"{event.get('event', '')} ")
        text.append(event_summary(event, width=60) + "\n", style="dim")
    return text


class ItemListScreen(FilterKeys, TriageKeys, HallScreen):
    """v: every item, sortable and filterable, with a detail pane and the triage keys."""

    OWN_DATA = False
    AUTO_FOCUS = "#item-table"
    FILTER_ID = "list-filter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_item", "Open", id="list.open"),
        *TRIAGE_BINDINGS,
        Binding("slash", "filter", "Filter", key_display="/", id="list.filter"),
        Binding("c", "toggle_closed", "Closed", id="list.closed"),
        *(
            Binding(str(n + 1), f"sort({n})", f"Sort by {c.title}", show=False, id=f"list.sort_{c.key}")
            for n, c in enumerate(COLUMNS)
        ),
        Binding("escape", "back", "Back", show=False, id="list.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.views: dict[str, ItemView] = {}
        self.filter_text = ""
        self.loaded_detail: DetailLoaded | None = None
        self.show_closed = False  # closed and dropped items are hidden until c shows them

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Input(
            placeholder="filter: id, title, state or why (enter to keep, escape to clear)",
            id="list-filter",
            classes="-hidden",
        )
        with Horizontal(id="list-body"):
            yield ItemTable(COLUMNS, id="item-table", sort_column=WAITING_FIRST)
            with VerticalScroll(id="list-detail"):
                yield Static("", id="list-detail-text")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Triage list · 1-7 sort · / filter"
        self.query_one("#list-filter", Input).cursor_blink = False
        self._fit(self.app.size.width)
        super().on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        self.query_one("#list-body").set_class(width < NARROW, "-narrow")

    @property
    def table(self) -> ItemTable:
        return self.query_one(ItemTable)

    # -- drawing ---------------------------------------------------------------------------
    def draw(self, building: Building) -> None:
        self.views = dict(building.by_id)
        needle = self.filter_text.lower()
        rows = []
        hidden = 0
        for view in building.views:
            if view.terminal and not self.show_closed:
                hidden += 1
                continue
            row = row_for(view, building)
            if needle and needle not in " ".join(c.plain for c in row.cells).lower() + f" {view.branch}".lower():
                continue
            rows.append(row)
        self.table.set_rows(rows)
        closed = f"{hidden} closed hidden (c)" if hidden else ("closed shown (c hides)" if self.show_closed else "")
        parts = [f"{len(rows)} of {len(building.views)} items", closed, "1-7 sort · / filter"]
        self.sub_title = "Triage list · " + " · ".join(p for p in parts if p)
        self._show_detail()

    def selected(self) -> ItemView | None:
        item = self.table.cursor_item
        return self.views.get(item) if item else None

    def show_waiting(self, item_id: str) -> bool:
        return self.table.select(item_id)

    def select_item(self, item_id: str) -> bool:
        return self.table.select(item_id)

    @on(ItemTable.Highlighted)
    def _moved(self, event: ItemTable.Highlighted) -> None:
        self._show_detail()
        self.refresh_bindings()
        if event.item:
            self.set_timer(DETAIL_DELAY_S, lambda item=event.item: self._load_detail_if_still(item))

    @on(ItemTable.Chosen)
    def _chosen(self, event: ItemTable.Chosen) -> None:
        self.hall.open_item(event.item)

    def _show_detail(self) -> None:
        view = self.selected()
        box = self.query_one("#list-detail-text", Static)
        if view is None or self.building is None:
            box.update(
                Text("No item." if not self.filter_text else f"No item matches “{self.filter_text}”.", style="dim")
            )
            return
        box.update(detail_text(view, self.building, self.loaded_detail))

    def _load_detail_if_still(self, item: str) -> None:
        if self.table.cursor_item == item and (self.loaded_detail is None or self.loaded_detail.item != item):
            self._load_detail(item)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _load_detail(self, item: str) -> None:
        from hallmark.core.loop.findings import list_findings

        try:
            with self.hall.fresh_repo() as repo:
                events = items.item_events(repo, item)[-12:]
                findings = list_findings(repo, item)
        except (HallError, OSError) as exc:
            self.post_message(DetailLoaded(item, error=str(getattr(exc, "message", exc))))
            return
        self.post_message(DetailLoaded(item, events, findings))

    @on(DetailLoaded)
    def _detail_loaded(self, message: DetailLoaded) -> None:
        self.loaded_detail = message
        self._show_detail()

    def building_changed(self, building: Building, changed: frozenset[str] | None) -> None:
        super().building_changed(building, changed)
        item = self.table.cursor_item if self.is_mounted else None
        if item and (changed is None or item in changed) and self.loaded_detail and self.loaded_detail.item == item:
            self._load_detail(item)

    # -- keys ------------------------------------------------------------------------------
    def action_sort(self, index: int) -> None:
        self.table.sort_by(index)

    def action_toggle_closed(self) -> None:
        """c: show the closed and dropped items too, or hide them again."""
        self.show_closed = not self.show_closed
        if self.building is not None:
            self.draw(self.building)

    def filter_done(self) -> None:
        self.table.focus()

    def action_back(self) -> None:
        if self.clear_filter():
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
