"""A live view of a run stream: a line-offset index and a Line-API ScrollView (toolong's design).

The index, the steps and the tool names are core.runner.trace_lines.TraceLines (the same parser
as `hall trace`); this widget only follows the file and draws. A worker thread scans the file
once (the newest 2 MB first, so the end of a huge stream is on screen at once), then follows it:
only whole lines count, and a file that shrinks or is replaced starts the index again. It also
meters the run (model, tokens, cost) and reads the runner's arrival times as the file grows.

Tail mode follows the end; any scroll turns it off and the screen shows "+N new" until `end`/`G`
resumes it. Every change of what the status line says is one TailChanged message.
"""

from __future__ import annotations

import textwrap
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from hallmark.core.runner import trace
from hallmark.core.runner.follow import StreamFollower
from hallmark.core.runner.trace_lines import RunMeter, TraceLines, newline_ends
from hallmark.core.runs import END_MARK
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from .strips import text_strip
from .trace_scans import Scanned, TraceScans
from .trace_search import KIND_MARK, body_of, mark_of

TAIL_FIRST_BYTES = 2 * 1024 * 1024  # a bigger file shows its newest lines before the full scan
METER_MAX_BYTES = 16 * 1024 * 1024  # a bigger file is metered from what is appended (and its result line)
POLL_SECONDS = 0.1
LOCK_PROBE_S = 0.5
MAX_DETAIL_ROWS = 2000


@dataclass
class Meter:
    model: str = ""
    standin: bool = False
    tokens: int = 0
    cost_usd: float | None = None
    exact: bool = False  # the result line's own figure, not list price of the tokens so far


@dataclass
class NewLines(Message):
    """Whole lines appended (or, with reset, the file was truncated or replaced first)."""

    ends: array
    size: int
    reset: bool = False
    last_is_end: bool = False
    base: int = 0  # the offset where the first of these lines starts (non-zero: only the file's tail)
    partial: bool = False  # the newest lines only; the full index follows
    last_kind: str = ""  # the type of the last line ("result", "hall_run_end", ...)
    meter: Meter | None = None
    times: dict[int, int] | None = None


@dataclass
class RunState(Message):
    live: bool


@dataclass
class TailChanged(Message):
    tail: bool
    pending: int = 0


@dataclass
class _Row:
    line: int
    sub: int  # 0: the line's summary; 1..n: its detail rows


@dataclass
class Expansion:
    rows: list[Text] = field(default_factory=list)


def _last_kind(data: bytes) -> str:
    try:
        record = trace.loads(data)
    except ValueError:
        return ""
    return str(record.get("type") or "") if isinstance(record, dict) else ""


class TraceView(ScrollView, can_focus=True, inherit_bindings=False):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "trace--cursor",
        "trace--gutter",
        "trace--mark",
        "trace--detail",
        "trace--hit",
        "trace--hit-line",
        "trace--error",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor(1)", "Down", show=False, id="trace.down"),
        Binding("up,k", "cursor(-1)", "Up", show=False, id="trace.up"),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False, id="trace.page_down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="trace.page_up"),
        Binding("home,g", "top", "Top", show=False, id="trace.top"),
        Binding("end,G", "follow", "Follow end", key_display="G", id="trace.follow"),
        Binding("enter,space", "expand", "Expand", id="trace.expand"),
    ]

    tail: reactive[bool] = reactive(True)
    cursor: reactive[int] = reactive(0, repaint=True)

    def __init__(self, path: Path, *, follow: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = Path(path)
        self.follow = follow
        self.lines = TraceLines(self.path)
        self.size_read = 0
        self.pending = 0
        self.live = False
        self.live_known = False  # the lock has been probed once
        self.saw_end = False
        self.last_kind = ""
        self.meter = Meter()
        self.expanded: dict[int, Expansion] = {}
        self._exp_keys: list[int] = []
        self.scanned = False
        self.scans = TraceScans(self)

    # -- the index (TraceLines) ---------------------------------------------------------------
    @property
    def ends(self) -> array:
        return self.lines.ends

    @property
    def base(self) -> int:
        return self.lines.base

    @property
    def partial(self) -> bool:
        return self.lines.partial

    @property
    def line_count(self) -> int:
        return self.lines.count

    def raw_line(self, line: int) -> bytes:
        return self.lines.raw_line(line)

    def steps(self, line: int) -> list[trace.Step]:
        return self.lines.steps(line)

    # -- file ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._follow_file()

    def on_unmount(self) -> None:
        self.lines.close()

    @work(thread=True, exclusive=True, group="tail", exit_on_error=False)
    def _follow_file(self) -> None:
        """Index the file, then follow it (core/runner/follow.py does the reading): post what each
        poll added, the run's meter and arrival times, and each change of live."""
        worker = get_current_worker()
        follower = StreamFollower(self.path)
        first, live = True, None
        meter, metering = RunMeter(), True
        while not worker.is_cancelled:
            reset = follower.check()
            if reset:
                meter = RunMeter()
            if first:
                metering = follower.size <= METER_MAX_BYTES
                if follower.size > TAIL_FIRST_BYTES:
                    self._post_tail_first(follower)
            if follower.pending or reset or first:
                ends = array("q")
                for start, data in follower.read(lambda: worker.is_cancelled):
                    ends.extend(newline_ends(data, start))
                    if metering or not first:
                        for raw in data.splitlines():
                            meter.feed(raw)
                last = follower.last if ends else b""
                if ends and not metering and first:
                    meter.feed(last)  # a huge file: its result line still says what it cost
                times = follower.times_if_changed()
                if ends or reset or first or times:
                    self.post_message(
                        NewLines(
                            ends,
                            follower.offset,
                            reset or first,
                            END_MARK in last,
                            last_kind=_last_kind(last) if last else "",
                            meter=Meter(
                                meter.model,
                                meter.standin,
                                meter.tokens,
                                meter.cost_usd() if meter.usage or meter.result_cost is not None else None,
                                meter.result_cost is not None,
                            ),
                            times=times,
                        )
                    )
                    first = False
            held = follower.live(max_age=LOCK_PROBE_S)
            if held != live:
                live = held
                self.post_message(RunState(held))
            if not self.follow:
                return
            if self.message_queue_size > 20:  # the UI is behind: let it catch up (toolong's back-pressure)
                while self.message_queue_size > 2 and not worker.is_cancelled:
                    time.sleep(0.05)
            time.sleep(POLL_SECONDS)

    def _post_tail_first(self, follower: StreamFollower) -> None:
        """Index the last TAIL_FIRST_BYTES first (toolong scans backwards for the same reason):
        the end of a huge stream is on screen before its line count is known."""
        found = follower.tail(TAIL_FIRST_BYTES)
        if found is None:
            return
        base, data = found
        ends = newline_ends(data, base)
        last_start = ends[-2] if len(ends) > 1 else base
        last = data[last_start - base : ends[-1] - base - 1]
        self.post_message(
            NewLines(ends, ends[-1], True, END_MARK in last, base=base, partial=True, last_kind=_last_kind(last))
        )

    def on_new_lines(self, message: NewLines) -> None:
        message.stop()
        shift = 0
        if message.reset and self.partial and not message.partial:
            shift = len(message.ends) - len(self.ends)  # the full index under the tail shown so far
        if message.reset:
            self.lines.reset(message.base, message.partial)
            self.expanded.clear()
            self._exp_keys = []
            self.pending = 0
            self.saw_end = False
            self.scans.restart()
        added = len(message.ends)
        self.lines.extend(message.ends)
        if added:
            self.saw_end = message.last_is_end
            self.last_kind = message.last_kind
        if message.meter is not None:
            self.meter = message.meter
        if message.times is not None:
            self.lines.times = message.times
            self.lines.forget_times()
        self.scanned = True
        self._resize()
        if self.tail:
            self.cursor = max(0, len(self.ends) - 1)
            self.scroll_to(y=self.max_scroll_y, animate=False, force=True)
        elif shift > 0:
            self.cursor = min(len(self.ends) - 1, self.cursor + shift)
            self.scroll_to(y=self.scroll_y + shift, animate=False, force=True)
        elif added and not message.reset:
            self.pending += added
        self.refresh()
        self.post_message(TailChanged(self.tail, self.pending))
        if added:
            self.scans.more()

    def on_run_state(self, message: RunState) -> None:
        message.stop()
        self.live = message.live
        self.live_known = True
        self.post_message(TailChanged(self.tail, self.pending))

    # -- rows ------------------------------------------------------------------------------
    def total_rows(self) -> int:
        return len(self.ends) + sum(len(e.rows) for e in self.expanded.values())

    def _resize(self) -> None:
        self.virtual_size = Size(max(1, self.scrollable_content_region.width), self.total_rows())

    def row_of(self, line: int) -> int:
        before = 0
        for key in self._exp_keys:
            if key >= line:
                break
            before += len(self.expanded[key].rows)
        return line + before

    def locate(self, row: int) -> _Row:
        before = 0
        for key in self._exp_keys:
            start = key + before
            if row < start:
                break
            extra = len(self.expanded[key].rows)
            if row <= start + extra:
                return _Row(key, row - start)
            before += extra
        return _Row(row - before, 0)

    def summary_text(self, line: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for n, step in enumerate(self.steps(line)):
            if n:
                text.append(" │ ", style="dim")
            errored = step.is_error or step.kind == "error"
            text.append(
                mark_of(step), style=self.get_component_rich_style("trace--error" if errored else "trace--mark")
            )
            body = body_of(step)
            text.append(body, style=self.get_component_rich_style("trace--error") if errored else "")
        return text

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        width = self.scrollable_content_region.width
        if row >= self.total_rows():
            return Strip.blank(width, self.rich_style)
        where = self.locate(row)
        gutter_style = self.get_component_rich_style("trace--gutter")
        if where.sub == 0:
            expanded = where.line in self.expanded
            marker = "▾" if expanded else "▸"
            number = "…" if self.partial else str(where.line + 1)
            hit = self.needle and where.line in self._hit_set()
            text = Text(f"{number:>7}{'●' if hit else ' '}{marker} ", style=gutter_style)
            text.append_text(self.summary_text(where.line))
            if hit:
                self._highlight(text)
            if where.line == self.cursor:
                text.stylize(self.get_component_rich_style("trace--cursor"))
        else:
            text = Text(" " * 10, style=gutter_style)
            text.append_text(self.expanded[where.line].rows[where.sub - 1])
            if self.needle:
                self._highlight(text)
        text.truncate(width + scroll_x, overflow="ellipsis", pad=True)
        return text_strip(text, self.app.console, self.rich_style, start=scroll_x, width=width)

    def _highlight(self, text: Text) -> None:
        """Mark every match of the search in what is drawn (the line's gutter dot says a match
        may be in the raw line only; enter shows it)."""
        style = self.get_component_rich_style("trace--hit")
        lower, needle = text.plain.lower(), self.needle.lower()
        at = lower.find(needle)
        while at != -1 and needle:
            text.stylize(style, at, at + len(needle))
            at = lower.find(needle, at + len(needle))

    def _hit_set(self) -> set[int]:
        if getattr(self, "_hits_cached", None) is not self.hits:
            self._hits_cached = self.hits
            self._hits_as_set = set(self.hits)
        return self._hits_as_set

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    # -- tail and scrolling ----------------------------------------------------------------
    def _leave_tail(self) -> None:
        if self.tail:
            self.tail = False
            self.post_message(TailChanged(False, self.pending))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._leave_tail()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self.scroll_y < self.max_scroll_y:
            self._leave_tail()

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()
        if not self.tail:  # the status line's "at line N" and "hit i of N" follow the cursor
            self.post_message(TailChanged(self.tail, self.pending))

    def _show_cursor(self) -> None:
        row = self.row_of(self.cursor)
        height = self.scrollable_content_region.height
        if row < self.scroll_y:
            self.scroll_to(y=row, animate=False, force=True)
        elif row >= self.scroll_y + height:
            self.scroll_to(y=row - height + 1, animate=False, force=True)

    def action_cursor(self, step: int) -> None:
        self._leave_tail()
        self.cursor = max(0, min(len(self.ends) - 1, self.cursor + step))
        self._show_cursor()

    def action_page(self, step: int) -> None:
        self.action_cursor(step * max(1, self.scrollable_content_region.height - 1))

    def action_top(self) -> None:
        self._leave_tail()
        self.cursor = 0
        self.scroll_to(y=0, animate=False, force=True)

    def action_follow(self) -> None:
        self.tail = True
        self.pending = 0
        self.cursor = max(0, len(self.ends) - 1)
        self.scroll_to(y=self.max_scroll_y, animate=False, force=True)
        self.post_message(TailChanged(True, 0))

    def go_to_line(self, line: int) -> None:
        self._leave_tail()
        self.cursor = max(0, min(len(self.ends) - 1, line))
        row = self.row_of(self.cursor)
        self.scroll_to(y=max(0, row - self.scrollable_content_region.height // 3), animate=False, force=True)
        self.refresh()

    def action_expand(self) -> None:
        """Open or close the step under the cursor (not DOMNode.action_toggle, which flips an attribute)."""
        line = self.cursor
        if not (0 <= line < len(self.ends)):
            return
        if line in self.expanded:
            del self.expanded[line]
        else:
            width = max(20, self.scrollable_content_region.width - 12)
            rows: list[Text] = []
            style = self.get_component_rich_style("trace--detail")
            for step in self.steps(line):
                rows.append(Text(f"{KIND_MARK.get(step.kind, step.kind)} {trace.step_text(step)}", style="bold"))
                for raw in step.detail.splitlines() or [""]:
                    for piece in textwrap.wrap(raw, width, replace_whitespace=False, drop_whitespace=False) or [""]:
                        rows.append(Text(piece, style=style))
                        if len(rows) >= MAX_DETAIL_ROWS:
                            break
                if len(rows) >= MAX_DETAIL_ROWS:
                    rows.append(Text("… (cut; the whole line is in the file)", style="italic"))
                    break
            self.expanded[line] = Expansion(rows)
        self._exp_keys = sorted(self.expanded)
        self._resize()
        self.refresh()

    # -- search (widgets/trace_scans: the drawn rows, read on as the run grows) ------------
    def line_of_offset(self, offset: int) -> int:
        return self.lines.line_of_offset(offset)

    @property
    def hits(self) -> list[int]:
        return self.scans.hits

    @property
    def needle(self) -> str:
        return self.scans.needle

    @property
    def marks(self) -> dict[str, list[int]]:
        return self.scans.marks

    @property
    def searching(self) -> bool:
        """A scan is still reading lines the view already shows."""
        return self.scans.searching

    def set_hits(self, lines: list[int], needle: str = "") -> None:
        self.scans.hits, self.scans.needle = lines, needle
        self.refresh()

    def search(self, needle: str) -> None:
        """Search the drawn rows for needle; the hits grow as the run streams (HitsChanged)."""
        self.scans.search(needle)

    def on_scanned(self, message: Scanned) -> None:
        message.stop()
        self.scans.scanned(message)

    def action_jump(self, kind: str, forward: bool) -> None:
        """e / E: the next or previous error row; c / C: the next or previous tool call."""
        self.scans.jump(kind, forward)

    def hit_index(self) -> int | None:
        """Which hit (1-based) the cursor is on, when it is on one."""
        return self.scans.hit_index()

    def step_hit(self, forward: bool) -> int | None:
        return self.scans.step_hit(forward)
