"""Following a run stream as it grows: whole lines only, from where the last read stopped.

The one follower beneath both `hall trace --follow` (which prints steps as they come) and the app's
trace view (a worker thread that indexes line ends), as toolong's `log_file.py` sits beneath its
view. It keeps the offset of the next unread line, notices a file that shrank or was replaced (the
inode changed) and starts again from 0, leaves a half-written last line for the next read, probes
the runner's lock (live or not), and remembers whether the end line has gone by. No Textual.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from hallmark.core import runs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

CHUNK = 8 * 1024 * 1024  # read at most this much at a time (a line longer than this is read whole)


class StreamFollower:
    """One stream file followed from its start. Not thread-safe: one owner polls it."""

    def __init__(self, path: str | os.PathLike[str], *, lock: Path | None = None, chunk: int = CHUNK) -> None:
        self.path = Path(path)
        self.lock = Path(lock) if lock is not None else self.path.with_suffix(".lock")
        self.chunk = chunk
        self.offset = 0  # where the next unread (whole) line starts
        self.size = 0  # the file's size at the last check
        self.inode: int | None = None
        self.last = b""  # the last whole line read (without its newline)
        self.saw_end = False  # a `hall_run_end` line has been read
        self._live: bool | None = None
        self._probed = 0.0
        self._times_size = -1

    # -- the file ------------------------------------------------------------------------------
    def check(self) -> bool:
        """Stat the file. True when it shrank or was replaced since the last check: the follower then
        starts again from its first line (the caller drops what it built from the old one)."""
        try:
            st = os.stat(self.path)
        except OSError:
            self.size = 0
            return False
        reset = self.inode is not None and (st.st_ino != self.inode or st.st_size < self.offset)
        self.inode, self.size = st.st_ino, st.st_size
        if reset:
            self.offset, self.last, self.saw_end = 0, b"", False
        return reset

    @property
    def pending(self) -> bool:
        """Bytes past the last whole line read (a new line, or the start of one)."""
        return self.size > self.offset

    def read(self, cancelled: Callable[[], bool] | None = None) -> Iterator[tuple[int, bytes]]:
        """(file offset, whole lines) for what was written since the last read, a chunk at a time; a
        half-written last line stays for the next read. Moves the offset past what it yields."""
        try:
            handle = open(self.path, "rb", buffering=0)  # noqa: SIM115 - only the open is guarded; `with handle` closes it
        except OSError:
            return
        with handle:
            handle.seek(self.offset)
            carry = b""
            while not (cancelled and cancelled()):
                data = handle.read(self.chunk)
                if not data:
                    return
                data = carry + data
                cut = data.rfind(b"\n") + 1
                if not cut:  # no newline yet: one long line, or a half-written one
                    carry = data
                    continue
                whole, carry = data[:cut], data[cut:]
                start = self.offset
                self.offset += len(whole)
                self._saw(whole)
                yield start, whole

    def rest(self) -> bytes:
        """Everything after the last whole line read, a torn last line included (the final read of a
        run whose writer has gone); moves the offset to the end."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return b""
        self.offset += len(data)
        if data:
            self._saw(data if data.endswith(b"\n") else data + b"\n")
        return data

    def tail(self, limit: int) -> tuple[int, bytes] | None:
        """The whole lines within the file's last `limit` bytes, as (offset of the first, lines): the
        end of a huge stream, to show before the whole file is read. Leaves the offset alone."""
        start = max(0, self.size - limit)
        try:
            with open(self.path, "rb", buffering=0) as handle:
                handle.seek(start)
                data = handle.read(limit)
        except OSError:
            return None
        first = data.find(b"\n") + 1 if start else 0
        cut = data.rfind(b"\n") + 1
        if (first <= 0 and start) or cut <= first:
            return None
        return start + first, data[first:cut]

    def _saw(self, whole: bytes) -> None:
        end = len(whole) - 1
        begin = whole.rfind(b"\n", 0, end) + 1
        self.last = whole[begin:end]
        if runs.END_MARK in whole:
            self.saw_end = True

    # -- the run ---------------------------------------------------------------------------------
    def live(self, max_age: float = 0.0) -> bool:
        """Does the runner hold the run's lock? Probed at most once per max_age seconds."""
        now = time.monotonic()
        if self._live is None or now - self._probed >= max_age:
            self._live = runs.lock_is_held(self.lock)
            self._probed = now
        return self._live

    def stopped(self) -> str:
        """Why nothing more will come once the lock is free: "released" (a runner held it and let go,
        without an end line) or "unlocked" (no runner ever held this file)."""
        return "released" if self.lock.exists() else "unlocked"

    def times_if_changed(self) -> dict[int, int] | None:
        """The runner's arrival times (core/runner/trace.read_times) when its `.times` file changed
        since the last call; None when it did not."""
        from . import trace

        try:
            size = os.stat(trace.times_path(self.path)).st_size
        except OSError:
            size = -1
        if size == self._times_size:
            return None
        self._times_size = size
        return trace.read_times(self.path) if size > 0 else None
