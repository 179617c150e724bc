"""t: a run's live trace. The heavy lifting is TraceView; this screen adds the status line,
search (/ then n/N) and takeover (T)."""

from __future__ import annotations

from pathlib import Path

from hallmark.core.repo import Repo
from hallmark.core.takeover import takeover
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from ..messages import CoreDone
from ..widgets.trace_view import TailChanged, TraceView, search_file
from .base import HallScreen


class TraceScreen(HallScreen):
    AUTO_FOCUS = "TraceView"
    n_is_search = True  # n / N step through search hits here, not to the next waiting item
    BINDINGS = [
        Binding("slash", "search", "Search", key_display="/", id="trace.search"),
        Binding("n", "hit(True)", "Next hit", id="trace.next_hit"),
        Binding("N", "hit(False)", "Prev hit", id="trace.prev_hit"),
        Binding("T", "takeover", "Take over", id="trace.takeover"),
        Binding("escape", "back", "Back", id="trace.back"),
    ]

    def __init__(self, path: Path, item: str | None = None, *, follow: bool = True) -> None:
        super().__init__()
        self.path = Path(path)
        self.item = item
        self.follow = follow
        stamp, _, role = self.path.stem.partition("-")
        self.role = role or "run"
        self.stamp = stamp
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Static("", id="trace-status")
        yield Input(placeholder="search this run (enter; then n / N)", id="trace-search", classes="-hidden")
        yield TraceView(self.path, follow=self.follow, id="trace")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.item or 'repo'} · {self.role} · {self.path.name}"
        self.query_one("#trace-search", Input).cursor_blink = False
        self.query_one(TraceView).focus()
        self._status()
        super().on_mount()

    def load(self, repo: Repo) -> None:
        return None

    def journal_changed(self, items: list[str]) -> None:
        """The trace follows its own file; the journal does not change it."""

    @property
    def view(self) -> TraceView:
        return self.query_one(TraceView)

    def _status(self) -> None:
        view = self.view
        parts = [f"{self.role}", "indexing… (showing the newest lines)" if view.partial else f"{view.line_count:,} lines"]
        if view.saw_end:
            parts.append("⏹ ended")
        elif view.live:
            parts.append("● live")
        elif view.scanned:
            parts.append("✗ ended without an end line (the run died)")
        parts.append("TAIL ▼" if view.tail else f"⏸ paused · +{view.pending:,} new (G to follow)")
        if view.hits:
            parts.append(f"“{self.query_text}”: {len(view.hits):,} hits")
        elif self.query_text:
            parts.append(f"“{self.query_text}”: no hits")
        self.query_one("#trace-status", Static).update("  ·  ".join(parts))

    @on(TailChanged)
    def _tail_changed(self, message: TailChanged) -> None:
        message.stop()
        self._status()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "takeover":
            return bool(self.item)
        if action == "hit":
            return True if self.view.hits else None
        return True

    # -- search ----------------------------------------------------------------------------
    def action_search(self) -> None:
        field = self.query_one("#trace-search", Input)
        field.remove_class("-hidden")
        field.focus()

    @on(Input.Submitted, "#trace-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.query_text = event.value.strip()
        event.input.add_class("-hidden")
        self.view.focus()
        view = self.view
        if view.partial:
            self.notify("Still indexing the whole run; search again in a moment.", severity="warning")
            return
        limit = view.ends[-1] if view.ends else 0
        self._search(self.query_text, limit)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, needle: str, limit: int) -> None:
        try:
            hits = search_file(self.path, needle, limit)
        except OSError:
            hits = []
        self.app.call_from_thread(self._hits_found, hits)

    def _hits_found(self, hits: list[int]) -> None:
        view = self.view
        view.set_hits(hits)
        if hits:
            view.step_hit(True)
        self._status()
        self.refresh_bindings()

    def action_hit(self, forward: bool) -> None:
        number = self.view.step_hit(forward)
        if number is not None:
            self._status()

    def action_back(self) -> None:
        field = self.query_one("#trace-search", Input)
        if not field.has_class("-hidden"):
            field.add_class("-hidden")
            self.view.focus()
            return
        self.app.pop_screen()

    # -- takeover (triage's core/takeover.py) ----------------------------------------------
    def action_takeover(self) -> None:
        if not self.item:
            return
        self.hall.core_call("taken over", takeover, self.item, run=self.path.name, item=self.item)

    def core_done(self, message: CoreDone) -> None:
        if message.label != "taken over" or message.error is not None or not message.result:
            return
        result = message.result
        command = result.get("command") or []
        if command:
            code = self.hall.run_external(list(command), cwd=result.get("cwd"), env=result.get("env") or {})
            if code:
                self.notify(f"{command[0]} exited with {code}", severity="warning")
