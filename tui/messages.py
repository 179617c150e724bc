"""Messages that workers post to the UI. Only their handlers touch widgets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


@dataclass
class JournalChanged(Message):
    """Another process (or this one) wrote the state directory."""

    paths: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JournalChanged)


@dataclass
class CoreDone(Message):
    """A core call made by a key binding finished: its result dict or its HallError."""

    label: str
    result: dict[str, Any] | None = None
    error: Exception | None = None
    item: str | None = None


@dataclass
class DataLoaded(Message):
    """A screen's data, loaded by a worker."""

    key: str
    data: Any = None
    error: Exception | None = None


@dataclass
class WaitingCounted(Message):
    """How many items wait for you, counted by a worker (core.waiting.waiting_items)."""

    count: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WaitingCounted)
