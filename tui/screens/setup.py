"""What the app shows before there is a building: not a git repo, or `hall init` never ran."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from hallmark.core.errors import HallError
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Static


class NotARepoScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", "Quit", id="setup.quit")]

    def __init__(self, where: Path) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Center(), Vertical(classes="setup-box"):
            yield Static("✗ Not a git repository", classes="setup-title")
            yield Static(
                f"{self.where} is not inside a git repository.\n\n"
                "Hallmark works on one repository at a time. Run `git init` there, or start\n"
                "the app with `hall tui --repo PATH`.",
                markup=False,
            )
        yield Footer()


class NotInitialisedScreen(Screen):
    """Offers `hall init` (the same core function the CLI calls)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("i,enter", "init", "Run hall init", id="setup.init"),
        Binding("escape", "app.quit", "Quit", id="setup.quit"),
    ]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        with Center(), Vertical(classes="setup-box"):
            yield Static("? Hallmark is not set up in this repository", classes="setup-title")
            yield Static(
                f"Repository: {self.root.name}\n\n"
                "`hall init` creates the state directory in .git/hallmark, writes a\n"
                ".hallmark.toml with the gates it detects, and adds the Hallmark section\n"
                "to CLAUDE.md. Nothing else in the repository changes.",
                markup=False,
            )
            yield Button("Run hall init  (i)", id="run-init", variant="primary")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_init()

    def action_init(self) -> None:
        from hallmark.core import setup_repo

        try:
            setup_repo.init(self.root)
        except HallError as exc:
            self.app.report_error(exc)  # type: ignore[attr-defined]
            return
        self.app.notify("hall init done", title="init")
        self.app.pop_screen()
        self.app.repo_initialised()  # type: ignore[attr-defined]
