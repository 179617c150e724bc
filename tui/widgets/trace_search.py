"""Trace search over the text the trace view draws, not the raw JSON line, kept live.

Searching the raw stream hit every tool result for "ERROR" (each holds `"is_error": false`) and
missed a result row that shows `git log` when the JSON spelled it differently. Here each line is
turned into exactly the row text the view draws (`row_text`, shared with TraceView), and only
that is matched. A search remembers how far it has read; new lines of a live run are read on from
there, so the hit count moves while the run streams.

A TraceSearch is used by one thread at a time (the view's search worker); it opens the file for
each read and carries its own StreamReader, so tool results name their calls as
they do on screen. No Textual here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from hallmark.core.runner import trace

KIND_MARK = {
    "init": "▶ init",
    "text": "✎ text",
    "thinking": "… thinking",
    "tool_call": "→ call",
    "tool_result": "← result",
    "result": "■ result",
    "retry": "↻ retry",
    "system": "· system",
    "end": "⏹ end",
    "error": "✗ error",
    "unknown": "? line",
}
SEPARATOR = " │ "
CHUNK_LINES = 2000  # lines read with one pread
BODY_MAX = 400  # a step's text is cut here on screen, so a search sees no more of it either


def mark_of(step: trace.Step) -> str:
    """The row's first word: an errored tool result says ERROR, not result."""
    if step.is_error and step.kind == "tool_result":
        return "← ERROR"
    return KIND_MARK.get(step.kind, step.kind)


def body_of(step: trace.Step) -> str:
    return " " + " ".join(trace.step_text(step).split())[:BODY_MAX]


def row_text(steps: Sequence[trace.Step]) -> str:
    """The plain text of a line's row as the view draws it (marks, bodies, separators)."""
    return SEPARATOR.join(mark_of(step) + body_of(step) for step in steps)


def is_error(steps: Sequence[trace.Step]) -> bool:
    return any(step.is_error or step.kind == "error" for step in steps)


def is_tool_call(steps: Sequence[trace.Step]) -> bool:
    return any(step.kind == "tool_call" for step in steps)


class TraceSearch:
    """One needle over one file: the hits so far and how far the file has been read."""

    def __init__(self, path: Path, needle: str, base: int) -> None:
        self.path = Path(path)
        self.needle = needle
        self.lower = needle.lower()
        self.base = base  # where line 0 starts
        self.searched = 0  # lines read so far
        self.hits: list[int] = []
        self._reader = trace.StreamReader()

    def scan_marks(
        self, first_start: int, ends: Sequence[int], times: Mapping[int, int] | None = None
    ) -> tuple[list[int], list[int]]:
        """As scan, for the rows that are errors and the rows that call a tool."""
        errors: list[int] = []
        calls: list[int] = []
        for line, steps in self._read(first_start, ends, times):
            if is_error(steps):
                errors.append(line)
            if is_tool_call(steps):
                calls.append(line)
        return errors, calls

    def scan(self, first_start: int, ends: Sequence[int], times: Mapping[int, int] | None = None) -> list[int]:
        """Read the next lines: line `self.searched` starts at `first_start`, and `ends` are the
        end offsets of it and the lines after it. Returns the new hits (also added to self.hits)."""
        found = [line for line, steps in self._read(first_start, ends, times) if self.lower in row_text(steps).lower()]
        self.hits.extend(found)
        return found

    def _read(
        self, first_start: int, ends: Sequence[int], times: Mapping[int, int] | None
    ) -> Iterator[tuple[int, list[trace.Step]]]:
        """Each line from `self.searched` on, with its steps (as the view parses them)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            yield from self._lines(fd, first_start, ends, times)
        finally:
            os.close(fd)

    def _lines(
        self, fd: int, first_start: int, ends: Sequence[int], times: Mapping[int, int] | None
    ) -> Iterator[tuple[int, list[trace.Step]]]:
        start = first_start
        for at in range(0, len(ends), CHUNK_LINES):
            chunk = ends[at : at + CHUNK_LINES]
            try:
                data = os.pread(fd, chunk[-1] - start, start)
            except OSError:
                return
            origin = start
            for end in chunk:
                raw = data[start - origin : end - origin].rstrip(b"\r\n")
                line = self.searched
                self._reader.line = line
                steps = self._reader.feed(raw)
                took = trace.elapsed_ms(times, start, end) if times else None
                if took is not None:
                    for step in steps:
                        step.elapsed_ms = took
                self.searched = line + 1
                start = end
                yield line, steps
