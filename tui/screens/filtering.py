"""`/` on a screen with a list: a one-line filter that narrows it as you type; enter keeps it, escape
clears it. Shared by the board and the triage list (the screens say what the field is called,
how to redraw, and where the cursor goes after)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

if TYPE_CHECKING:  # its host: to a type checker the mixin is the HallScreen it is mixed into
    from .base import HallScreen as _Host
else:
    _Host = object


class FilterKeys(_Host):
    """Mixin for a HallScreen with a hidden Input #<FILTER_ID> and a `filter_text` it draws with."""

    FILTER_ID = ""
    filter_text = ""

    def filter_field(self) -> Input:
        return self.query_one(f"#{self.FILTER_ID}", Input)

    def action_filter(self) -> None:
        field = self.filter_field()
        field.remove_class("-hidden")
        field.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != self.FILTER_ID:
            return
        self.filter_text = event.value.strip()
        if self.building is not None:
            self.draw(self.building)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == self.FILTER_ID:
            self.filter_done()

    def filter_done(self) -> None:
        """Enter: keep the filter; the cursor goes back to the list."""

    def clear_filter(self) -> bool:
        """Escape: clear and hide the filter if there is one (True), else nothing to do (False)."""
        field = self.filter_field()
        if self.focused is not field and not self.filter_text:
            return False
        field.value = ""
        self.filter_text = ""
        field.add_class("-hidden")
        if self.building is not None:
            self.draw(self.building)
        self.filter_done()
        return True
