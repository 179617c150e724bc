"""Items whose journal is gone, empty or holds no creation event: damaged, never silently hidden.

The journal is the source of truth, so an item folder without a readable history cannot be
folded into a state; `hall status --all` and `hall doctor` name it (with its last cached title
and state from item.json, which is only a cache) instead of dropping it. Stdlib only.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from . import journal
from .bounded_read import STATE_LIMIT, not_regular, read_bytes
from .paths import RepoPaths

_ITEM = re.compile(r"^H-\d{4,}$")
CREATION = ("created", "adopted")


def _cached(folder: str) -> dict[str, Any]:
    try:
        data = json.loads(read_bytes(os.path.join(folder, "item.json"), STATE_LIMIT))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _entry(item: str, folder: str, problem: str) -> dict[str, Any]:
    cache = _cached(folder)
    return {
        "item": item,
        "state": "damaged",
        "problem": problem,
        "title": str(cache.get("title") or ""),
        "last_known_state": cache.get("state"),
        "fix": f"restore {folder}/events.jsonl from a backup, or move {folder} aside (hall doctor)",
    }


def damaged_items(paths: RepoPaths, known: set[str] | None = None) -> list[dict[str, Any]]:
    """Item folders without a usable journal. With `known` (ids the index folded with a creation
    event), only the other folders are opened, so this stays cheap for `hall status`."""
    items_dir = str(paths.items_dir)
    try:
        names = sorted(n for n in os.listdir(items_dir) if _ITEM.match(n))
    except FileNotFoundError:
        return []
    out = []
    for name in names:
        if known is not None and name in known:
            continue
        folder = os.path.join(items_dir, name)
        path = os.path.join(folder, "events.jsonl")
        try:
            info = os.stat(path)
        except FileNotFoundError:
            if os.path.isdir(folder):
                out.append(_entry(name, folder, "its journal (events.jsonl) is missing"))
            continue
        except OSError as exc:  # a symlink loop, a folder we may not enter
            out.append(_entry(name, folder, f"its journal cannot be read ({exc.strerror or exc})"))
            continue
        if not stat.S_ISREG(info.st_mode):  # a directory or a FIFO: never opened (it would hang or fail)
            out.append(_entry(name, folder, f"its journal {not_regular(info.st_mode)}"))
            continue
        size = info.st_size
        if size == 0:
            out.append(_entry(name, folder, "its journal is empty"))
            continue
        from pathlib import Path

        found = journal.read(Path(path))
        events = found.events
        whole = [b.reason for b in found.bad if b.line == 0]  # the file itself was refused (too big)
        if whole:
            out.append(_entry(name, folder, whole[0].replace("the journal", "its journal", 1)))
        elif not any(e.get("event") in CREATION for e in events):
            what = "holds no readable event" if not events else "has lost its creation event"
            out.append(_entry(name, folder, f"its journal {what}"))
    return out
