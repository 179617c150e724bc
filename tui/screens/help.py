"""?: every key binding, with its id (for `[tui] keymap`) and its current keys."""

from __future__ import annotations

from typing import ClassVar

from hallmark.tui.protocols import KeymapSource
from hallmark.tui.widgets.lists import VimTable
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


def binding_classes(app_class: type) -> list[tuple[str, type]]:
    """The classes whose keys the help lists. The app passes its own class in: screens sit below
    the app and never import it (import-linter's layers contract in pyproject.toml)."""
    from . import (
        board,
        diff,
        drain,
        floor,
        handoffs,
        inbox,
        item,
        items_list,
        modals,
        runs,
        setup,
        trace,
        usage,
    )

    return [
        ("everywhere", app_class),
        ("floor plan", floor.FloorScreen),
        ("boards", board.BoardScreen),
        ("triage list", items_list.ItemListScreen),
        ("item", item.ItemScreen),
        ("runs", runs.RunsScreen),
        ("trace", trace.TraceScreen),
        ("trace view", trace.TraceView),
        ("reflect drain", drain.DrainScreen),
        ("inbox", inbox.InboxScreen),
        ("usage", usage.UsageScreen),
        ("diff", diff.DiffScreen),
        ("handoffs", handoffs.HandoffsScreen),
        ("reason modal", modals.ReasonModal),
        ("confirm modal", modals.ConfirmModal),
        ("setup", setup.NotInitialisedScreen),
    ]


def all_bindings(app_class: type) -> list[tuple[str, Binding]]:
    out: list[tuple[str, Binding]] = []
    for where, cls in binding_classes(app_class):
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding):
                out.append((where, binding))  # noqa: PERF401 - a few dozen keys, listed in the order they are read
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("Keys — remap any by its id in [tui.keymap] of your config.toml", id="help-title")
            yield Label(
                "Each key means one thing everywhere: n is the next item waiting for you, t the runs "
                "(of the selected item, where there is one), ] and [ the next and previous thing in a "
                "view (a search hit, a file). A greyed key says why when pressed.",
                id="help-note",
            )
            yield VimTable(id="help-table")

    def __init__(self, app_class: type) -> None:
        super().__init__()
        self.app_class = app_class  # whose keys are "everywhere" (the app's own class, passed down)

    def on_mount(self) -> None:
        table = self.query_one(VimTable)
        table.add_fixed_columns(("where", 14), ("keys", 14), ("does", 18), ("id", None))
        keymap = self.app.settings if isinstance(self.app, KeymapSource) else None
        overrides = keymap.keymap if keymap else {}
        for where, binding in all_bindings(self.app_class):
            keys = overrides.get(binding.id or "", binding.key_display or binding.key)
            table.add_row(where, keys, binding.description or binding.action, binding.id or "")
        table.focus()
