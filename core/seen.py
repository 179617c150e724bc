"""Seen marks per person: when you last looked at each item, kept in the user data directory.

The journal is shared by everyone working on a repository; what *you* have looked at is not, so it
lives in the user data dir (HALLMARK_DATA_DIR overrides), keyed by the repository's git common dir.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import atomic, clock
from .paths import user_data_dir


def seen_path() -> Path:
    return user_data_dir() / "seen.json"


def _repo_key(repo: Any) -> str:
    return os.path.realpath(repo.paths.common_dir)


def _load() -> dict[str, Any]:  # the file as read: each repo's marks are checked where used
    data = atomic.read_json(seen_path(), default={})
    return data if isinstance(data, dict) else {}


def seen_marks(repo: Any) -> dict[str, str]:
    """item id -> the time (journal stamp) you last looked at it."""
    marks = _load().get(_repo_key(repo), {})
    return {k: str(v) for k, v in marks.items()} if isinstance(marks, dict) else {}


def last_seen(repo: Any, item_id: str) -> str | None:
    return seen_marks(repo).get(item_id)


def mark_seen(repo: Any, item_id: str, when: str | None = None) -> str:
    """Remember that you looked at the item now; returns the stamp written."""
    from . import journal

    stamp = when or clock.stamp()
    path = seen_path()
    with journal.locked(path, timeout=10):
        data = _load()
        marks = data.setdefault(_repo_key(repo), {})
        if not isinstance(marks, dict):
            marks = data[_repo_key(repo)] = {}
        if marks.get(item_id, "") < stamp:
            marks[item_id] = stamp
        atomic.write_json(path, data)
    return stamp
