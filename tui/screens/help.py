"""?: every key binding, with its id (for `[tui] keymap`) and its current keys; the screen you came
from first, then the keys that work everywhere, then the rest. Typing filters the list (lazygit's
`?` menu); enter runs the key under the cursor on the screen you came from."""

from __future__ import annotations

from typing import ClassVar

from hallmark.tui.protocols import KeymapSource
from hallmark.tui.widgets.lists import VimTable
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


def binding_classes(app_class: type) -> list[tuple[str, type]]:
    """The classes whose keys the help lists. The app passes its own class in: screens sit below
    the app and never import it (import-linter's layers contract in pyproject.toml)."""
    from . import (
        board,
        conflict,
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
        ("conflict hold", conflict.ConflictModal),
        ("setup", setup.NotInitialisedScreen),
    ]


def all_bindings(app_class: type) -> list[tuple[str, Binding]]:
    out: list[tuple[str, Binding]] = []
    for where, cls in binding_classes(app_class):
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding):
                out.append((where, binding))  # noqa: PERF401 - a few dozen keys, listed in the order they are read
    return out


def in_context(
    rows: list[tuple[str, Binding]], classes: list[tuple[str, type]], context: type | None
) -> list[tuple[str, Binding]]:
    """The rows of the screen you came from (and its own widgets) first, then everywhere, then the rest."""
    mine = {
        where for where, cls in classes if context is not None and issubclass(context, cls) and where != "everywhere"
    }
    if context is not None and context.__name__ == "TraceScreen":
        mine.add("trace view")  # its keys are the trace's too

    def rank(row: tuple[str, Binding]) -> int:
        return 0 if row[0] in mine else 1 if row[0] == "everywhere" else 2

    return sorted(rows, key=rank)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("enter", "run", "Run the key", id="help.run"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("Keys — remap any by its id in [tui.keymap] of your config.toml", id="help-title")
            yield Label(
                "Each key means one thing everywhere: n is the next item waiting for you, t the runs "
                "(of the selected item, where there is one), ] and [ the next and previous thing in a "
                "view (a search hit, a file). A greyed key says why when pressed. "
                "Type (or /) to filter; enter runs the key; escape, ? or q closes.",
                id="help-note",
            )
            yield Input(placeholder="filter: a key, a word or an id", id="help-filter")
            yield VimTable(id="help-table")

    def __init__(self, app_class: type, context: type | None = None) -> None:
        super().__init__()
        self.app_class = app_class  # whose keys are "everywhere" (the app's own class, passed down)
        self.context = context  # the screen the help was opened on: its keys come first
        self.rows: list[tuple[str, Binding]] = []
        self.shown: list[tuple[str, Binding]] = []

    def on_mount(self) -> None:
        table = self.query_one(VimTable)
        table.add_fixed_columns(("where", 14), ("keys", 14), ("does", 18), ("id", None))
        classes = binding_classes(self.app_class)
        self.rows = in_context(all_bindings(self.app_class), classes, self.context)
        field = self.query_one("#help-filter", Input)
        field.cursor_blink = False
        self._draw("")
        table.focus()

    def _keys(self, binding: Binding) -> str:
        keymap = self.app.settings if isinstance(self.app, KeymapSource) else None
        overrides = keymap.keymap if keymap else {}
        return overrides.get(binding.id or "", binding.key_display or binding.key)

    def _draw(self, needle: str) -> None:
        table = self.query_one(VimTable)
        table.clear()
        needle = needle.lower()
        self.shown = []
        for where, binding in self.rows:
            keys = self._keys(binding)
            cells = (where, keys, binding.description or binding.action, binding.id or "")
            if needle and needle not in " ".join(cells).lower():
                continue
            self.shown.append((where, binding))
            table.add_row(*cells)
        if not self.shown:
            table.add_row("", "", f"nothing matches “{needle}”", "")

    def on_input_changed(self, event: Input.Changed) -> None:
        self._draw(event.value.strip())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(VimTable).focus()

    def on_key(self, event: events.Key) -> None:
        """A printable key on the list types into the filter (j and k still move)."""
        field = self.query_one("#help-filter", Input)
        if self.focused is not field and event.key in ("question_mark", "q") and not field.value:
            event.stop()  # ? again (or q) closes, as before
            self.dismiss(None)
            return
        if self.focused is not field and event.key == "slash":
            event.stop()  # / starts the filter (for a word that starts with q)
            field.focus()
            return
        if self.focused is field or not event.is_printable or event.character in ("j", "k", "g", "G", None):
            return
        field.focus()
        field.insert_text_at_cursor(event.character)
        event.stop()

    def action_close(self) -> None:
        field = self.query_one("#help-filter", Input)
        if field.value:
            field.value = ""
            self.query_one(VimTable).focus()
            return
        self.dismiss(None)

    def action_run(self) -> None:
        """Close the help and press the key under the cursor on the screen it was opened on."""
        table = self.query_one(VimTable)
        if not 0 <= table.cursor_row < len(self.shown):
            return
        where, binding = self.shown[table.cursor_row]
        if not self._applies(where):
            self.app.notify(f"{binding.key_display or binding.key} works on the {where}.", title="not here")
            return
        key = binding.key.split(",")[0]
        self.dismiss(None)
        self.app.call_later(self.app.simulate_key, key)

    def _applies(self, where: str) -> bool:
        classes = dict(binding_classes(self.app_class))
        if where == "everywhere":
            return True
        cls = classes.get(where)
        if cls is None or self.context is None:
            return False
        return issubclass(self.context, cls) or (where == "trace view" and self.context.__name__ == "TraceScreen")
