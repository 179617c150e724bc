"""Reading a stream file in order: run numbering and tool names carry from line to line (the
StreamReader), whole files streamed as steps or records, a pretty-printed single message read
whole, and the runner's `.times` file (when each line arrived). Stdlib.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .codec import loads
from .parse import Step, parse_line
from .texts import one_line

WHOLE_FILE_MAX = 64 * 1024 * 1024  # a pretty-printed single message is parsed whole up to this size

# -- reading files ----------------------------------------------------------------------


class StreamReader:
    """Turns raw lines into numbered steps, in order: run numbering and tool names carry across lines.

    Use one reader per file, feeding every line (whole lines, without or with their newline).
    """

    def __init__(self) -> None:
        self.run = 0  # no line seen yet
        self.line = 0
        self.tools: dict[str, Any] = {}  # tool_use_id -> ToolCall
        self._has_init = False
        self._has_body = False
        self._closed = False  # a result or an end line was seen: what follows is another run

    def _begin_run(self) -> None:
        self.run += 1
        self._has_init = self._has_body = self._closed = False

    def _place(self, record: Any) -> None:
        """Decide which run a decoded line belongs to."""
        if self.run == 0:
            self._begin_run()
        kind = record.get("type") if isinstance(record, dict) else None
        sub = record.get("subtype") if kind == "system" else None
        if not isinstance(sub, str):
            sub = None
        if kind == "hall_run_end":
            self._closed = True
            return
        if self._closed or (sub == "init" and (self._has_init or self._has_body)):
            self._begin_run()
        if sub == "init":
            self._has_init = True
        elif kind == "result":
            self._closed = True
        elif kind != "system":  # hook, status and plugin lines may precede a run's init
            self._has_body = True

    def feed_record(self, record: Any) -> list[Step]:
        self.line += 1
        self._place(record)
        return parse_line(record, run=self.run, line=self.line, tools=self.tools)

    def feed(self, raw: bytes | str, *, torn: bool = False) -> list[Step]:
        """One raw line. Blank lines count as lines but give no step; garbage gives an error step."""
        try:
            record = loads(raw)
        except ValueError as exc:  # includes UnicodeDecodeError
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            text = text.rstrip("\r\n")
            self.line += 1
            if not text.strip():
                return []
            if self.run == 0:
                self._begin_run()
            reason = getattr(exc, "msg", None) or "not UTF-8"
            why = "torn last line (the file ends mid-line)" if torn else f"not JSON ({reason})"
            return [
                Step(
                    "error",
                    f"line {self.line}: {why}: {one_line(text, 120)}",
                    text,
                    run=self.run,
                    line=self.line,
                    is_error=True,
                    detail=text,
                )
            ]
        if isinstance(record, list) and record and all(isinstance(r, dict) and "type" in r for r in record):
            # an array of messages on one line (the form some wrappers write): each is its own step
            steps = self.feed_record(record[0])
            for more in record[1:]:
                self._place(more)
                steps.extend(parse_line(more, run=self.run, line=self.line, tools=self.tools))
            return steps
        return self.feed_record(record)


def _whole_file(path: Path) -> Any:
    """A file that is one pretty-printed JSON value (a single message or an array of them), or None."""
    try:
        if path.stat().st_size > WHOLE_FILE_MAX:
            return None
        return loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def times_path(stream: str | os.PathLike[str]) -> Path:
    """Beside `<stamp>-<role>.jsonl`, the runner writes `<stamp>-<role>.times`: one line per stream
    line, "<byte offset where that line ends> <milliseconds since the epoch when it arrived>".
    Stream-json has no clock of its own; this is where a step's time comes from."""
    return Path(stream).with_suffix(".times")


def read_times(stream: str | os.PathLike[str]) -> dict[int, int]:
    """End offset -> arrival (ms since the epoch) for a stream's lines; {} when the runner wrote none
    (a `claude -p` file from elsewhere). Bad lines are skipped."""
    out: dict[int, int] = {}
    try:
        with open(times_path(stream), "rb") as handle:
            for raw in handle:
                end, _, ms = raw.partition(b" ")
                try:
                    out[int(end)] = int(ms)
                except ValueError:
                    continue
    except OSError:
        return {}
    return out


def elapsed_ms(times: Mapping[int, int], start: int, end: int) -> int | None:
    """How long the line [start, end) took to arrive after the line before it, when both are timed."""
    here, before = times.get(end), times.get(start)
    if here is None or before is None:
        return None
    return max(0, here - before)


def iter_steps(path: str | os.PathLike[str], *, live: bool = False) -> Iterator[Step]:
    """Every step of a stream file, streamed (constant memory for the lines themselves).

    A last line without its newline that does not parse is reported as a torn line, unless the
    run is live (its writer is mid-line: the line is simply not there yet). A file whose first
    line is not JSON but whose whole text is (a pretty-printed message) is read whole.
    """
    path = Path(path)
    reader = StreamReader()
    times = read_times(path)
    offset = 0
    with open(path, "rb") as handle:
        first = True
        for raw in handle:
            start, offset = offset, offset + len(raw)
            if first and raw.strip():
                first = False
                stripped = raw.strip()
                if stripped[:1] in (b"{", b"[") and not _parses(stripped):
                    whole = _whole_file(path)
                    if whole is not None:
                        yield from _steps_of_value(whole, reader)
                        return
            torn = not raw.endswith(b"\n")
            if torn and live and not _parses(raw):
                return
            steps = reader.feed(raw, torn=torn)
            took = elapsed_ms(times, start, offset) if times else None
            if took is not None:
                for step in steps:
                    step.elapsed_ms = took
            yield from steps


def _parses(raw: bytes) -> bool:
    try:
        loads(raw)
    except ValueError:
        return False
    return True


def _steps_of_value(value: Any, reader: StreamReader) -> Iterator[Step]:
    records = value if isinstance(value, list) else [value]
    for record in records:
        yield from reader.feed_record(record)


def read_steps(path: str | os.PathLike[str]) -> list[Step]:
    """Every step of a stream file (see iter_steps)."""
    return list(iter_steps(path))


def iter_records(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(run, record) for every JSON object line, with the same run numbering as the steps."""
    path = Path(path)
    reader = StreamReader()
    with open(path, "rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                record = loads(raw)
            except ValueError:
                continue
            batch = record if isinstance(record, list) else [record]
            for one in batch:
                if isinstance(one, dict):
                    reader.line += 1
                    reader._place(one)
                    yield reader.run, one
