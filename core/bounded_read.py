"""Every file Hallmark reads is a regular file of a size that fits its role: the one opener.

A `.hallmark.toml` that is a symlink to /dev/zero (it is tracked: a merged commit can make it one)
grew the gate hook to 4.4 GB in seconds, and a FIFO as the config or a journal hung every status,
doctor and SessionStart. So a read opens with O_NONBLOCK (opening a FIFO never waits for a writer),
checks the open file with fstat (regular, not a directory, a device or a FIFO), refuses a file over
its role's limit before reading a byte, and never reads more than the limit even if the file grows.
A refusal is an OSError naming the file, so every caller's `except OSError` treats it as unreadable.

Stdlib only (os, stat): the hook path reads the config and the journals through this.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

MIB = 1024 * 1024
CONFIG_LIMIT = 4 * MIB  # .hallmark.toml (20,000 gates are 250 KB)
JOURNAL_LIMIT = 512 * MIB  # one journal read (an item's or the repo's)
STATE_LIMIT = 16 * MIB  # Hallmark's own small state files (counters, sessions, caches, the item cache)
COPY_LIMIT = 64 * MIB  # a `[worktree] copy` file (a .env), hashed or copied
PERSON_FILE_LIMIT = 64 * MIB  # a person's file Hallmark edits a section of (CLAUDE.md, .claude/…)
CHECKPOINT_LIMIT = 1 * MIB  # `hall checkpoint set --from-file`
VERDICT_LIMIT = 16 * MIB  # `hall verdict --file`
IMPORT_LIMIT = 64 * MIB  # `hall library import --from / --craft`


class Refused(OSError):
    """A file not read: not a regular file, or over its limit. The message names the file."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(mode: int) -> str:
    """How a file that is not a regular file is described ("is a FIFO (named pipe), not a regular file")."""
    return f"is {_kind(mode)}, not a regular file"


def open_regular(path: str | os.PathLike[str]) -> int:
    """An fd open for reading on a regular file; a FIFO, a device or a directory is refused (the
    open itself never blocks). FileNotFoundError and other OSErrors pass through."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Refused(path, f"{not_regular(mode)}; Hallmark does not read it")
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(path: str | os.PathLike[str]) -> None:
    """Refuse (Refused) a path that exists and is not a regular file, without opening it (for a
    writer about to append: a FIFO there would block it or swallow the line)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise Refused(path, f"{not_regular(mode)}; Hallmark does not write it")


def _too_big(size: int, limit: int) -> str:
    return f"is {size:,} bytes, over the {limit:,}-byte limit for this file; Hallmark does not read it"


def read_bytes(path: str | os.PathLike[str], limit: int, *, offset: int = 0) -> bytes:
    """The file's bytes from offset on, at most `limit` of them, or Refused."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size - offset > limit:
            raise Refused(path, _too_big(size - offset, limit))
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        return _read_fd(fd, limit, path)
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, path: str | os.PathLike[str]) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while True:
        chunk = os.read(fd, min(1 * MIB, limit + 1 - got))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        got += len(chunk)
        if got > limit:  # it grew while we read
            raise Refused(path, _too_big(got, limit))


def read_text(path: str | os.PathLike[str], limit: int) -> str:
    """The file as UTF-8 text (UnicodeDecodeError when it is not), or Refused."""
    return read_bytes(path, limit).decode("utf-8")


def read_stream(stream: BinaryIO, limit: int, name: str) -> bytes:
    """At most `limit` bytes of an open stream (stdin), or Refused naming it."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise Refused(name, f"is over the {limit:,}-byte limit for this input; Hallmark does not read it")
    return data


def read_argument(given: str, limit: int, flag: str, usage: str) -> str:
    """The text of a file named on the command line (`-` for stdin); a file that cannot be read
    as UTF-8 text within its limit is a USAGE error naming the flag and the file (`usage`: the
    command again, for its next step)."""
    from .errors import HallError

    try:
        data = read_stream(sys.stdin.buffer, limit, "stdin") if given == "-" else read_bytes(given, limit)
        return data.decode("utf-8")
    except FileNotFoundError:
        raise HallError("USAGE", f"{flag} {given}: the file does not exist.", [usage]) from None
    except UnicodeDecodeError as exc:
        raise HallError(
            "USAGE", f"{flag} {given}: not UTF-8 text ({exc.reason} at byte {exc.start}).", [usage]
        ) from None
    except OSError as exc:
        reason = exc.reason if isinstance(exc, Refused) else (exc.strerror or str(exc))
        raise HallError("USAGE", f"{flag} {given}: {reason}.", [usage]) from None
