"""Where everything stands at one moment: every item, what waits for you, each item's badge, the
stuck items and the rooms, computed once from one catch-up of the index.

The terminal app loads one Building per journal change (in a worker) and every screen draws from
it, so the footer's count, the floor, the boards, the triage list and an item's header can never
disagree. Each part is the core's one rule (core.waiting, core.watchman, core.rooms); this module
only asks each once. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import clock, rooms, waiting, watchman
from .states import ItemView

Badge = tuple[str, str, str]  # (kind, word, symbol) from core.waiting


@dataclass(frozen=True)
class Building:
    views: tuple[ItemView, ...] = ()
    by_id: Mapping[str, ItemView] = field(default_factory=dict)
    waiting: waiting.WaitingFor = field(default_factory=waiting.WaitingFor)
    badges: Mapping[str, Badge] = field(default_factory=dict)
    questions: Mapping[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)  # item -> open questions
    stuck: tuple[watchman.Stuck, ...] = ()
    rooms: Mapping[str, tuple[ItemView, ...]] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)  # state -> how many items
    now: str = ""  # the moment it was read (the core's clock)

    def badge(self, item_id: str) -> Badge | None:
        return self.badges.get(item_id)

    def reason(self, item_id: str) -> str:
        """Why the item waits for you ("" when it does not)."""
        return self.waiting.reasons.get(item_id, "")

    def open_questions(self, item_id: str) -> tuple[dict[str, Any], ...]:
        return self.questions.get(item_id, ())

    @property
    def stuck_ids(self) -> frozenset[str]:
        return frozenset(s.item for s in self.stuck)


def load(repo: Any) -> Building:
    """One Building from the index (one catch-up for every question asked of it)."""
    with repo.index.settled():
        now = clock.now()
        views = repo.index.items()
        questions: dict[str, list[dict[str, Any]]] = {}
        for q in repo.index.questions(open_only=True):
            if q["item"]:
                questions.setdefault(q["item"], []).append(q)
        waits = waiting.waiting_for_you(repo, views)
        badges = waiting.badges(repo, views, waits)
        stuck = watchman.stuck_items(repo, views=[v for v in views if not v.terminal], now=now)
        placed = rooms.assign(views, now, waits.reasons)
    counts: dict[str, int] = {}
    for view in views:
        counts[view.state] = counts.get(view.state, 0) + 1
    return Building(
        views=tuple(views),
        by_id={v.id: v for v in views},
        waiting=waits,
        badges=badges,
        questions={k: tuple(v) for k, v in questions.items()},
        stuck=tuple(stuck),
        rooms={k: tuple(v) for k, v in placed.items()},
        counts=counts,
        now=clock.stamp(now),
    )
