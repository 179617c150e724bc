"""The append-only journal: one JSON event per line, appended whole under an exclusive lock.

Reads never stop on a bad line: a torn or garbage line is skipped and reported with its
file and line number (for `hall doctor`). Nothing is ever rewritten in place.
Stdlib only where there is fcntl: the hook path appends through this module on every prompt and
tool call, so it stays import-light (no dataclasses, no typing at run time). `locked()` is the one
lock of every journal and state file: an exclusive flock on `<file>.lock` on POSIX (what filelock
takes there too, so any filelock user of the same file agrees), filelock itself only where there
is no fcntl (Windows), because importing filelock costs a hook ~40 ms.
"""

from __future__ import annotations

import json
import os
import stat
import time
from contextlib import contextmanager
from pathlib import Path

from . import bounded_read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

JOURNAL_VERSION = 1
ENVELOPE = frozenset({"v", "t", "actor", "event", "item"})
# Fields that carry free text (a prompt, a turn summary, a question, a title…): secrets in them are
# redacted on the way in (core/secrets.redact), so the journal never keeps one verbatim.
FREE_TEXT = frozenset(
    {
        "prompt",
        "summary",
        "question",
        "answer",
        "title",
        "request",
        "reason",
        "note",
        "message",
        "text",
        "why",
        "how",
        "subject",
        "options",
        "default",
        "body",
        "input",
        "output",
    }
)
LOCK_TIMEOUT_S = 30.0


class BadLine:
    __slots__ = ("line", "path", "reason", "text")

    def __init__(self, path: str, line: int, reason: str, text: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BadLine) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"BadLine({self.path!r}, {self.line}, {self.reason!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "reason": self.reason, "text": self.text[:200]}


class ReadResult:
    """What one read found (a plain class: see the module docstring)."""

    __slots__ = ("bad", "events", "lines", "numbers", "offset")

    def __init__(
        self,
        events: list[dict[str, Any]] | None = None,
        bad: list[BadLine] | None = None,
        offset: int = 0,
        lines: int = 0,
        numbers: list[int] | None = None,
    ) -> None:
        self.events = events if events is not None else []
        self.bad = bad if bad is not None else []
        self.offset = offset  # bytes consumed (only whole lines)
        self.lines = lines  # whole lines consumed
        self.numbers = numbers if numbers is not None else []  # the 1-based line number of each event

    def __repr__(self) -> str:
        return f"ReadResult(events={len(self.events)}, bad={len(self.bad)}, offset={self.offset}, lines={self.lines})"


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


LOCK_POLL_S = 0.01


def acquire_fd(lock: Path, timeout: float) -> int:
    """Open `lock` (created when missing) and take its exclusive flock; returns the descriptor that
    holds it (closing it lets the lock go). Raises TimeoutError after timeout seconds. POSIX only."""

    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _flock(fd, lock, timeout)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _flock(fd: int, lock: Path, timeout: float) -> None:
    """Take the exclusive flock of an open descriptor, polling until timeout (then TimeoutError)."""
    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{lock} stayed locked for {timeout:g} s") from None
            time.sleep(LOCK_POLL_S)


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the exclusive lock of a journal (or any state file) for one step.

    Not re-entrant: a second `locked()` on the same file waits for the first, in one process too
    (flock belongs to the open file, and each call opens its own)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = lock_path(path)
    if os.name != "posix":  # pragma: no cover - Windows: filelock's own backend
        with _filelock(lock, path, timeout):
            yield
        return
    # the flock is taken inside the try that closes the descriptor: a Ctrl-C at any moment can leave
    # at most an unlocked descriptor behind, never a held lock the unwinding code would wait on
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            _flock(fd, lock, timeout)
        except TimeoutError as exc:
            raise _stayed_locked(path, timeout) from exc
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the flock


@contextmanager
def _filelock(lock: Path, path: Path, timeout: float) -> Iterator[None]:  # pragma: no cover - Windows
    from filelock import FileLock, Timeout

    held = FileLock(str(lock), timeout=timeout)
    try:
        held.acquire()
    except Timeout as exc:
        raise _stayed_locked(path, timeout) from exc
    try:
        yield
    finally:
        held.release()


def _stayed_locked(path: Path, timeout: float) -> Exception:
    from .errors import HallError

    return HallError(
        "COMMAND_FAILED",
        f"{path} stayed locked by another process for {timeout:g} s.",
        ["hall doctor", f"lsof {lock_path(path)}"],
    )


def make_event(event: str, item: str | None, actor: str, fields: dict[str, Any]) -> dict[str, Any]:
    from . import clock  # datetime only when an event is written, not on every read

    record: dict[str, Any] = {"v": JOURNAL_VERSION, "t": clock.stamp(), "actor": actor, "event": event, "item": item}
    for key, value in fields.items():
        if key in record:
            raise ValueError(f"event field {key!r} clashes with the envelope")
        record[key] = value
    if not FREE_TEXT.isdisjoint(fields):
        from .secrets import redact_value  # only when there is free text to look at

        for key in FREE_TEXT.intersection(fields):
            record[key] = redact_value(record[key])
    return record


def encode(record: dict[str, Any]) -> bytes:
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    if "\n" in line:  # json.dumps escapes newlines; this guards against a bad default=
        raise ValueError("an event must encode to one line")
    return (line + "\n").encode("utf-8")


def append_unlocked(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Append one whole line; the caller holds the lock.

    If the file ends in a torn line (a crash mid-write), a newline goes first in the same
    write, so the fragment stays its own bad line and never swallows this event.
    """
    data = encode(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    bounded_read.check_regular(path)  # a FIFO would block the write, a device swallow it
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NONBLOCK", 0), 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped in since the check
            raise bounded_read.Refused(path, "is not a regular file; Hallmark does not write it")
        size = info.st_size
        if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        written = os.write(fd, data)
        if written != len(data):  # pragma: no cover - a full disk
            raise OSError(f"short write to {path}: {written} of {len(data)} bytes")
    finally:
        os.close(fd)
    return record


def append(path: Path, event: str, *, item: str | None, actor: str, **fields: Any) -> dict[str, Any]:
    """Append one event under the journal's lock and return it (stamped once the lock is held,
    so the times in a file never run backwards)."""
    clash = ENVELOPE.intersection(fields)
    if clash:  # refuse a bad event before waiting for the lock
        raise ValueError(f"event field {sorted(clash)[0]!r} clashes with the envelope")
    with locked(path):
        return append_unlocked(path, make_event(event, item, actor, fields))


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    if not raw.strip():  # ASCII whitespace only; any other byte is something, reported if bad
        return None, "empty line"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    if not isinstance(value.get("event"), str) or not isinstance(value.get("t"), str):
        return None, "missing 'event' or 't'"
    return value, ""


_decode = json.JSONDecoder().raw_decode


def _fast_parse(line: str) -> dict[str, Any] | None:
    """The common case, quickly: one well-formed event object. Anything else (None) goes through
    parse_line, which gives the exact reason; both accept exactly the same lines."""
    if not line.startswith("{"):
        return None
    try:
        value, end = _decode(line)
    except ValueError:
        return None
    if end != len(line) and line[end:].strip(" \t\r"):
        return None
    if type(value) is not dict or type(value.get("event")) is not str or type(value.get("t")) is not str:
        return None
    return value


def owner_of(path: Path | str) -> str | None:
    """The item whose journal this is (`items/H-0009/events.jsonl` -> H-0009); None for the repo's."""
    folder = os.path.dirname(path)
    name = os.path.basename(folder)
    if name.startswith("H-") and os.path.basename(os.path.dirname(folder)) == "items":
        return name
    return None


def envelope_problem(record: dict[str, Any], owner: str | None) -> str:
    """Why a parsed event does not belong in this journal ("" when it does): a journal version this
    Hallmark does not know (a future one, or garbage), or another item's event in an item's journal.
    Folding either would apply it to the wrong item or under the wrong rules."""
    version = record.get("v", JOURNAL_VERSION)
    if type(version) is not int or version != JOURNAL_VERSION:
        return f"journal version {version!r}, not {JOURNAL_VERSION} (written by another Hallmark?); not folded"
    item = record.get("item")
    if owner is not None and item is not None and item != owner:
        return f"an event of {item!r} in {owner}'s journal; not folded"
    return ""


def read(path: Path, offset: int = 0, start_line: int = 0, *, include_tail: bool = True) -> ReadResult:
    """Read events from byte offset on.

    Only whole lines move the offset. A last line without its newline is a torn write: with
    include_tail it is reported as bad (a full read); without, it is left for the next catch-up.
    A line whose envelope does not belong here (envelope_problem) is reported as bad, not folded.
    """
    result = ReadResult(offset=offset, lines=start_line)
    try:
        data = bounded_read.read_bytes(path, bounded_read.JOURNAL_LIMIT, offset=offset)
    except FileNotFoundError:
        return result
    except OSError as exc:  # a directory, a FIFO, a device, too big: this journal is damaged, not the repo
        reason = exc.reason if isinstance(exc, bounded_read.Refused) else f"cannot be read ({exc.strerror or exc})"
        result.bad.append(BadLine(str(path), start_line, f"the journal {reason}", ""))
        return result
    cut = data.rfind(b"\n") + 1
    whole, tail = data[:cut], data[cut:]
    name = str(path)
    try:
        lines: list[Any] = whole.decode("utf-8").split("\n")[:-1]
    except UnicodeDecodeError:  # some line is not UTF-8: take every line the slow, exact way
        lines = whole.split(b"\n")[:-1]
    events, numbers, bad = result.events, result.numbers, result.bad
    owner = owner_of(name)
    lineno = start_line
    for line in lines:
        lineno += 1
        record = _fast_parse(line) if type(line) is str else None
        if record is None:
            raw = line.encode("utf-8") if type(line) is str else line
            record, reason = parse_line(raw)
            if record is None:
                if reason != "empty line":
                    bad.append(BadLine(name, lineno, reason, raw.decode("utf-8", "replace")))
                continue
        problem = envelope_problem(record, owner)
        if problem:
            text = line if type(line) is str else line.decode("utf-8", "replace")
            bad.append(BadLine(name, lineno, problem, text))
            continue
        events.append(record)
        numbers.append(lineno)
    result.offset = offset + cut
    result.lines = lineno
    if include_tail and tail:
        result.bad.append(BadLine(name, lineno + 1, "torn last line (no newline)", tail.decode("utf-8", "replace")))
    return result
