"""An item's headless runs as files: where they live, how they are named and listed, whether one is
live, how it ended, and its end line. The one owner of `runs/`: the runner, the loop's recovery,
waiting, the watchman, take-over, `hall trace` and the app's Runs views all ask here, so `hall
trace --list` and an item's Runs tab list the same runs with the same outcome.

`<state>/items/H-0042/runs/<stamp>-<role>.jsonl` (a repo-level run: `<state>/runs/`) holds Claude's
stream-json as it arrived, then one `hall_run_end` line from the runner. The runner holds an
exclusive flock on `<stamp>-<role>.lock` for as long as any process of the run lives, so only a
held lock says "running now"; a stream with no end line whose lock nobody holds is a run that died.
Following a growing stream is core/runner/follow.py's; parsing it into steps, core/runner/trace.
Stdlib only (the SessionStart hook counts the inbox through waiting, which asks here): flock
where there is fcntl, filelock with no wait elsewhere.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .paths import RepoPaths
    from .run_results import RunSummary

STREAM = ".jsonl"
# <stamp>-<role>.jsonl: the stamp is UTC to the millisecond, so names sort by start
NAME = re.compile(r"^(\d{8}T\d{6}\d{3}Z)-([a-z][a-z_]*)\.jsonl$")
END_TYPE = "hall_run_end"
END_MARK = b'"hall_run_end"'  # the end line's type, as bytes: a cheap test of a raw line
DIED = "the run died: no end line and no live process holds its lock"
TAIL_BYTES = 16384  # the end line is the file's last line; a result line before it can be long
OUTCOMES = ("live", "ok", "failed", "finished", "died")


# -- where and what ----------------------------------------------------------------------------


def runs_dir(paths: RepoPaths, item_id: str | None) -> Path:
    """An item's runs folder; the repository's own (intake, librarian) when item_id is None."""
    return paths.item_dir(item_id) / "runs" if item_id else paths.state_dir / "runs"


def stamp_now() -> str:
    """A run's stamp: 20261130T094312123Z (UTC, to the millisecond)."""
    from . import clock

    moment = clock.now()
    return moment.strftime("%Y%m%dT%H%M%S") + f"{moment.microsecond // 1000:03d}Z"


def new_base(folder: Path, role: str) -> Path:
    """`<folder>/<stamp>-<role>` for a run about to start, its stream not there yet (two runs in one
    millisecond wait for the next)."""
    import time

    folder.mkdir(parents=True, exist_ok=True)
    while True:
        base = folder / f"{stamp_now()}-{role}"
        if not base.with_suffix(STREAM).exists():
            return base
        time.sleep(0.002)


def parse_name(name: str) -> tuple[str, str] | None:
    """(stamp, role) of a run's stream file name, or None when the runner did not name it."""
    match = NAME.match(name)
    return (match.group(1), match.group(2)) if match else None


def started_at(stamp: str) -> str:
    """20261130T094312123Z -> 2026-11-30T09:43:12.123Z ("" for a stamp that is not one)."""
    if len(stamp) < 19 or stamp[8:9] != "T":
        return ""
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]}.{stamp[15:18]}Z"


class RunFile:
    """One run's stream file: where it is, whose it is, when it started and in which role."""

    __slots__ = ("item", "path", "role", "stamp")

    path: Path
    item: str | None
    stamp: str
    role: str

    def __init__(self, path: Path, item: str | None, stamp: str, role: str) -> None:
        self.path = path
        self.item = item
        self.stamp = stamp
        self.role = role

    @classmethod
    def of(cls, path: Path, item: str | None = None) -> RunFile:
        """Any stream file (one named by the runner, or a `claude -p` file from elsewhere)."""
        stamp, role = parse_name(path.name) or ("", "")
        return cls(path, item, stamp, role)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunFile) and (self.path, self.item) == (other.path, other.item)

    def __hash__(self) -> int:
        return hash((self.path, self.item))

    def __repr__(self) -> str:
        return f"RunFile({self.item or 'repo'}, {self.path.name!r})"

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def lock(self) -> Path:
        return self.path.with_suffix(".lock")

    @property
    def started(self) -> str:
        return started_at(self.stamp)

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def live(self) -> bool:
        return lock_is_held(self.lock)

    def outcome(self) -> tuple[str, str]:
        return outcome(self.path)


def list_runs(paths: RepoPaths, item_id: str | None) -> list[RunFile]:
    """The item's runs (the repository's own when item_id is None), oldest first. A run is a stream
    file the runner named; anything else in the folder is not one of its runs."""
    folder = runs_dir(paths, item_id)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [RunFile(folder / name, item_id, *parsed) for name in names if (parsed := parse_name(name))]
    return sorted(found, key=lambda run: run.name)


def all_runs(paths: RepoPaths, limit: int = 500) -> list[RunFile]:
    """Every run of the repository, every item's and its own, newest first (at most limit)."""
    found = list_runs(paths, None)
    try:
        items = sorted(name for name in os.listdir(paths.items_dir) if name.startswith("H-"))
    except OSError:
        items = []
    for item_id in items:
        found += list_runs(paths, item_id)
    found.sort(key=lambda run: run.stamp, reverse=True)
    return found[:limit]


def pick(runs: list[RunFile], which: str | int | None) -> RunFile | None:
    """Run N (1 = oldest, -1 = latest), a run by its file name or stem, or the latest by default;
    None when there is no such run."""
    if not runs:
        return None
    if which is None:
        return runs[-1]
    text = str(which)
    if not text.lstrip("-").isdigit():
        return next((run for run in runs if text in (run.name, run.path.stem)), None)
    number = int(text)
    if number == 0 or abs(number) > len(runs):
        return None
    return runs[number - 1] if number > 0 else runs[number]


# -- live or ended -----------------------------------------------------------------------------


def lock_is_held(lock: Path) -> bool:
    """True when a runner holds its exclusive lock on `lock` (we never keep it).

    The probe asks for a *shared* lock: a runner's exclusive lock refuses it, while other probes'
    shared locks do not, so two probes at the same moment never mistake each other for a live run.
    Never blocks, never creates the file.
    """
    if not lock.exists():
        return False
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        try:
            with FileLock(str(lock), timeout=0):
                return False
        except Timeout:
            return True
    try:
        fd = os.open(str(lock), os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _held(paths: RepoPaths, item_id: str | None) -> Iterator[RunFile]:
    """The item's runs whose lock is held right now, oldest first. Read from the lock files: the
    runner takes a run's lock before its stream file exists."""
    folder = runs_dir(paths, item_id)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        parsed = parse_name(name[: -len(".lock")] + STREAM) if name.endswith(".lock") else None
        if parsed and lock_is_held(folder / name):
            yield RunFile((folder / name).with_suffix(STREAM), item_id, *parsed)


def live_runs(paths: RepoPaths, item_id: str | None) -> list[RunFile]:
    """The item's runs whose lock is held right now, oldest first."""
    return list(_held(paths, item_id))


def has_live_run(paths: RepoPaths, item_id: str | None) -> bool:
    """Is any run of the item live (one listing of its runs folder, stopping at the first)?"""
    return next(_held(paths, item_id), None) is not None


def judge(end: dict[str, Any] | None, last: dict[str, Any] | None, live: bool) -> tuple[str, str]:
    """(word, detail) of a run from its end line and its last line: "live" (its lock is held), "ok",
    "failed" (with the failure), "finished" (no runner end line, but the stream ends with Claude's
    own result line: a `claude -p` file from anywhere), or "died" (neither, and nobody holds the
    lock)."""
    if live:
        return "live", ""
    if end is not None:
        failure = end.get("failure")
        return ("failed", str(failure)) if failure else ("ok", "")
    if last is not None and last.get("type") == "result":
        bad = last.get("is_error") is True or str(last.get("subtype", "")).startswith("error")
        return "finished", ("its result line says it failed" if bad else "its result line; no runner end line")
    return "died", DIED


def outcome(stream: Path) -> tuple[str, str]:
    """How the run in `stream` stands: the one answer every face shows. From its lock, then its last
    lines only (its last line read whole, however long), never the whole file."""
    if lock_is_held(stream.with_suffix(".lock")):
        return "live", ""
    try:
        with open(stream, "rb") as handle:
            tail = _tail(handle, handle.seek(0, os.SEEK_END))
    except OSError:
        return "died", "the stream file cannot be read"
    end, last = None, None
    for raw in reversed(tail.splitlines()):
        if not raw.strip():
            continue
        record = _record(raw)
        if last is None:
            last = record if record is not None else {}
        if record is not None and record.get("type") == END_TYPE:
            end = record
            break
        if END_MARK not in tail:
            break
    return judge(end, last or None, False)


def _tail(handle: Any, size: int) -> bytes:
    """The file's last TAIL_BYTES, widened until its last line is whole (a long result line)."""
    window = TAIL_BYTES
    while True:
        start = max(0, size - window)
        handle.seek(start)
        data = handle.read(size - start)
        if start == 0 or b"\n" in data.rstrip():
            return data
        window *= 4


def _record(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def scan(path: Path) -> dict[str, Any]:
    """One read of a whole stream: its end line, result line and init facts (the last of each) and
    its line count."""
    found: dict[str, Any] = {"end": None, "result": None, "model": "", "lines": 0, "session_id": "", "cwd": ""}
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                found["lines"] += 1
                record = _record(raw) if b'"type"' in raw else None
                if record is None:
                    continue
                kind = record.get("type")
                if kind == END_TYPE:
                    found["end"] = record
                elif kind == "result":
                    found["result"] = record
                elif kind == "system" and record.get("subtype") == "init":
                    found["model"] = str(record.get("model") or "")
                    found["session_id"] = str(record.get("session_id") or "")
                    found["cwd"] = str(record.get("cwd") or "")
    except OSError:
        pass
    return found


def describe(run: RunFile, number: int) -> RunSummary:
    """One run as `hall trace --list` and an item's Runs tab show it (the whole file is read);
    number: its place in the listing (1 = oldest)."""
    from .run_results import RunSummary
    from .runner.usage import TOKEN_FIELDS, usage_rows

    found = scan(run.path)
    end = found["end"]
    word, detail = run.outcome()  # the one rule: the Runs views and take-over judge it the same way
    rows = usage_rows(found["result"], found["model"])
    return RunSummary(
        file=str(run.path),
        name=run.name,
        item=run.item,
        role=run.role,
        started=run.started,
        duration_ms=end.get("duration_ms") if end else None,
        exit_code=end.get("exit_code") if end else None,
        tokens=sum(row[key] for row in rows for key in TOKEN_FIELDS),
        cost_usd=round(sum(row["cost_usd"] for row in rows), 6),
        model=found["model"],
        outcome=f"failed: {detail}" if word == "failed" else word,
        detail=detail,
        failure=detail if word in ("failed", "died") else None,
        live=word == "live",
        lines=found["lines"],
        session_id=found["session_id"] or None,
        cwd=(end or {}).get("cwd") or found["cwd"] or None,
        run=number,
    )


def rows(paths: RepoPaths, item_id: str | None) -> list[RunSummary]:
    """Every run of the item, described and numbered, oldest first."""
    return [describe(run, number) for number, run in enumerate(list_runs(paths, item_id), start=1)]


# -- the end line ------------------------------------------------------------------------------


def end_record(
    role: str,
    item_id: str | None,
    *,
    exit_code: int | None,
    duration_ms: int | None,
    failure: str | None,
    cwd: str | None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "type": "hall_run_end",
        "role": role,
        "item": item_id,
        "exit_code": exit_code,
        "duration_ms": duration_ms,
        "failure": failure,
        "cwd": cwd,
        **extra,
    }


def append_end(stream: Path, record: dict[str, Any]) -> None:
    """Close a stream with its end line (after a newline, if a torn last line needs one)."""
    with open(stream, "ab+") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            torn = handle.read(1) != b"\n"
        else:
            torn = False
        handle.write((b"\n" if torn else b"") + (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))


def dead_runs(paths: RepoPaths, item_id: str | None) -> list[RunFile]:
    """The item's runs with no end line whose lock nobody holds: their runner died."""
    return [run for run in list_runs(paths, item_id) if not run.live() and scan(run.path)["end"] is None]


def close_dead(run: RunFile) -> bool:
    """Write the died end line on a dead run, once: under its lock taken with no wait (a runner that
    took it again is alive, not ours to close), and only while it still has no end line. True when
    this call closed it."""
    from .journal import acquire_fd

    lock = run.lock
    if os.name != "posix":  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        held = FileLock(str(lock), timeout=0)
        try:
            held.acquire()
        except Timeout:
            return False
        try:
            return _close_if_open(run)
        finally:
            held.release()
    try:
        fd = acquire_fd(lock, 0)
    except (TimeoutError, OSError):
        return False
    try:
        return _close_if_open(run)
    finally:
        os.close(fd)


def _close_if_open(run: RunFile) -> bool:
    if scan(run.path)["end"] is not None:
        return False
    append_end(
        run.path,
        end_record(run.role, run.item, exit_code=None, duration_ms=None, failure=DIED, cwd=None, recovered=True),
    )
    return True
