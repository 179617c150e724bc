"""What a notification says: the item, its title, the inbox kind, the question and its options, and
where to answer. Never code, diffs or logs; every text passes the secret scanner (core/secrets.py)
first, then is cut to a phone's length.

Vague text is the common complaint about notifications ("execution complete"), so the title names
the kind and the item, and the body is the question itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hallmark.core import secrets
from hallmark.core.inbox_results import InboxEntry, QuestionEntry

MAX_TEXT = 300  # a question or a title, after redaction
MAX_OPTIONS = 8
_FENCE = re.compile(r"```.*?(```|$)", re.DOTALL)
_INDENTED = re.compile(r"(?m)^(?: {4}|\t).*\n?")


@dataclass(frozen=True)
class Message:
    key: str  # the inbox entry's key ("digest" for a digest)
    fingerprint: str
    kind: str  # the inbox kind: question, escalated, ready?, a hold's kind, daemon stopped, digest
    item: str | None
    title: str  # the item's title ('' for the repository)
    text: str  # the question, or the entry's one line
    options: tuple[str, ...] = ()
    answer_with: str = "hall inbox"  # where a person answers: messages link, they never answer
    repo: str = ""
    reminder: int = 0  # 0 the first time, then 1, 2, …

    @property
    def headline(self) -> str:
        """`Hallmark · question · H-0042 · repo` (the kind first: what is wanted, not "execution complete")."""
        kind = "reminder: " + self.kind if self.reminder else self.kind
        parts = ["Hallmark", kind, *([self.item] if self.item else []), *([self.repo] if self.repo else [])]
        return " · ".join(parts)

    @property
    def body(self) -> str:
        lines = [f"{self.title}" if self.title else "", self.text]
        if self.options:
            lines.append("options: " + ", ".join(self.options))
        lines.append(f"answer: {self.answer_with}")
        return "\n".join(line for line in lines if line)


def clean(text: str, limit: int = MAX_TEXT) -> str:
    """No code blocks, no secrets, one paragraph, at most `limit` characters."""
    text = _FENCE.sub("[code not sent]", text or "")
    text = _INDENTED.sub("[code not sent]\n", text)
    text = " ".join(secrets.redact(text).split())
    return secrets.clip(text, limit) if len(text) > limit else text


def from_entry(entry: InboxEntry, title: str = "", repo: str = "") -> Message:
    """A message for one inbox entry. A question's text is the question without its options
    (they are listed apart); an escalation's is its one line minus the title it starts with."""
    if isinstance(entry, QuestionEntry):
        options = tuple(clean(o, 60) for o in entry.options[:MAX_OPTIONS])
        text = entry.text
        suffix = f" [{', '.join(entry.options)}]" if entry.options else ""
        if suffix and text.endswith(suffix):
            text = text[: -len(suffix)]
        answer = f"hall answer {entry.qid} <{'|'.join(options)}>" if options else f"hall answer {entry.qid} <answer>"
    else:
        options = ()
        text = entry.text
        if title and text.startswith(title + ": "):
            text = text[len(title) + 2 :]
        answer = entry.next[0] if entry.next else "hall inbox"
    return Message(
        key=entry.key,
        fingerprint=entry.fingerprint,
        kind=entry.kind,
        item=entry.item,
        title=clean(title, 120),
        text=clean(text),
        options=options,
        answer_with=clean(answer, 120),
        repo=clean(repo, 60),
    )


def digest(messages: list[Message], repo: str = "") -> Message:
    """One message for what quiet hours held: a line for each, oldest first."""
    lines = [f"{m.kind} {m.item or ''}: {m.text}".replace("  ", " ") for m in messages]
    return Message(
        key="digest",
        fingerprint="",
        kind="digest",
        item=None,
        title=f"{len(messages)} waiting for you (held during quiet hours)",
        text=clean("\n".join(lines), 1500) if lines else "",
        answer_with="hall inbox",
        repo=clean(repo, 60),
    )


def test_message(repo: str = "") -> Message:
    return Message(
        key="test",
        fingerprint="",
        kind="test",
        item=None,
        title="A test from hall notify test",
        text="If you read this, this channel reaches you.",
        answer_with="nothing to answer",
        repo=clean(repo, 60),
    )


# ntfy's priority (1 min … 5 max) and tags (emoji short codes) by inbox kind: urgent for what
# blocks on you, default for what can wait
PRIORITY = {"question": "high", "escalated": "high", "daemon stopped": "high", "digest": "default", "test": "low"}
TAGS = {
    "question": "question",
    "escalated": "warning",
    "ready?": "white_check_mark",
    "daemon stopped": "rotating_light",
    "digest": "inbox_tray",
    "test": "test_tube",
}


def priority(kind: str) -> str:
    return PRIORITY.get(kind, "default")


def tags(kind: str) -> str:
    return ",".join(["hallmark", TAGS.get(kind, "pause_button")])
