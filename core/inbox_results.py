"""The inbox's rows (core/inbox.py): each escalation waiting for you, and each notice of what the
loop handles on its own. Light enough for the SessionStart hook, which counts the entries
(core/results.py imports only `types` and `typing`).

An entry's `next` is its own next steps (what answers or clears it), part of the entry as the
inbox shows it; the `next` of a whole reply is still the CLI's (tui/cli/inbox.py).
"""

from __future__ import annotations

from typing import ClassVar

from .results import Result


class InboxEntry(Result):
    """One escalation: kind, item (none for the repository), since, text, the key a dismissal
    remembers with the fingerprint of what it said, its own next steps, and its number (n) in
    `hall inbox` (for `--dismiss N`)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"n"})

    kind: str
    item: str | None
    since: str
    text: str
    key: str
    fingerprint: str
    next: tuple[str, ...]
    n: int | None = None

    def numbered(self, n: int) -> InboxEntry:
        """The same entry as `hall inbox` lists it, numbered from 1."""
        return type(self)(**{**self.field_values(), "n": n})


class QuestionEntry(InboxEntry):
    """An open question (`hall ask`): an entry with its qid, options and default (null for none)."""

    # the question's own keys follow the entry's, and its number comes last, as in every entry
    FIRST: ClassVar[tuple[str, ...]] = (
        "kind",
        "item",
        "since",
        "text",
        "key",
        "fingerprint",
        "next",
        "qid",
        "options",
        "default",
    )

    qid: str
    options: list[str]
    default: str | None


class Notice(Result):
    """News of what the loop handled on its own (a stuck item, a session waiting, a learning)."""

    kind: str
    item: str | None
    since: str | None
    text: str


class NoticeList(Result):
    """`hall inbox --notices`: the loop's notices, oldest first (never escalated)."""

    notices: tuple[Notice, ...]
    count: int


class InboxDismissed(Result):
    """`hall inbox --dismiss N` or `--clear`: the keys of the entries hidden until they change."""

    dismissed: list[str]
