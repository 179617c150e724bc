"""The triage keys on a selected item (r p d R a e t D, enter), for every screen that has one:
the board, the triage list and an item's detail. The actions themselves live in tui/triage.py.

A key that does not apply to the selected item (or whose program is missing) is greyed in the
footer but still answers when pressed, saying why: a key never does nothing silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hallmark.core.states import ItemView
from hallmark.tui import triage
from textual.binding import Binding

if TYPE_CHECKING:  # its host: to a type checker the mixin is the HallScreen it is mixed into
    from .base import HallScreen as _Host
else:
    _Host = object

TRIAGE_BINDINGS = [Binding(a.key, a.name, a.label, id=a.binding_id) for a in triage.ACTIONS]


class TriageKeys(_Host):
    """Mixin for a HallScreen that can say which item is selected (it uses the screen's `hall`,
    `building`, `notify`; the actions themselves take the app as tui.protocols.HallmarkAppLike)."""

    def selected(self) -> ItemView | None:
        return None

    def current_item_id(self) -> str | None:
        """The item `n` (app.next_waiting) counts from."""
        view = self.selected()
        return view.id if view else None

    def greyed(self, action: str) -> bool:
        if action not in triage.NAMES:
            return False
        view = self.selected()
        if view is None:
            return action != "runs"
        if triage.unavailable(action):
            return True
        return not triage.applies(action, view, self.building)

    def _act(self, name: str) -> None:
        view = self.selected()
        if view is None:
            if name == "runs":
                self.app.call_later(self.hall.show_runs, None)
                return
            self.notify("No item selected.", severity="warning")
            return
        triage.act(self.hall, name, view)

    def action_open_item(self) -> None:
        self._act("open_item")

    def action_ready(self) -> None:
        self._act("ready")

    def action_pull_back(self) -> None:
        self._act("pull_back")

    def action_drop(self) -> None:
        self._act("drop")

    def action_retry(self) -> None:
        self._act("retry")

    def action_answer(self) -> None:
        self._act("answer")

    def action_open_editor(self) -> None:
        self._act("open_editor")

    def action_runs(self) -> None:
        self._act("runs")

    def action_diff(self) -> None:
        self._act("diff")

    def open_questions(self, item_id: str) -> tuple[dict[str, Any], ...]:
        building = self.building
        return building.open_questions(item_id) if building else ()
