"""Notice when another process writes the state directory, cheaply and without inotify.

A poll of `stat` over the journals every 0.2 s: the repo journal, each item's events.jsonl,
the items folder itself (new items), the library folder and the inbox's dismissals. The signature
changes whenever anything is appended, created, replaced or removed. Pure stdlib: it runs in a
worker thread.

What changed is merged into one `Changes` set that the UI takes whole when it gets round to it:
however many polls happen before the UI handles the ping, no change is lost.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

POLL_SECONDS = 0.2
REPO = "(repo)"  # a change that is not one item's: the repo journal, a new item, the library, dismissals


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


class Changes:
    """What changed since the UI last looked: item ids, and REPO for anything else. Thread-safe.

    add() returns True when the set was empty (the caller posts one ping); take() empties it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: set[str] = set()

    def add(self, paths: list[str]) -> bool:
        found = {item_of(p) or REPO for p in paths}
        with self._lock:
            was_empty = not self._items
            self._items |= found
            return was_empty and bool(found)

    def take(self) -> frozenset[str]:
        with self._lock:
            out, self._items = frozenset(self._items), set()
        return out
