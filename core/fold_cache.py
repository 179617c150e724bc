"""A per-item folded snapshot, so a hook never re-reads a whole journal.

The edit gate folds the item's journal on every Edit; an item of 10,000 events made that 34 ms a
call. A journal is append-only (core/journal.py), so the fold of its first N bytes never changes:
`<state>/items/<id>/fold.json` keeps the view folded up to a byte offset, and a lookup folds only
the events appended after it, with `states.apply` (the one fold), onto that view.

The snapshot is only a cache of the journal, trusted while the bytes it was folded from are still
there: the same inode, a size not below its offset, the same first and last bytes before the offset
(a rewritten or truncated journal changes them), the same mtime when nothing was appended, and the
same fold code (the stat of core/states.py, so an upgrade or an edit of the fold refolds). Anything
else refolds from the start and writes a new snapshot. Writes are atomic (a temp file renamed over
it) and best effort: a snapshot that cannot be written costs the next call a full fold, nothing else.
Stdlib only and no typing at run time: this runs on every gated tool call.
"""

from __future__ import annotations

import contextlib
import json
import os

from . import journal, states
from .bounded_read import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SNAPSHOT_NAME = "fold.json"
VERSION = 1
EDGE_BYTES = 256  # the journal's first and last bytes before the offset, kept to spot a rewrite
MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024  # a view is a few KB; anything bigger is not ours


def snapshot_path(journal_path: Path) -> Path:
    return journal_path.with_name(SNAPSHOT_NAME)


def _fold_code() -> list[int]:
    """What identifies the fold's code: core/states.py's size and mtime (a changed fold refolds)."""
    try:
        st = os.stat(states.__file__)
    except (OSError, TypeError):
        return [VERSION]
    return [VERSION, st.st_size, st.st_mtime_ns]


def _edges(fd: int, offset: int) -> str:
    """The first and the last EDGE_BYTES bytes before offset, as hex (one string)."""
    head = os.pread(fd, min(EDGE_BYTES, offset), 0)
    start = max(0, offset - EDGE_BYTES)
    tail = os.pread(fd, offset - start, start)
    return head.hex() + ":" + tail.hex()


def _load(path: Path) -> dict[str, Any] | None:
    """The snapshot's record when it is whole and of this version, else None (never raises)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SNAPSHOT_BYTES + 1)
        record = json.loads(data) if len(data) <= MAX_SNAPSHOT_BYTES else None
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("v") != VERSION or not isinstance(record.get("view"), dict):
        return None
    for key in ("ino", "offset", "lines", "mtime_ns"):
        if type(record.get(key)) is not int:
            return None
    return record if isinstance(record.get("edges"), str) and isinstance(record.get("code"), list) else None


def _restored(record: dict[str, Any], item_id: str) -> states.ItemView | None:
    try:
        view = states.ItemView.from_dict(record["view"])
    except (KeyError, TypeError, ValueError):
        return None
    return view if view.id == item_id else None


def _write(path: Path, record: dict[str, Any]) -> None:
    """Atomically, best effort (see the module docstring)."""
    try:
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return  # a value the fold kept that JSON cannot hold: no snapshot, a full fold next time
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def folded(journal_path: Path, item_id: str) -> states.ItemView | None:
    """The item's view, equal to `states.fold(item_id, journal.read(journal_path).events)`; None
    when there is no journal. Reads only what was appended since the snapshot was written."""
    try:
        fd = open_regular(journal_path)  # a FIFO never blocks, a directory is not folded (bounded_read)
    except FileNotFoundError:
        return None
    except OSError:  # not readable: the plain read says why, as it always has
        return states.fold(item_id, journal.read(journal_path).events)
    try:
        return _folded(fd, journal_path, item_id)
    finally:
        os.close(fd)


def _folded(fd: int, journal_path: Path, item_id: str) -> states.ItemView:
    st = os.fstat(fd)
    snap_path = snapshot_path(journal_path)
    code = _fold_code()
    record = _load(snap_path)
    view = None
    offset = lines = 0
    if record is not None and record["ino"] == st.st_ino and record["code"] == code:
        offset, lines = record["offset"], record["lines"]
        appended_or_same = st.st_size > offset or st.st_mtime_ns == record["mtime_ns"]
        if offset <= st.st_size and appended_or_same and _edges(fd, offset) == record["edges"]:
            view = _restored(record, item_id)
    if view is None:
        view, offset, lines, record = states.ItemView(id=item_id), 0, 0, None
    elif st.st_size == offset:
        return view  # nothing appended: one stat and two small reads, no parse
    result = journal.read(journal_path, offset, lines)
    try:
        same = os.stat(journal_path).st_ino == st.st_ino
    except OSError:
        same = False
    if not same:  # replaced or removed while we read: fold what is there now
        return states.fold(item_id, journal.read(journal_path).events)
    for event in result.events:
        states.apply(view, event)
    if record is None or result.offset != offset:
        after = os.fstat(fd)
        _write(
            snap_path,
            {
                "v": VERSION,
                "code": code,
                "ino": after.st_ino,
                "offset": result.offset,
                "lines": result.lines,
                # the mtime vouches for the content only when nothing was appended after the read
                "mtime_ns": after.st_mtime_ns if after.st_size == result.offset else 0,
                "edges": _edges(fd, result.offset),
                "view": view.to_dict(),
            },
        )
    return view
