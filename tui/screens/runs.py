"""t: every headless run of the repo, newest first; enter opens its live trace. From an item (its
card, its row, its detail) `t` opens this same view on that item's runs; escape shows them all."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from hallmark.core import runs
from hallmark.core.repo import Repo
from hallmark.tui.widgets.lists import VimTable
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from .base import HallScreen


@dataclass(frozen=True, slots=True)
class RunRow:
    """One row of this screen: a run file, its size and its outcome (read in the loading worker)."""

    item: str | None
    file: str
    stamp: str
    role: str
    path: Path
    size: int
    outcome: str
    why: str


def all_runs(repo: Repo, limit: int = 500) -> list[RunRow]:
    """Every run of the repository, newest first, with its outcome (core.runs: the runs `hall trace
    --list` lists, judged by the same rule), as the rows this screen shows."""
    found = []
    for run in runs.all_runs(repo.paths, limit):
        outcome, why = run.outcome()
        found.append(RunRow(run.item, run.name, run.stamp, run.role, run.path, run.size(), outcome, why))
    return found


OUTCOME_MARKS = {"live": "● live", "ok": "✓ ok", "failed": "✗ failed", "died": "✗ died", "finished": "■ finished"}


def started(stamp: str) -> str:
    """20261130T094312123Z -> 2026-11-30 09:43:12"""
    return runs.started_at(stamp)[:19].replace("T", " ") or stamp


class RunsScreen(HallScreen):
    AUTO_FOCUS = "#runs-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Open trace", id="runs.open"),
        Binding("escape", "all_runs", "All runs", id="runs.all"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.all: list[RunRow] = []
        self.runs: list[RunRow] = []
        self.item_filter: str | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Label(
            "Runs: every headless run, newest first. enter follows its trace.", id="runs-note", classes="screen-note"
        )
        yield VimTable(id="runs-table")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Runs"
        self.query_one(VimTable).add_fixed_columns(
            ("started (UTC)", 19), ("item", 7), ("role", 9), ("size", 10), ("outcome", 11), ("file", None)
        )
        super().on_mount()

    def load(self, repo: Repo) -> list[RunRow]:
        return all_runs(repo)

    def show(self, data: list[RunRow]) -> None:
        self.all = data
        self._fill()

    def focus_item(self, item_id: str | None) -> None:
        """Show one item's runs (None: every run), newest first."""
        self.item_filter = item_id
        if self.loaded:
            self._fill()

    def _fill(self) -> None:
        self.runs = [r for r in self.all if self.item_filter is None or r.item == self.item_filter]
        note = self.query_one("#runs-note", Label)
        if self.item_filter:
            note.update(f"Runs of {self.item_filter}, newest first · enter follows its trace · escape: every run")
        else:
            note.update("Runs: every headless run, newest first. enter follows its trace.")
        table = self.query_one(VimTable)
        row = table.cursor_row
        table.clear()
        for run in self.runs:
            note_text = f"  ({run.why})" if run.outcome in ("failed", "finished") and run.why else ""
            table.add_row(
                started(run.stamp),
                run.item or "repo",
                run.role,
                f"{run.size / 1024:.1f} KB",
                OUTCOME_MARKS.get(run.outcome, run.outcome),
                run.file + note_text,
            )
        if not self.runs:
            table.add_row(
                "", "", "", "", "", f"{self.item_filter} has no runs yet" if self.item_filter else "no runs yet"
            )
        elif row:
            table.move_cursor(row=min(row, len(self.runs) - 1))
        table.focus()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_run":
            return True if self.runs else None
        if action == "all_runs":
            return bool(self.item_filter)
        return True

    @on(VimTable.RowSelected)
    def _selected(self, event: VimTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()

    def action_all_runs(self) -> None:
        self.focus_item(None)

    def action_open_run(self) -> None:
        row = self.query_one(VimTable).cursor_row
        if 0 <= row < len(self.runs):
            run = self.runs[row]
            self.hall.open_trace(run.path, item=run.item)
