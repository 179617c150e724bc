"""The command palette's item commands: "Go to H-0042" and every triage action on any item.

They read the app's Building (no I/O while you type) and run the same code as the keys
(tui/triage.py). With a thousand items, every item is a "go to" candidate, but actions are
offered only for the items that already match, so a keystroke stays cheap.
"""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from . import triage

if TYPE_CHECKING:
    from hallmark.core.states import ItemView

    from .app import HallmarkApp

ACTION_ITEMS = 12  # items whose actions are offered for one query


def ids_in(query: str) -> list[str]:
    """Item ids a query names: "42", "H-42" and "H-0042" all name H-0042."""
    return [f"H-{int(n):04d}" for n in re.findall(r"(?:^|[^0-9])(\d{1,6})(?![0-9])", query)]


def _title(view: ItemView) -> str:
    return view.title or "(untitled)"


def ranked(matcher_score: float, query: str, text: str, title: str = "") -> float:
    """The fuzzy score, except that a hit whose text starts with what was typed, or whose item's
    title is exactly it, comes first ("runs of 8" is Runs of H-0008, not Go to H-0008)."""
    typed = " ".join(query.lower().split())
    if typed and (text.lower().startswith(typed) or typed == title.lower()):
        return 1.0
    return min(matcher_score, 0.99)


class ItemCommands(Provider):
    @property
    def hall(self) -> HallmarkApp:
        return self.app  # type: ignore[return-value]

    async def discover(self) -> Hits:
        building = self.hall.building
        if building is None:
            return
        for item_id in building.waiting.items[:10]:
            view = building.by_id.get(item_id)
            if view is not None:
                yield DiscoveryHit(
                    f"Go to {view.id}: {_title(view)}",
                    partial(self.hall.open_item, view.id),
                    help=f"◆ waiting for you: {building.reason(view.id)}",
                )

    async def search(self, query: str) -> Hits:
        building = self.hall.building
        if building is None or not query.strip():
            return
        matcher = self.matcher(query)
        matched: list[tuple[float, ItemView]] = []
        for view in building.views:
            text = f"Go to {view.id}: {_title(view)}"
            score = matcher.match(text)
            if score > 0:
                score = ranked(score, query, text, _title(view))
                matched.append((score, view))
                yield Hit(
                    score,
                    matcher.highlight(text),
                    partial(self.hall.open_item, view.id),
                    help=f"{view.state.replace('_', ' ')} · open its detail",
                )
        matched.sort(key=lambda pair: -pair[0])
        named = [building.by_id[i] for i in ids_in(query) if i in building.by_id]  # "drop 42", "retry H-0042"
        candidates = list({v.id: v for v in [*named, *(v for _s, v in matched[:ACTION_ITEMS])]}.values())
        for view in candidates:
            for action in triage.ACTIONS:
                if not triage.applies(action.name, view, building):
                    continue
                text = action.palette.format(id=view.id, title=_title(view)) + f" ({_title(view)})"
                score = matcher.match(text)
                if score > 0:
                    score = ranked(score, query, text)
                    yield Hit(
                        score,
                        matcher.highlight(text),
                        partial(triage.act, self.hall, action.name, view),
                        help=f"{action.help} [{action.key}]",
                    )
