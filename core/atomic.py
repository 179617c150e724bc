"""Atomic file writes: write a temp file beside the target, then rename over it."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
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
    fd, tmp = tempfile.mkstemp(dir=tmp_dir or path.parent, prefix=f"{prefix}{path.name}.", suffix=".tmp")
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


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def read_json(path: Path, default: Any = None) -> Any:
    from .bounded_read import STATE_LIMIT, read_bytes

    try:
        return json.loads(read_bytes(path, STATE_LIMIT).decode("utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return default
