"""Atomic file writes: write a temp file beside the target, then rename over it.

A person's file is theirs in every way, not only its bytes: a symlink (`CLAUDE.md -> AGENTS.md`)
is written through to its target and stays a symlink, and a file keeps its permission bits (a new
one gets the umask's, as any editor would give it; the temp file's 0600 never leaks out).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def write_text(
    path: Path,
    text: str,
    *,
    tmp_dir: Path | None = None,
    prefix: str = ".",
    mode: int | None = None,
    sync: bool = False,
) -> None:
    """tmp_dir: where the temp file goes (default: beside the file; ignored when on another device
    than the file); mode: the file's permission bits (default: the file's own, else the umask's);
    sync: fsync before the rename. A symlink at path is written through: its target is replaced."""
    target = Path(os.path.realpath(path)) if os.path.islink(path) else path
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = mode_of(target)
    where = tmp_dir if tmp_dir is not None and _same_device(tmp_dir, target.parent) else target.parent
    fd, tmp = _mkstemp(where, f"{prefix}{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            os.fchmod(handle.fileno(), mode)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def mode_of(path: Path) -> int:
    """The permission bits a rewrite of path keeps: its own, or for a new file the umask's."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~umask()


def umask() -> int:
    """The process umask, read without changing it where Linux says it (/proc), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _same_device(folder: Path, other: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return os.stat(folder).st_dev == os.stat(other).st_dev
    except OSError:
        return False


_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _mkstemp(directory: Path, prefix: str) -> tuple[int, str]:
    """tempfile.mkstemp's contract (a new file only this process opened, mode 0600), without
    importing tempfile: it pulls random, shutil, bz2 and lzma into every hook that writes state."""
    for _ in range(100):
        tmp = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, _FLAGS | getattr(os, "O_BINARY", 0), 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary name in {directory}")


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def read_json(path: Path, default: Any = None) -> Any:
    from .bounded_read import STATE_LIMIT, read_bytes

    try:
        return json.loads(read_bytes(path, STATE_LIMIT).decode("utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return default
