"""What the checkpoint and note verbs (core/memory/checkpoint.py, core/memory/notes.py) answer:
typed results the faces read by attribute.

`to_dict()` gives the JSON reply's keys in the CLI's order, without `next` (tui/cli/notes.py adds
it). Light (core/results.py only): SessionStart reads the checkpoint on the hook path.

A checkpoint's fields stay a `dict[str, str]` keyed by the slot's own field names ("Next step"),
as the file writes them. A note stays a `dict[str, Any]`: it is its file's JSON front matter, an
open record (notes written before `recorded`/`valid_from` existed carry fewer keys, in another
order; a removed one carries `removed` and `removed_why`), and the reply shows it as written.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .results import Result


class CheckpointShown(Result):
    """`hall checkpoint show`: the project's checkpoint, or null with a message when none is recorded."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"message", "characters"})

    project: str
    checkpoint: dict[str, str] | None
    text: str | None
    message: str | None = None
    characters: int | None = None


class CheckpointWritten(Result):
    """`hall checkpoint set`: the checkpoint as written, and whether it replaced one."""

    project: str
    checkpoint: dict[str, str]
    text: str
    characters: int
    replaced: bool


class CheckpointVersion(Result):
    """One replaced (or current) version of the checkpoint, from its history folder."""

    file: str
    checkpoint: dict[str, str]


class CheckpointHistory(Result):
    """`hall checkpoint history`: every version kept, oldest first."""

    versions: tuple[CheckpointVersion, ...]
    count: int


class NoteReply(Result):
    """`hall note add|show|remove`: the note as its file records it (with `file`; `body` for show,
    `removed` for remove)."""

    note: dict[str, Any]


class NoteListing(Result):
    """`hall note list`: the notes (optionally of one facet, or as they held at a date) and the
    one-line index SessionStart injects for them."""

    notes: list[dict[str, Any]]
    index: list[str]
    count: int
