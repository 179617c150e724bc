"""Small modal screens: ask for a reason, confirm a list, edit a longer text."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static, TextArea


class ReasonModal(ModalScreen[str | None]):
    """One line of text (a reason, an answer, an edited pattern). Enter submits; escape cancels.

    An empty submission is refused on the spot: the core needs a reason and would say so anyway.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="modal.cancel")]

    def __init__(
        self, title: str, prompt: str = "", *, value: str = "", placeholder: str = "reason", allow_empty: bool = False
    ) -> None:
        super().__init__()
        self.title_text = title
        self.prompt_text = prompt
        self.value = value
        self.placeholder = placeholder
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(id="modal-box"):
            yield Label(self.title_text, id="modal-title")
            if self.prompt_text:
                yield Static(self.prompt_text, id="modal-prompt", markup=False)
            yield Input(value=self.value, placeholder=self.placeholder, id="modal-input")
            yield Label("enter to confirm · escape to cancel", id="modal-hint")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.cursor_blink = False
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text and not self.allow_empty:
            self.query_one("#modal-hint", Label).update("✗ this needs some text (escape to cancel)")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmModal(ModalScreen[bool]):
    """Yes or no, with the list of what it applies to."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="modal-box"):
            yield Label(self.title_text, id="modal-title")
            with VerticalScroll(id="modal-list"):
                for line in self.lines:
                    yield Static(f"• {line}", markup=False)
            yield Label("y / enter: yes · n / escape: no", id="modal-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TextModal(ModalScreen[str | None]):
    """A text of several lines (a learning's pattern, edited before it is accepted): enter starts a
    new line, ctrl+s keeps it, escape cancels. Empty text is refused on the spot."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="text.save"),
        Binding("escape", "cancel", "Cancel", id="text.cancel"),
    ]

    def __init__(self, title: str, prompt: str = "", *, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt_text = prompt
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="modal-box", classes="-wide"):
            yield Label(self.title_text, id="modal-title")
            if self.prompt_text:
                yield Static(self.prompt_text, id="modal-prompt", markup=False)
            yield TextArea(self.value, id="modal-text", soft_wrap=True, show_line_numbers=False)
            yield Label("ctrl+s to keep · escape to cancel", id="modal-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.cursor_blink = False
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        text = self.query_one(TextArea).text.strip()
        if not text:
            self.query_one("#modal-hint", Label).update("✗ this needs some text (escape to cancel)")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
