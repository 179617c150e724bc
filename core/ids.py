"""Item, question and session IDs: parsing what people type, allocating new ones under a lock,
and the one rule for a Claude Code session id (which names files). Import-light: hooks use it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import HallError

# (patterns as text, compiled by `re` on first use: the hook path imports this module for the session rule)
_ITEM = r"^(?:[hH]-?)?0*(\d{1,9})$"
_ITEM_DIR = r"^H-(\d+)$"
_QUESTION = r"^(?:[qQ]-?)?0*(\d{1,9})$"
# a Claude Code session id we accept: safe inside single quotes and as a file name (\Z, not $:
# `$` also matches before a trailing newline, and a newline would end the shell line it is put in)
SESSION_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,199}\Z")


def valid_session(session: object) -> bool:
    """Is this a session id we accept (the one rule for every place that takes one)?"""
    return isinstance(session, str) and SESSION_ID.match(session) is not None


def session_path(state_dir: Path, session: object) -> Path | None:
    """`<state>/sessions/<id>.json`, the session's binding and offsets; None for an id we refuse."""
    return Path(state_dir) / "sessions" / f"{session}.json" if valid_session(session) else None


def item_id(number: int) -> str:
    return f"H-{number:04d}"


def question_id(number: int) -> str:
    return f"Q-{number}"


def parse_item_id(text: str) -> str:
    """'42', 'H-42', 'h42' and 'H-0042' all mean H-0042."""
    match = re.match(_ITEM, str(text).strip())
    if not match or int(match.group(1)) == 0:
        raise HallError("USAGE", f"'{text}' is not an item ID (try 42, H-42 or H-0042).", ["hall status --all"])
    return item_id(int(match.group(1)))


def parse_question_id(text: str) -> str:
    match = re.match(_QUESTION, str(text).strip())
    if not match:
        raise HallError("USAGE", f"'{text}' is not a question ID (try Q-12).", ["hall inbox"])
    return question_id(int(match.group(1)))


def allocate(state_dir: Path, kind: str) -> int:
    """Next number for kind ('item', 'question'), under the counters' lock: unique across processes.

    The counter is checked against what exists every time: it never goes below what the item
    folders and journals already hold, so a lost or stale counters.json (one restored from an older
    backup) can never hand out an ID twice; and a counter past what an ID can be typed as (over
    nine digits, Infinity, garbage) is not trusted, so it cannot make every later item unaddressable.
    """
    from . import atomic, journal  # here, not at the top: the status line reads session ids only

    path = state_dir / "counters.json"
    with journal.locked(path):
        counters = atomic.read_json(path, {}) or {}
        if not isinstance(counters, dict):
            counters = {}
        current = _as_int(counters.get(kind))
        if current >= MAX_NUMBER:
            current = 0  # an ID no one could type: the journals decide
        if kind == "item":
            current = max(current, _highest_item(state_dir))
        elif kind == "question":
            current = max(current, _highest_question(state_dir))
        number = current + 1
        if number > MAX_NUMBER:
            raise HallError(
                "WRONG_STATE",
                f"{path}: the {kind} numbers have reached {MAX_NUMBER:,}; no further ID can be typed.",
                ["hall doctor"],
            )
        counters[kind] = number
        atomic.write_json(path, counters)
    return number


MAX_NUMBER = 999_999_999  # the largest number an item or question ID parses as (nine digits)


def _as_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return 0
    try:
        return max(0, int(value))
    except (TypeError, ValueError, OverflowError):  # Infinity, NaN, "1e999"
        return 0


def _highest_item(state_dir: Path) -> int:
    try:
        names = os.listdir(state_dir / "items")
    except FileNotFoundError:
        return 0
    numbers = [int(m.group(1)) for name in names if (m := re.match(_ITEM_DIR, name))]
    return max((n for n in numbers if n <= MAX_NUMBER), default=0)


_QID = rb'"qid":\s*"Q-(\d+)"'


def _highest_question(state_dir: Path) -> int:
    """The highest Q-N any journal mentions (a question's number is checked against it each time)."""
    from . import bounded_read

    highest = 0
    for path in [state_dir / "events.jsonl", *(state_dir / "items").glob("*/events.jsonl")]:
        try:
            data = bounded_read.read_bytes(path, bounded_read.JOURNAL_LIMIT)
        except OSError:
            continue
        for match in re.finditer(_QID, data):
            number = int(match.group(1))
            if number <= MAX_NUMBER:
                highest = max(highest, number)
    return highest


def slugify(title: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return (slug[:limit].rstrip("-")) or "work"
