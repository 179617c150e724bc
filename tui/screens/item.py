"""Item detail: the header facts, the journal as a timeline, findings, and runs."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from hallmark.core import clock, items, rooms, runs, waiting
from hallmark.core.config import parse_tokens
from hallmark.core.loop.findings import Finding, list_findings
from hallmark.core.repo import Repo
from hallmark.core.run_results import CostBreakdown, RunSummary
from hallmark.core.states import ItemView
from hallmark.tui import labels
from hallmark.tui.widgets.lists import VimTable
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static, TabbedContent, TabPane

from .base import HallScreen
from .triage_keys import TRIAGE_BINDINGS, TriageKeys

ENVELOPE = {"v", "t", "actor", "event", "item", "cap"}  # cap: a person decision's signature (core/person_cap.py)


def event_summary(event: dict[str, Any], width: int = 90, root: Path | None = None) -> str:
    """The fields that say what happened, in one line (the full event expands on enter).
    Paths are shown relative to the main checkout, as `../repo-H-0001`."""
    fields = {k: v for k, v in event.items() if k not in ENVELOPE}
    if root is not None:
        for key in ("worktree", "cwd"):
            value = fields.get(key)
            if isinstance(value, str) and os.path.isabs(value):
                fields[key] = os.path.relpath(value, root)
    preferred = (
        "reason",
        "summary",
        "question",
        "answer",
        "title",
        "sha",
        "round",
        "run",
        "role",
        "verdict",
        "kind",
        "text",
        "exit_code",
        "cost_usd",
    )
    parts = []
    for key in preferred:
        if key in fields and fields[key] not in (None, "", [], {}):
            value = fields.pop(key)
            if key == "sha" and isinstance(value, str):
                value = value[:7]
            parts.append(f"{key}={value}")
    for key, value in fields.items():
        if value in (None, "", [], {}):
            continue
        parts.append(f"{key}={json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value}")
    line = "  ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass
class ItemData:
    view: ItemView
    events: list[dict[str, Any]]
    findings: list[Finding]
    runs: list[RunSummary]
    budget_tokens: int | None
    questions: list[dict[str, Any]] = field(default_factory=list)
    costs: CostBreakdown | None = None  # core.waiting.cost_breakdown: per run, per round, total


def when(moment: str) -> str:
    """A journal time people can read: "09:42 · 2h ago" (UTC, the journal's clock)."""
    if not moment:
        return ""
    try:
        clock_time = clock.parse_time(moment).strftime("%H:%M")
    except ValueError:
        return moment
    return f"{clock_time} · {rooms.since(moment)} ago"


class ItemScreen(TriageKeys, HallScreen):
    AUTO_FOCUS = "#journal"
    item_screen = True
    BINDINGS: ClassVar[list[BindingType]] = [
        *TRIAGE_BINDINGS,
        Binding("enter", "expand", "Expand / open", id="item.enter"),
        Binding("tab", "next_tab", "Next tab", id="item.tab"),
        Binding("escape", "app.pop_screen", "Back", id="item.back"),
    ]

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id
        self.data: ItemData | None = None
        self.expanded: int | None = None
        self._seen_marked = False

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Static("", id="item-head")
        with TabbedContent(id="item-tabs"):
            with TabPane("Journal", id="tab-journal"):
                yield VimTable(id="journal")
                yield Static("", id="event-detail", classes="-hidden")
            with TabPane("Findings", id="tab-findings"):
                yield VimTable(id="findings")
            with TabPane("Runs", id="tab-runs"):
                yield VimTable(id="runs")
            with TabPane("Cost", id="tab-cost"):
                yield VimTable(id="cost")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = self.item_id
        self.query_one("#journal", VimTable).add_fixed_columns(
            ("when (newest first)", 20), ("actor", 16), ("event", 20), ("summary", None)
        )
        self.query_one("#findings", VimTable).add_fixed_columns(
            ("id", 5), ("lens", 12), ("severity", 8), ("file:line", None), ("status", 8), ("round", 5)
        )
        self.query_one("#runs", VimTable).add_fixed_columns(
            ("run", 36), ("role", 9), ("duration", 8), ("tokens", 7), ("cost $", 7), ("outcome", None)
        )
        self.query_one("#cost", VimTable).add_fixed_columns(
            ("round / run", 24), ("role", 9), ("tokens", 7), ("cost $", 7), ("model", None)
        )
        super().on_mount()

    def wants_reload(self, changed: frozenset[str]) -> bool:
        return self.item_id in changed

    # -- data ------------------------------------------------------------------------------
    def load(self, repo: Repo) -> ItemData:
        view = items.fold_item(repo, self.item_id)
        events = items.item_events(repo, self.item_id)
        findings = list_findings(repo, self.item_id)
        run_rows = list(reversed(runs.rows(repo.paths, self.item_id)))
        try:
            budget = parse_tokens(repo.config.budget.per_item)
        except Exception:  # noqa: BLE001 - a bad config shows as "no budget" here; `hall doctor` names it
            budget = None
        questions = [q for q in repo.index.questions(open_only=True) if q["item"] == self.item_id]
        if not self._seen_marked:  # opening it is looking at it: once, not on every reload
            self._seen_marked = True
            waiting.mark_seen(repo, self.item_id)
        costs = waiting.cost_breakdown(repo, self.item_id)
        return ItemData(view, events, findings, run_rows, budget, questions, costs)

    def draw(self, building: Any) -> None:
        if self.data is not None:
            self._show_head(self.data)

    def show(self, data: ItemData) -> None:
        if self.data is None:
            self.hall.refresh_building(frozenset({self.item_id}))  # the seen mark changes its badge
        self.data = data
        self._show_head(data)
        self._show_tables(data)

    def _show_head(self, data: ItemData) -> None:
        view = data.view
        head = Text()
        head.append(rooms.state_label(view.state), style="bold")
        building = self.building
        found = building.badge(view.id) if building else None
        if found and building:
            head.append(f"   {labels.badge(found, building.reason(view.id) or None)}", style="bold")
        head.append(f"   {view.id}  {view.title}\n", style="bold")
        worktree = view.worktree
        if worktree and self.hall.repo is not None:
            with contextlib.suppress(ValueError):
                worktree = os.path.relpath(worktree, self.hall.repo.root)
        used = f"{labels.tokens(view.tokens)}" + (
            f" of {labels.tokens(data.budget_tokens)}" if data.budget_tokens else ""
        )
        facts = [
            ("branch", view.branch or "—"),
            ("worktree", worktree or "—"),
            ("round", str(view.round)),
            ("budget used", f"{used} tokens, ${view.cost_usd:.2f}"),
        ]
        if view.hold:
            facts.append(("held", f"⏸ {view.hold} {view.hold_reason}".strip()))
        if view.open_questions:
            facts.append(("questions", ", ".join(view.open_questions)))
        if view.pr:
            facts.append(("PR", view.pr))
        head.append("   ".join(f"{k}: {v}" for k, v in facts), style="")
        self.query_one("#item-head", Static).update(head)

    def _show_tables(self, data: ItemData) -> None:
        journal = self.query_one("#journal", VimTable)
        row = journal.cursor_row
        journal.clear()
        for n, event in reversed(list(enumerate(data.events))):  # newest first: why it waits is on top
            journal.add_row(
                when(event.get("t", "")),
                event.get("actor", ""),
                event.get("event", ""),
                event_summary(event, root=self.repo.root),
                key=str(n),
            )
        if row and data.events:
            journal.move_cursor(row=min(row, len(data.events) - 1))
        self._show_expanded()

        findings = self.query_one("#findings", VimTable)
        findings.clear()
        if not data.findings:
            findings.add_row("", "", "", "no findings", "", "")
        for f in data.findings:
            where = f"{f.file}:{f.line}" if f.line else str(f.file)
            findings.add_row(f.id, str(f.lens), str(f.severity), where, f.status, str(f.round))

        run_table = self.query_one("#runs", VimTable)
        run_table.clear()
        for n, run in enumerate(data.runs):
            duration = run.duration_ms
            outcome = {"live": "● live", "ok": "✓ ok", "died": "✗ died"}.get(run.outcome, run.outcome)
            run_table.add_row(
                run.name,
                run.role,
                f"{duration / 1000:.1f}s" if duration is not None else "—",
                labels.tokens(run.tokens),
                f"{run.cost_usd:.2f}",
                outcome,
                key=str(n),
            )
        if not data.runs:
            run_table.add_row("no runs yet", "", "", "", "", "")
        self._show_costs(data.costs)
        if self.focused is None:
            journal.focus()

    def _show_costs(self, costs: CostBreakdown | None) -> None:
        """Per round, the runs in it, then the total: tokens and list-price cost (core.waiting)."""
        table = self.query_one("#cost", VimTable)
        table.clear()
        by_round: dict[int, list[dict[str, Any]]] = {}
        for run in costs.runs if costs else []:
            by_round.setdefault(int(run.get("round") or 0), []).append(run)
        for rnd in costs.rounds if costs else ():
            number = rnd.round
            table.add_row(
                f"round {number}" if number else "before review",
                "",
                labels.tokens(rnd.tokens),
                f"{rnd.cost_usd:.2f}",
                f"{rnd.runs} run(s)",
            )
            for run in by_round.get(number, []):
                if not run.get("tokens") and not run.get("cost_usd"):
                    continue
                name = str(run.get("run", ""))
                when = runs.started_at(runs.RunFile.of(Path(name)).stamp)[11:19] or name
                table.add_row(
                    f"  {when}",
                    str(run.get("role") or ""),
                    labels.tokens(run.get("tokens")),
                    f"{float(run.get('cost_usd') or 0):.2f}",
                    labels.model_label(run.get("model"), bool(run.get("standin"))),
                )
        if costs and costs.rounds:
            table.add_row("total", "", labels.tokens(costs.total.tokens), f"{costs.total.cost_usd:.2f}", "list price")
        else:
            table.add_row("no model usage yet", "", "", "", "")

    def _show_expanded(self) -> None:
        detail = self.query_one("#event-detail", Static)
        if self.expanded is None or self.data is None or self.expanded >= len(self.data.events):
            detail.add_class("-hidden")
            return
        event = self.data.events[len(self.data.events) - 1 - self.expanded]
        detail.update(Text(json.dumps(event, indent=2, ensure_ascii=False)))
        detail.remove_class("-hidden")

    # -- triage hooks ----------------------------------------------------------------------
    def selected(self) -> ItemView | None:
        building = self.building
        if building is not None and self.item_id in building.by_id:
            return building.by_id[self.item_id]
        return self.data.view if self.data else None

    def current_item_id(self) -> str:
        """The item `n` (app.next_waiting) counts from; the next one opens in this one's place."""
        return self.item_id

    # -- keys ------------------------------------------------------------------------------
    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        order = ["tab-journal", "tab-findings", "tab-runs", "tab-cost"]
        tabs.active = order[(order.index(tabs.active) + 1) % len(order)] if tabs.active in order else order[0]
        table_id = {"tab-journal": "#journal", "tab-findings": "#findings", "tab-runs": "#runs", "tab-cost": "#cost"}[
            tabs.active
        ]
        self.query_one(table_id, VimTable).focus()

    def action_expand(self) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active == "tab-runs":
            self._open_run(self.query_one("#runs", VimTable).cursor_row)
            return
        if tabs.active == "tab-journal" and self.data and self.data.events:
            row = self.query_one("#journal", VimTable).cursor_row
            self.expanded = None if self.expanded == row else row
            self._show_expanded()

    @on(VimTable.RowSelected, "#journal")
    def _journal_selected(self, event: VimTable.RowSelected) -> None:
        event.stop()
        self.action_expand()

    @on(VimTable.RowSelected, "#runs")
    def _run_selected(self, event: VimTable.RowSelected) -> None:
        event.stop()
        self._open_run(event.cursor_row)

    def _open_run(self, row: int) -> None:
        if not self.data or not (0 <= row < len(self.data.runs)):
            return
        run = self.data.runs[row]
        self.hall.open_trace(Path(run.file), item=self.item_id)
