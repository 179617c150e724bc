"""Writing a file in the person's repository without touching anything Hallmark did not write.

Promotion edits files a person owns (CLAUDE.md, .claude/…), so a write here:
- keeps the file's mode (a plain temp file would turn 644 into 600);
- keeps its bytes: text is read and written as bytes decoded as UTF-8, never through universal
  newlines, so CRLF files stay CRLF;
- writes its temp file in Hallmark's state dir (inside .git) when that is on the same device, so
  a crash mid-write never leaves a stray file in the repo's visible tree. Only when .git lives on
  another device does the temp file go beside the target, under a hidden `.hallmark-…tmp` name
  that `sweep_temp` removes (reconcile and doctor call it).
Stdlib only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hallmark.core import atomic
from hallmark.core.errors import HallError

TEMP_PREFIX = ".hallmark-"
TEMP_SUFFIX = ".tmp"


def read_text(path: Path) -> str | None:
    """The file's text exactly (no newline translation), None when absent; refuses non-UTF-8."""
    from hallmark.core.bounded_read import PERSON_FILE_LIMIT, Refused, read_bytes

    try:
        data = read_bytes(path, PERSON_FILE_LIMIT)  # never a FIFO or /dev/zero behind a symlink
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise HallError(
            "WRONG_STATE", f"{path} is a directory, not a file; nothing was changed.", [f"look at {path}"]
        ) from None
    except Refused as exc:
        raise HallError("WRONG_STATE", f"{path} {exc.reason}; nothing was changed.", [f"look at {path}"]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HallError(
            "WRONG_STATE",
            f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "Hallmark does not edit it. Nothing was changed.",
            [f"check the encoding of {path}"],
        ) from exc


def newline_of(text: str) -> str:
    """The file's line ending: CRLF when most of its lines end so, else LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _temp_dir(target_dir: Path, state_tmp: Path | None) -> Path:
    if state_tmp is not None:
        try:
            state_tmp.mkdir(parents=True, exist_ok=True)
            if os.stat(state_tmp).st_dev == os.stat(target_dir).st_dev:
                return state_tmp
        except OSError:
            pass
    return target_dir


def write_text(path: Path, text: str, *, state_tmp: Path | None) -> None:
    """Replace path with text atomically, keeping its mode (new files get the umask's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = _default_mode()
    atomic.write_text(path, text, tmp_dir=_temp_dir(path.parent, state_tmp), prefix=TEMP_PREFIX, mode=mode, sync=True)


def sweep_temp(folders: list[Path]) -> list[str]:
    """Remove temp files a crash left behind in these folders (not recursive). Returns their paths."""
    removed = []
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                try:
                    os.unlink(folder / name)
                    removed.append(str(folder / name))
                except OSError:
                    continue
    return removed
