"""A run's live trace. The heavy lifting is TraceView; this screen adds the status line, search
over the rows as drawn (/ then ] and [ step through the hits; the count grows while the run
streams), the next error or tool call (e / c) and take over (T).

The status line says only what is true now: whether the run is live, ended (with its end line),
finished (a `claude -p` file that ends with its result line) or died; how long it has run and
what it cost; whether the view follows the end or is paused (and how many lines came since);
and which search hit the cursor is on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from hallmark.core import clock, runs
from hallmark.core.repo import Repo
from hallmark.core.runner import trace
from hallmark.core.takeover import takeover
from hallmark.core.takeover_results import Takeover
from hallmark.tui import labels, programs
from hallmark.tui.messages import CoreDone
from hallmark.tui.widgets.trace_scans import HitsChanged
from hallmark.tui.widgets.trace_view import TailChanged, TraceView
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static

from .base import HallScreen


def started_at(path: Path) -> datetime | None:
    """A run file's start from its name (core.runs: 20261130T094312123Z-review.jsonl)."""
    stamp = runs.RunFile.of(path).stamp
    try:
        return datetime.strptime(stamp[:15], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


class TraceScreen(HallScreen):
    OWN_DATA = False
    AUTO_FOCUS = "TraceView"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", key_display="/", id="trace.search"),
        Binding("right_square_bracket", "hit(True)", "Next hit", key_display="]", id="trace.next_hit"),
        Binding("left_square_bracket", "hit(False)", "Prev hit", key_display="[", id="trace.prev_hit"),
        Binding("e", "jump('errors', True)", "Next error", id="trace.next_error"),
        Binding("E", "jump('errors', False)", "Prev error", show=False, id="trace.prev_error"),
        Binding("c", "jump('calls', True)", "Next call", id="trace.next_call"),
        Binding("C", "jump('calls', False)", "Prev call", show=False, id="trace.prev_call"),
        Binding("T", "takeover", "Take over", id="trace.takeover"),
        Binding("y", "copy_resume", "Copy resume", id="trace.copy_resume"),
        Binding("escape", "back", "Back", id="trace.back"),
    ]

    def __init__(self, path: Path, item: str | None = None, *, follow: bool = True) -> None:
        super().__init__()
        self.path = Path(path)
        self.item = item
        self.follow = follow
        run = runs.RunFile.of(self.path, item)
        self.role = run.role or "run"
        self.stamp = run.stamp
        self.query_text = ""
        self.started = started_at(self.path)

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Static("", id="trace-status")
        yield Input(
            placeholder="search this run (enter; then ] next, [ previous)", id="trace-search", classes="-hidden"
        )
        yield TraceView(self.path, follow=self.follow, id="trace")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.item or 'repo'} · {self.role} · {self.path.name}"
        self.query_one("#trace-search", Input).cursor_blink = False
        self.query_one(TraceView).focus()
        self._status()
        self.set_interval(1.0, self._tick)
        super().on_mount()

    def load(self, repo: Repo) -> None:
        return None

    @property
    def view(self) -> TraceView:
        return self.query_one(TraceView)

    def _tick(self) -> None:
        if self.view.live:  # the elapsed time of a live run moves on its own
            self._status()

    # -- the status line -------------------------------------------------------------------------
    def run_state(self) -> str:
        view = self.view
        if view.live:
            return "● live"
        if view.saw_end:
            return "⏹ ended"
        if not view.scanned or not view.live_known:
            return "…"
        if view.last_kind == "result":
            return "■ finished (its result line)"
        if not view.line_count:
            return "no lines yet"
        return "✗ ended without an end line (the run died)"

    def elapsed(self) -> str:
        view = self.view
        if view.live and self.started is not None:
            return duration((clock.now() - self.started).total_seconds())
        if view.line_count:
            try:
                record = trace.loads(view.raw_line(view.line_count - 1))
            except ValueError:
                record = None
            if isinstance(record, dict) and isinstance(record.get("duration_ms"), int | float):
                return duration(record["duration_ms"] / 1000)
        return ""

    def tokens(self) -> str:
        """The running token total (input, output and cache, every message counted once)."""
        used = self.view.meter.tokens
        return f"{labels.tokens(used)} tok" if used else ""

    def cost(self) -> str:
        meter = self.view.meter
        if meter.standin:
            return "$0.00 (stand-in)"
        if meter.cost_usd is None:
            return ""
        return f"${meter.cost_usd:.4f}" + ("" if meter.exact else " so far (list price)")

    def follow_state(self) -> str:
        view = self.view
        if view.tail:
            return "▼ following the end"
        where = f"⏸ at line {view.cursor + 1:,}"
        if view.pending:
            return f"{where} · +{view.pending:,} new · G follows"
        return f"{where} · G: the end"

    def search_state(self) -> str:
        if not self.query_text:
            return ""
        view = self.view
        if not view.hits:
            return f"“{self.query_text}”: searching…" if view.searching else f"“{self.query_text}”: no hits"
        at = view.hit_index()
        if at is None:
            return f"“{self.query_text}”: {len(view.hits):,} hits (] next)"
        return f"“{self.query_text}”: hit {at:,} of {len(view.hits):,}"

    def status_text(self, width: int | None = None) -> str:
        """The parts in their reading order; when they do not all fit, the least telling go first
        (the role is in the title already), never the run's state, the follow state or the search."""
        view = self.view
        count = "indexing… (newest first)" if view.partial else f"{view.line_count:,} lines"
        parts = [
            ("role", self.role),
            ("count", count),
            ("state", self.run_state()),
            ("elapsed", self.elapsed()),
            ("tokens", self.tokens()),
            ("cost", self.cost()),
            ("follow", self.follow_state()),
            ("search", self.search_state()),
        ]
        parts = [(k, v) for k, v in parts if v]
        width = width if width is not None else max(20, self.size.width - 2)
        for drop in ("role", "tokens", "cost", "elapsed", "count"):
            if len(" · ".join(v for _, v in parts)) <= width:
                break
            parts = [(k, v) for k, v in parts if k != drop]
        return " · ".join(v for _, v in parts)

    def _status(self) -> None:
        self.query_one("#trace-status", Static).update(self.status_text())

    @on(TailChanged)
    def _tail_changed(self, message: TailChanged) -> None:
        message.stop()
        self._status()
        self.refresh_bindings()

    # -- keys ------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "hit":
            return True if self.view.hits else None
        return True

    def greyed(self, action: str) -> bool:
        return action == "takeover" and bool(self.takeover_blocked())

    def takeover_blocked(self) -> str:
        """Why T cannot take this run over, or ""."""
        if not self.item:
            return "Only an item's run can be taken over."
        claude = programs.claude()
        if claude.missing:
            return claude.missing
        if self.view.meter.standin and "standin" not in Path(claude.command[0]).name:
            return (
                "This run is the stand-in's (no model ran): Claude Code cannot resume its session. "
                "HALL_CLAUDE=hall-standin-claude takes it over with the stand-in."
            )
        return ""

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
        view.search(self.query_text)

    @on(HitsChanged)
    def _hits_changed(self, message: HitsChanged) -> None:
        message.stop()
        self._status()
        self.refresh_bindings()

    def action_jump(self, kind: str, forward: bool) -> None:
        """e / E: the next or previous error row; c / C: the next or previous tool call."""
        self.view.action_jump(kind, forward)

    def action_hit(self, forward: bool) -> None:
        if self.view.step_hit(forward) is not None:
            self._status()

    def action_back(self) -> None:
        field = self.query_one("#trace-search", Input)
        if not field.has_class("-hidden"):
            field.add_class("-hidden")
            self.view.focus()
            return
        self.app.pop_screen()

    # -- the resume command, even where T is not available -----------------------------------
    def action_copy_resume(self) -> None:
        """y: copy `cd <its cwd> && … claude --resume <session>` (the command T would run)."""
        self._resume_command()

    @work(thread=True, exclusive=True, group="resume", exit_on_error=False)
    def _resume_command(self) -> None:
        import shlex

        from hallmark.core.takeover import claude_command, stream_info

        info = stream_info(self.path)
        session = info.get("session_id")
        if not session:
            self.app.call_from_thread(
                self.notify, "This run has no session id yet (no init line).", title="nothing to copy"
            )
            return
        env = ""
        if self.item:
            try:
                from hallmark.core.launch_env import launch_env

                with self.hall.fresh_repo() as repo:
                    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in launch_env(repo, self.item).items())
            except Exception:  # noqa: BLE001 - the command still resumes without the item's variables
                env = ""
        where = f"cd {shlex.quote(str(info['cwd']))} && " if info.get("cwd") else ""
        command = where + (env + " " if env else "") + shlex.join([*claude_command(), "--resume", str(session)])
        self.app.call_from_thread(self._copied, command)

    def _copied(self, command: str) -> None:
        self.app.copy_to_clipboard(command)
        self.notify(command, title="copied", timeout=6, markup=False)

    # -- take over (core/takeover.py) --------------------------------------------------------------
    def action_takeover(self) -> None:
        blocked = self.takeover_blocked()
        if blocked:
            self.notify(blocked, title="Take over: not available", severity="warning", timeout=8)
            return
        from hallmark.tui import triage

        from .modals import ConfirmModal

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.hall.core_call(
                    "taken over",
                    triage.person_call(takeover, "take over"),
                    self.item,
                    run=self.path.name,
                    item=self.item,
                )

        self.app.push_screen(
            ConfirmModal(
                f"Take {self.item} over?",
                [
                    f"{self.path.name}: a live run is stopped and the loop lets go of {self.item}.",
                    f"{self.item} goes back to development until you make it ready again.",
                    "Claude Code resumes the run's session here; the app comes back when it ends.",
                ],
            ),
            confirmed,
        )

    def core_done(self, message: CoreDone) -> None:
        result = message.result
        if message.label != "taken over" or message.error is not None or not isinstance(result, Takeover):
            return
        command = result.command
        if command:
            code = self.hall.run_external(list(command), cwd=result.cwd, env=result.env)
            if code:
                self.notify(f"{command[0]} exited with {code}", severity="warning")
