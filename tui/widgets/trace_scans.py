"""The trace view's scans: the search hits and the error and tool-call rows, read over the rows as
drawn (widgets/trace_search) and read on as the run grows.

One worker at a time reads every scan that is behind up to the lines indexed now; lines that
arrive meanwhile are read by the next one, started when it reports. A scan that was replaced
while a worker read it (a new search, a truncated file) has its results dropped. The marks are
read only once `e` or `c` asks for them.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message

from .trace_search import TraceSearch

if TYPE_CHECKING:
    from .trace_view import TraceView

Found = dict[str, tuple[TraceSearch, dict[str, list[int]]]]  # scan name -> (the scan, its new lines)


@dataclass
class Scanned(Message):
    """A scan worker read on: what each scan found in the lines it read."""

    found: Found


@dataclass
class HitsChanged(Message):
    """The hits (or the error and call marks) grew or were replaced: the status line follows."""


def read_on(scans: dict[str, TraceSearch], first: int, start: int, ends: array, times: dict[int, int] | None) -> Found:
    """In the worker thread: each scan reads its lines from where it stopped (`ends` are the end
    offsets of line `first` on, and line `first` starts at `start`)."""
    found: Found = {}
    for name, scan in scans.items():
        skip = scan.searched - first
        begin = ends[skip - 1] if skip > 0 else start
        if name == "hits":
            found[name] = (scan, {"hits": scan.scan(begin, ends[skip:], times)})
        else:
            errors, calls = scan.scan_marks(begin, ends[skip:], times)
            found[name] = (scan, {"errors": errors, "calls": calls})
    return found


class TraceScans:
    """The hits of one needle and the marks of one view; only the UI thread touches this object."""

    def __init__(self, view: TraceView) -> None:
        self.view = view
        self.hits: list[int] = []
        self.needle = ""
        self.marks: dict[str, list[int]] = {"errors": [], "calls": []}
        self._scans: dict[str, TraceSearch] = {}
        self._scanning = False
        self._jump_after: tuple[str, bool] | None = None  # e/c pressed before the marks were read
        self._step_first_hit = False

    @property
    def searching(self) -> bool:
        count = len(self.view.ends)
        return any(s.searched < count for s in self._scans.values())

    def search(self, needle: str) -> None:
        self.hits, self.needle = [], needle
        self._scans.pop("hits", None)
        if needle:
            self._scans["hits"] = TraceSearch(self.view.path, needle, self.view.base)
        self._step_first_hit = bool(needle)
        self.view.refresh()
        self.view.post_message(HitsChanged())
        self.more()

    def restart(self) -> None:
        """The file was replaced or truncated: every scan reads it again from its first line."""
        marking = "marks" in self._scans
        self._scans = {}
        self.marks = {"errors": [], "calls": []}
        if marking:
            self._scans["marks"] = TraceSearch(self.view.path, "", self.view.base)
        self.search(self.needle)

    def more(self) -> None:
        """Bring every scan up to the lines indexed now (one worker at a time)."""
        view = self.view
        if self._scanning or view.partial:
            return
        count = len(view.ends)
        behind = {n: s for n, s in self._scans.items() if s.searched < count}
        if not behind:
            return
        first = min(s.searched for s in behind.values())
        ends = array("q", view.ends[first:])
        times = dict(view.lines.times) if view.lines.times else None
        self._scanning = True
        work = partial(self._work, behind, first, view.lines.start_of(first), ends, times)
        view.run_worker(work, thread=True, group="search", exit_on_error=False)

    def _work(
        self, scans: dict[str, TraceSearch], first: int, start: int, ends: array, times: dict[int, int] | None
    ) -> None:
        found: Found = {}
        try:
            found = read_on(scans, first, start, ends, times)
        finally:
            self.view.post_message(Scanned(found))

    def scanned(self, message: Scanned) -> None:
        self._scanning = False
        for name, (scan, lines) in message.found.items():
            if self._scans.get(name) is not scan:
                continue  # replaced meanwhile (a new search, a truncated file)
            if lines.get("hits"):
                self.hits = self.hits + lines["hits"]
            for kind in ("errors", "calls"):
                if lines.get(kind):
                    self.marks[kind] = self.marks[kind] + lines[kind]
        count = len(self.view.ends)
        done = {n: s.searched >= count for n, s in self._scans.items()}
        if self._step_first_hit and done.get("hits"):
            self._step_first_hit = False
            if self.hits:
                self.view.step_hit(True)
        if self._jump_after is not None and done.get("marks"):
            kind, forward = self._jump_after
            self._jump_after = None
            self._jump(kind, forward)
        self.view.refresh()
        self.view.post_message(HitsChanged())
        self.more()

    def hit_index(self) -> int | None:
        at = bisect.bisect_left(self.hits, self.view.cursor)
        if at < len(self.hits) and self.hits[at] == self.view.cursor:
            return at + 1
        return None

    def step_hit(self, forward: bool) -> int | None:
        """To the next or previous hit (wrapping round); its number, 1-based."""
        if not self.hits:
            return None
        cursor = self.view.cursor
        if forward:
            index = bisect.bisect_right(self.hits, cursor) % len(self.hits)
        else:
            index = (bisect.bisect_left(self.hits, cursor) - 1) % len(self.hits)
        self.view.go_to_line(self.hits[index])
        return index + 1

    def jump(self, kind: str, forward: bool) -> None:
        """To the next or previous error row or tool call; read the marks first when they are behind."""
        marks = self._scans.get("marks")
        if marks is None:
            self._scans["marks"] = TraceSearch(self.view.path, "", self.view.base)
        if marks is None or marks.searched < len(self.view.ends):
            self._jump_after = (kind, forward)
            self.more()
            return
        self._jump(kind, forward)

    def _jump(self, kind: str, forward: bool) -> None:
        from .trace_view import TailChanged

        view = self.view
        lines = self.marks[kind]
        word = "error" if kind == "errors" else "tool call"
        if not lines:
            view.app.notify(f"No {word} in this run (yet).", timeout=3)
            return
        if forward:
            at = bisect.bisect_right(lines, view.cursor)
            if at >= len(lines):
                view.app.notify(f"No {word} after line {view.cursor + 1:,}; wrapped to the first.", timeout=3)
                at = 0
        else:
            at = bisect.bisect_left(lines, view.cursor) - 1
            if at < 0:
                view.app.notify(f"No {word} before line {view.cursor + 1:,}; wrapped to the last.", timeout=3)
                at = len(lines) - 1
        view.go_to_line(lines[at])
        view.post_message(TailChanged(view.tail, view.pending))
