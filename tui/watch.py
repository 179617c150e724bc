"""Notice when another process writes the state directory, cheaply and without inotify.

A poll of `stat` over the journals every 0.2 s: the repo journal, each item's events.jsonl,
the items folder itself (new items) and the library folder. The signature changes whenever
anything is appended, created, replaced or removed. Pure stdlib: it runs in a worker thread.
"""

from __future__ import annotations

import os
from pathlib import Path

POLL_SECONDS = 0.2


def _stat_key(path: str) -> tuple[int, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def signature(state_dir: Path) -> dict[str, tuple[int, int, int]]:
    """A map of watched path -> (size, mtime, inode). Two equal maps mean nothing changed."""
    sig: dict[str, tuple[int, int, int]] = {}
    root = str(state_dir)
    for name in ("events.jsonl", "items", "library", "inbox-dismissed.json"):
        path = os.path.join(root, name)
        sig[path] = _stat_key(path)
    items = os.path.join(root, "items")
    try:
        entries = os.scandir(items)
    except OSError:
        return sig
    with entries:
        for entry in entries:
            journal = os.path.join(entry.path, "events.jsonl")
            sig[journal] = _stat_key(journal)
    library = os.path.join(root, "library")
    try:
        lib_entries = os.scandir(library)
    except OSError:
        return sig
    with lib_entries:
        for entry in lib_entries:
            if entry.is_file():
                sig[entry.path] = _stat_key(entry.path)
    return sig


def changed(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> list[str]:
    """The paths that differ (added, removed or touched)."""
    out = [p for p, key in after.items() if before.get(p) != key]
    out.extend(p for p in before if p not in after)
    return out


def item_of(path: str) -> str | None:
    """items/H-0042/events.jsonl -> H-0042."""
    parts = Path(path).parts
    if len(parts) >= 3 and parts[-1] == "events.jsonl" and parts[-3] == "items":
        return parts[-2]
    return None
