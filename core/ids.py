"""Item and question IDs: parsing what people type, and allocating new ones under a lock."""

from __future__ import annotations

import re
from pathlib import Path

from . import atomic, journal
from .errors import HallError

_ITEM = re.compile(r"^(?:[hH]-?)?0*(\d{1,9})$")
_QUESTION = re.compile(r"^(?:[qQ]-?)?0*(\d{1,9})$")


def item_id(number: int) -> str:
    return f"H-{number:04d}"


def question_id(number: int) -> str:
    return f"Q-{number}"


def parse_item_id(text: str) -> str:
    """'42', 'H-42', 'h42' and 'H-0042' all mean H-0042."""
    match = _ITEM.match(str(text).strip())
    if not match or int(match.group(1)) == 0:
        raise HallError("USAGE", f"'{text}' is not an item ID (try 42, H-42 or H-0042).", ["hall status --all"])
    return item_id(int(match.group(1)))


def parse_question_id(text: str) -> str:
    match = _QUESTION.match(str(text).strip())
    if not match:
        raise HallError("USAGE", f"'{text}' is not a question ID (try Q-12).", ["hall inbox"])
    return question_id(int(match.group(1)))


def allocate(state_dir: Path, kind: str) -> int:
    """Next number for kind ('item', 'question'); unique across processes."""
    path = state_dir / "counters.json"
    with journal.locked(path):
        counters = atomic.read_json(path, {}) or {}
        if kind == "item":
            # never reuse a number whose journal exists, even if counters.json was lost
            items_dir = state_dir / "items"
            highest = 0
            if items_dir.is_dir() and not counters.get(kind):
                for child in items_dir.iterdir():
                    match = _ITEM.match(child.name)
                    if match:
                        highest = max(highest, int(match.group(1)))
            counters[kind] = max(int(counters.get(kind, 0)), highest)
        number = int(counters.get(kind, 0)) + 1
        counters[kind] = number
        atomic.write_json(path, counters)
    return number


def slugify(title: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return (slug[:limit].rstrip("-")) or "work"
