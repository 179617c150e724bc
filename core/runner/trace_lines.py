"""Random access to a run stream's steps, for a view that draws any line at any moment (the app's
trace), with the same steps `hall trace` prints (core.runner.trace is the one parser).

Nothing is held per line but where it ends (a line exists once its newline arrives). A line's
steps are parsed when asked for, behind a cache; a tool result names its call ("Read: a.py → 60
lines") by finding the tool_use with its id a little further up the file, the way `hall trace`
remembers it while reading in order. Each line's arrival time comes from the runner's `.times`
file. Stdlib only (no Textual): the view's worker threads and tests call it directly.
"""

from __future__ import annotations

import bisect
import os
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from . import trace

CALL_WINDOW = 256 * 1024  # read backwards in pieces this big to find a tool call
CALL_REACH = 16 * 1024 * 1024  # and look no further than this for it
CACHE_LINES = 4000


def newline_ends(data: bytes, base: int) -> array:
    """Offsets just past every newline in data (data starts at file offset base)."""
    out = array("q")
    find = data.find
    pos = find(b"\n")
    while pos != -1:
        out.append(base + pos + 1)
        pos = find(b"\n", pos + 1)
    return out


class _Calls(Mapping[str, Any]):
    """tool_use_id -> ToolCall, found on demand (the parser's `tools` for one line)."""

    def __init__(self, lines: TraceLines, before: int) -> None:
        self.lines = lines
        self.before = before

    def __getitem__(self, use_id: str) -> Any:
        found = self.lines.call(use_id, self.before)
        if found is None:
            raise KeyError(use_id)
        return found

    def get(self, use_id: str, default: Any = None) -> Any:
        found = self.lines.call(use_id, self.before)
        return default if found is None else found

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __setitem__(self, use_id: str, call: Any) -> None:  # a call on the same line
        self.lines.calls[use_id] = call


class TraceLines:
    """One stream file's line index and steps. Not thread-safe: one owner (the UI) reads it; a
    follower thread only produces `ends` to extend it with."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.ends = array("q")
        self.base = 0  # where line 0 starts: 0, or the tail's first line while only the tail is indexed
        self.partial = False  # only the file's tail is indexed so far
        self.calls: dict[str, Any] = {}  # tool_use_id -> ToolCall (None: looked for, not found)
        self.times: dict[int, int] = {}
        self._steps: OrderedDict[int, list[trace.Step]] = OrderedDict()
        self._fd: int | None = None

    # -- the index -----------------------------------------------------------------------------
    def reset(self, base: int = 0, partial: bool = False) -> None:
        self.ends = array("q")
        self.base = base
        self.partial = partial
        self.calls.clear()
        self._steps.clear()
        self.reopen()

    def extend(self, ends: array) -> None:
        self.ends.extend(ends)

    @property
    def count(self) -> int:
        return len(self.ends)

    def reopen(self) -> None:
        self.close()
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            self._fd = None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def start_of(self, line: int) -> int:
        return self.ends[line - 1] if line else self.base

    def line_of_offset(self, offset: int) -> int:
        return bisect.bisect_right(self.ends, offset)

    def raw_line(self, line: int) -> bytes:
        if self._fd is None:
            self.reopen()
        if self._fd is None or not (0 <= line < len(self.ends)):
            return b""
        start = self.start_of(line)
        try:
            return os.pread(self._fd, self.ends[line] - start, start).rstrip(b"\r\n")
        except OSError:
            return b""

    # -- steps -----------------------------------------------------------------------------------
    def steps(self, line: int) -> list[trace.Step]:
        cached = self._steps.get(line)
        if cached is not None:
            self._steps.move_to_end(line)
            return cached
        found = self._parse(line)
        self._steps[line] = found
        if len(self._steps) > CACHE_LINES:
            self._steps.popitem(last=False)
        return found

    def _parse(self, line: int) -> list[trace.Step]:
        reader = trace.StreamReader()
        reader.line = line  # feed() counts this line as line + 1: the file's own numbering
        reader.tools = _Calls(self, line)  # type: ignore[assignment]
        steps = reader.feed(self.raw_line(line))  # only whole lines are indexed: never torn
        took = trace.elapsed_ms(self.times, self.start_of(line), self.ends[line]) if self.times else None
        if took is not None:
            for step in steps:
                step.elapsed_ms = took
        return steps

    def forget_times(self) -> None:
        """New times arrived: the cached steps' elapsed figures are redone when next drawn."""
        self._steps.clear()

    def call(self, use_id: str, before: int) -> Any:
        """The ToolCall with this id, from the nearest line above `before` that made it."""
        if use_id in self.calls:
            return self.calls[use_id]
        found = self._find_call(use_id, before)
        self.calls[use_id] = found
        return found

    def _find_call(self, use_id: str, before: int) -> Any:
        if self._fd is None or not use_id or before <= 0 or before > len(self.ends):
            return None
        needle = b'"' + use_id.encode("utf-8", "replace") + b'"'
        stop = self.start_of(before)
        floor = max(self.base, stop - CALL_REACH)
        hi = stop
        while hi > floor:
            lo = max(floor, hi - CALL_WINDOW)
            try:
                chunk = os.pread(self._fd, hi - lo + len(needle), lo)
            except OSError:
                return None
            at = chunk.rfind(needle)
            while at != -1:
                line = self.line_of_offset(lo + at)
                if line < before:
                    call = self._call_on(line, use_id)
                    if call is not None:
                        return call
                at = chunk.rfind(needle, 0, at)
            hi = lo
        return None

    def _call_on(self, line: int, use_id: str) -> Any:
        tools: dict[str, Any] = {}
        reader = trace.StreamReader()
        reader.tools = tools
        reader.feed(self.raw_line(line))
        return tools.get(use_id)

    # -- search ----------------------------------------------------------------------------------
    def search(self, needle: str) -> list[int]:
        """The lines (0-based) holding needle, case-insensitive (ASCII), among those indexed."""
        return search_file(self.path, needle, self.base, self.ends[-1] if self.ends else self.base)


def search_file(path: Path, needle: str, start: int, limit_offset: int) -> list[int]:
    """The line numbers (0-based, counted from `start`) of every line in [start, limit) holding needle."""
    wanted = needle.lower().encode("utf-8")
    if not wanted or limit_offset <= start:
        return []
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(limit_offset - start).lower()
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


class RunMeter:
    """A run's model, tokens and list-price cost so far, from its assistant lines (each message
    counted once: stream-json repeats a message's usage on every block) or its result line."""

    def __init__(self) -> None:
        self.model = ""
        self.standin = False
        self.usage: dict[str, dict[str, int]] = {}  # message id -> its latest usage
        self.result_cost: float | None = None

    def feed(self, raw: bytes) -> None:
        if b'"usage"' not in raw and b'"init"' not in raw and b'"result"' not in raw:
            return
        try:
            record = trace.loads(raw)
        except ValueError:
            return
        if not isinstance(record, dict):
            return
        kind = record.get("type")
        if kind == "system" and record.get("subtype") == "init":
            self.model = str(record.get("model") or self.model)
        elif kind == "assistant" and isinstance(record.get("message"), dict):
            message = record["message"]
            self.model = self.model or str(message.get("model") or "")
            usage = message.get("usage")
            if isinstance(usage, dict):
                key = str(message.get("id") or len(self.usage))
                self.usage[key] = {
                    k: int(usage.get(k) or 0)
                    for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
                    if isinstance(usage.get(k) or 0, int)
                }
        elif kind == "result":
            cost = trace.usage_from_result(record)["cost_usd"]
            if cost is not None:
                self.result_cost = float(cost)
        self.standin = self.standin or self.model == "hallmark-standin"

    @property
    def tokens(self) -> int:
        return sum(sum(u.values()) for u in self.usage.values())

    def cost_usd(self) -> float:
        """The result's own figure when there is one, else list price of the tokens so far."""
        if self.result_cost is not None:
            return self.result_cost
        from hallmark.core.loop.pricing import cost

        total = 0.0
        for usage in self.usage.values():
            total += cost(
                self.model,
                usage.get("input_tokens", 0),
                usage.get("output_tokens", 0),
                usage.get("cache_read_input_tokens", 0),
                usage.get("cache_creation_input_tokens", 0),
            )
        return total
