"""Items whose journal is gone, empty or holds no creation event: damaged, never silently hidden.

The journal is the source of truth, so an item folder without a readable history cannot be
folded into a state; `hall status --all` and `hall doctor` name it (with its last cached title
and state from item.json, which is only a cache) instead of dropping it. Stdlib only.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from . import journal
from .paths import RepoPaths

_ITEM = re.compile(r"^H-\d{4,}$")
CREATION = ("created", "adopted")


def _cached(folder: str) -> dict[str, Any]:
    try:
        with open(os.path.join(folder, "item.json"), encoding="utf-8") as handle:
            data = json.load(handle)
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
            size = os.stat(path).st_size
        except FileNotFoundError:
            if os.path.isdir(folder):
                out.append(_entry(name, folder, "its journal (events.jsonl) is missing"))
            continue
        if size == 0:
            out.append(_entry(name, folder, "its journal is empty"))
            continue
        from pathlib import Path

        events = journal.read(Path(path)).events
        if not any(e.get("event") in CREATION for e in events):
            what = "holds no readable event" if not events else "has lost its creation event"
            out.append(_entry(name, folder, f"its journal {what}"))
    return out
