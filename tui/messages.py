"""Messages that workers post to the UI. Only their handlers touch widgets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from hallmark.core.building import Building
    from hallmark.core.results import Result


@dataclass
class JournalChanged(Message):
    """Another process (or this one) wrote the state directory. A ping: the changes themselves
    wait in the watcher's set until the handler takes them all (tui/watch.Changes), so two changes
    in one tick are both seen, whichever message Textual keeps."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JournalChanged)


@dataclass
class BuildingLoaded(Message):
    """A fresh core.building.Building, loaded by a worker: every screen draws from it."""

    building: Building
    changed: frozenset[str] | None = None  # the items that changed since the last one (None: anything)


@dataclass
class CoreDone(Message):
    """A core call made by a key binding finished: its typed result (a dict from the verbs that
    still answer with one) or its HallError."""

    label: str
    result: Result | dict[str, Any] | None = None
    error: Exception | None = None
    item: str | None = None


@dataclass
class DataLoaded(Message):
    """A screen's own data, loaded by a worker."""

    key: str
    data: Any = None
    error: Exception | None = None
    generation: int = 0  # which load it answers: an older one is dropped
    extra: dict[str, Any] = field(default_factory=dict)
