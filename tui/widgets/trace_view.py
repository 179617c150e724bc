"""A live view of a run stream: a line-offset index and a Line-API ScrollView (toolong's design).

Nothing per line is held but its end offset. A worker thread scans the file once, then
follows it: only whole lines count (a line exists once its newline arrives), and a file that
shrinks or is replaced starts the index again. Rows are read with pread and parsed when they
are drawn, behind an LRU cache. Tail mode follows the end; any scroll turns it off and the
screen shows "+N new" until `end`/`G` resumes it.
"""

from __future__ import annotations

import bisect
import os
import textwrap
import time
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from .trace_steps import KIND_MARK, StepView, steps_for

CHUNK = 8 * 1024 * 1024
TAIL_FIRST_BYTES = 2 * 1024 * 1024  # a bigger file shows its newest lines before the full scan
POLL_SECONDS = 0.1
END_MARK = b'"hall_run_end"'
MAX_DETAIL_ROWS = 2000


def newline_ends(data: bytes, base: int) -> array:
    """Offsets just past every newline in data (data starts at file offset base)."""
    out = array("q")
    find = data.find
    pos = find(b"\n")
    while pos != -1:
        out.append(base + pos + 1)
        pos = find(b"\n", pos + 1)
    return out


def lock_held(lock_path: Path) -> bool:
    """Is the runner's exclusive lock on this run held right now? (never blocks, never creates it)"""
    from hallmark.core.run_locks import lock_is_held

    return lock_is_held(Path(lock_path))


@dataclass
class NewLines(Message):
    """Whole lines appended (or, with reset, the file was truncated or replaced first)."""

    ends: array
    size: int
    reset: bool = False
    last_is_end: bool = False
    base: int = 0  # the offset where the first of these lines starts (non-zero: only the file's tail)
    partial: bool = False  # the newest lines only; the full index follows


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


class TraceView(ScrollView, can_focus=True, inherit_bindings=False):
    COMPONENT_CLASSES = {"trace--cursor", "trace--gutter", "trace--mark", "trace--detail", "trace--hit"}
    BINDINGS = [
        Binding("down,j", "cursor(1)", "Down", show=False, id="trace.down"),
        Binding("up,k", "cursor(-1)", "Up", show=False, id="trace.up"),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False, id="trace.page_down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="trace.page_up"),
        Binding("home,g", "top", "Top", show=False, id="trace.top"),
        Binding("end,G", "follow", "Follow end", key_display="G", id="trace.follow"),
        Binding("enter,space", "toggle", "Expand", id="trace.expand"),
    ]

    tail: reactive[bool] = reactive(True)
    cursor: reactive[int] = reactive(0, repaint=True)

    def __init__(self, path: Path, *, follow: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = Path(path)
        self.follow = follow
        self.ends = array("q")
        self.size_read = 0
        self.pending = 0
        self.live = False
        self.saw_end = False
        self.expanded: dict[int, Expansion] = {}
        self._exp_keys: list[int] = []
        self._steps: OrderedDict[int, list[StepView]] = OrderedDict()
        self._fd: int | None = None
        self.hits: list[int] = []
        self.scanned = False
        self._user_scroll = False
        self.base = 0  # where line 0 starts: 0, or the tail's first line while only the tail is indexed
        self.partial = False

    # -- file ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._follow_file()

    def on_unmount(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _reopen(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            self._fd = None

    @work(thread=True, exclusive=True, group="tail", exit_on_error=False)
    def _follow_file(self) -> None:
        worker = get_current_worker()
        lock = self.path.with_suffix(".lock")
        pos, inode, first, live = 0, None, True, None
        last_probe = 0.0
        while not worker.is_cancelled:
            try:
                st = os.stat(self.path)
            except OSError:
                st = None
            reset = False
            if st is not None and (inode is not None and (st.st_ino != inode or st.st_size < pos)):
                pos, reset = 0, True
            if st is not None:
                inode = st.st_ino
            if first and st is not None and st.st_size > TAIL_FIRST_BYTES:
                self._post_tail_first(st.st_size)
            if st is not None and (st.st_size > pos or reset or first):
                ends = array("q")
                last_is_end = False
                try:
                    with open(self.path, "rb", buffering=0) as handle:
                        handle.seek(pos)
                        start = pos
                        while not worker.is_cancelled:
                            data = handle.read(CHUNK)
                            if not data:
                                break
                            found = newline_ends(data, start)
                            ends.extend(found)
                            start += len(data)
                        if ends:
                            prev = ends[-2] if len(ends) > 1 else pos
                            handle.seek(prev)
                            last_is_end = END_MARK in handle.read(ends[-1] - prev)
                except OSError:
                    ends = array("q")
                if ends or reset or first:
                    pos = ends[-1] if ends else pos
                    self.post_message(NewLines(ends, pos, reset or first, last_is_end))
                    first = False
            now = time.monotonic()
            if now - last_probe > 0.5:
                last_probe = now
                held = lock_held(lock)
                if held != live:
                    live = held
                    self.post_message(RunState(held))
            if not self.follow:
                return
            time.sleep(POLL_SECONDS)

    def _post_tail_first(self, size: int) -> None:
        """Index the last TAIL_FIRST_BYTES first (toolong scans backwards for the same reason):
        the end of a huge stream is on screen before its line count is known."""
        start = size - TAIL_FIRST_BYTES
        try:
            with open(self.path, "rb", buffering=0) as handle:
                handle.seek(start)
                data = handle.read(TAIL_FIRST_BYTES)
        except OSError:
            return
        cut = data.find(b"\n") + 1
        if cut <= 0:
            return
        ends = newline_ends(data[cut:], start + cut)
        if not ends:
            return
        last_start = ends[-2] if len(ends) > 1 else start + cut
        last_is_end = END_MARK in data[last_start - start:ends[-1] - start]
        self.post_message(NewLines(ends, ends[-1], True, last_is_end, base=start + cut, partial=True))

    def on_new_lines(self, message: NewLines) -> None:
        message.stop()
        shift = 0
        if message.reset and self.partial and not message.partial:
            shift = len(message.ends) - len(self.ends)  # the full index under the tail shown so far
        if message.reset:
            self.ends = array("q")
            self.expanded.clear()
            self._exp_keys = []
            self._steps.clear()
            self.hits = []
            self.pending = 0
            self.saw_end = False
            self.base = message.base
            self.partial = message.partial
            self._reopen()
        if self._fd is None:
            self._reopen()
        added = len(message.ends)
        self.ends.extend(message.ends)
        if added:
            self.saw_end = message.last_is_end
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
            self.post_message(TailChanged(False, self.pending))
        self.refresh()
        self.post_message(TailChanged(self.tail, self.pending))

    def on_run_state(self, message: RunState) -> None:
        self.live = message.live
        message.stop()
        self.post_message(TailChanged(self.tail, self.pending))

    # -- rows ------------------------------------------------------------------------------
    @property
    def line_count(self) -> int:
        return len(self.ends)

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

    def raw_line(self, line: int) -> bytes:
        if self._fd is None or not (0 <= line < len(self.ends)):
            return b""
        start = self.ends[line - 1] if line else self.base
        try:
            return os.pread(self._fd, self.ends[line] - start, start).rstrip(b"\r\n")
        except OSError:
            return b""

    def steps(self, line: int) -> list[StepView]:
        cached = self._steps.get(line)
        if cached is not None:
            self._steps.move_to_end(line)
            return cached
        found = steps_for(self.raw_line(line))
        self._steps[line] = found
        if len(self._steps) > 2000:
            self._steps.popitem(last=False)
        return found

    def summary_text(self, line: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for n, step in enumerate(self.steps(line)):
            if n:
                text.append(" │ ", style="dim")
            text.append(KIND_MARK.get(step.kind, step.kind), style=self.get_component_rich_style("trace--mark"))
            text.append(" " + " ".join(step.summary.split())[:400])
        return text

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        width = self.scrollable_content_region.width
        if row >= self.total_rows():
            return Strip.blank(width)
        where = self.locate(row)
        gutter_style = self.get_component_rich_style("trace--gutter")
        if where.sub == 0:
            expanded = where.line in self.expanded
            marker = "▾" if expanded else "▸"
            number = "…" if self.partial else str(where.line + 1)
            text = Text(f"{number:>7} {marker} ", style=gutter_style)
            text.append_text(self.summary_text(where.line))
            if where.line in self._hit_set():
                text.stylize(self.get_component_rich_style("trace--hit"))
            if where.line == self.cursor:
                text.stylize(self.get_component_rich_style("trace--cursor"))
        else:
            text = Text(" " * 10, style=gutter_style)
            text.append_text(self.expanded[where.line].rows[where.sub - 1])
        text.truncate(width + scroll_x, overflow="ellipsis", pad=True)
        segments = list(text.render(self.app.console))
        strip = Strip(segments, text.cell_len)
        return strip.crop_extend(scroll_x, scroll_x + width, Style())

    def _hit_set(self) -> set[int]:
        return set(self.hits) if len(self.hits) < 5000 else set()

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

    def action_toggle(self) -> None:
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
                rows.append(Text(KIND_MARK.get(step.kind, step.kind), style="bold"))
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

    # -- search ----------------------------------------------------------------------------
    def line_of_offset(self, offset: int) -> int:
        return bisect.bisect_right(self.ends, offset)

    def set_hits(self, lines: list[int]) -> None:
        self.hits = lines
        self.refresh()

    def step_hit(self, forward: bool) -> int | None:
        if not self.hits:
            return None
        if forward:
            index = bisect.bisect_right(self.hits, self.cursor)
            line = self.hits[index % len(self.hits)]
        else:
            index = bisect.bisect_left(self.hits, self.cursor) - 1
            line = self.hits[index % len(self.hits)]
        self.go_to_line(line)
        return self.hits.index(line) + 1


def search_file(path: Path, needle: str, limit_offset: int) -> list[int]:
    """The line numbers (0-based) of every indexed line holding needle, case-insensitive (ASCII)."""
    wanted = needle.lower().encode("utf-8")
    if not wanted:
        return []
    with open(path, "rb") as handle:
        data = handle.read(limit_offset).lower()
    found: list[int] = []
    line, counted_to = 0, 0
    pos = data.find(wanted)
    while pos != -1:
        line += data.count(b"\n", counted_to, pos)
        counted_to = pos
        found.append(line)
        nxt = data.find(b"\n", pos)
        if nxt == -1:
            break
        pos = data.find(wanted, nxt + 1)
    return found
