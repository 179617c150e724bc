"""Atomic file writes: write a temp file beside the target, then rename over it."""

from __future__ import annotations

import contextlib
import json
import os
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
    """tmp_dir: where the temp file goes (default: beside path); mode: the file's permission bits
    (default: mkstemp's 0600); sync: fsync before the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _mkstemp(tmp_dir or path.parent, f"{prefix}{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return default
