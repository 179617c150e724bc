"""Boards: items in columns by state, and the triage keys that act on the selected item.

Every key goes through a core verb (items.ready, pull_back, drop, retry, answer); keys that
don't apply in the selected item's state are greyed by check_action.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hallmark.core import items, states, waiting
from hallmark.core.repo import Repo
from hallmark.core.states import ItemView
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from .. import labels, rooms
from ..widgets.lists import VimOptionList
from .base import HallScreen
from .diff import DiffScreen
from .modals import ReasonModal

ITEM_ACTIONS = {"ready", "pull_back", "drop", "retry", "answer", "open_editor", "trace", "diff", "open_item"}


@dataclass
class BoardData:
    views: list[ItemView]
    questions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # item -> open questions
    badges: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # item -> waiting.classify
    reasons: dict[str, str] = field(default_factory=dict)  # item -> why it waits for you


def waiting_badges(repo: Repo, views: list[ItemView]) -> tuple[dict[str, tuple[str, str, str]], dict[str, str]]:
    """core.waiting's (kind, word, symbol) per item and why the waiting ones wait."""
    found = waiting.badges(repo, views)
    reasons = {v.id: r for v in views if found.get(v.id, ("",))[0] == "waiting" and (r := waiting.waiting_reason(v))}
    return found, reasons


def latest_run(repo: Repo, item_id: str) -> Path | None:
    runs = repo.paths.item_dir(item_id) / "runs"
    try:
        found = sorted(p for p in runs.iterdir() if p.suffix == ".jsonl")
    except OSError:
        return None
    return found[-1] if found else None


CARD_WIDTH = 25  # a column's text width after the card's indent: facts are packed to fit, not wrapped mid-way


def pack(parts: list[str], width: int = CARD_WIDTH) -> list[str]:
    """Join facts with " · " into as few lines as fit the column (a fact never splits)."""
    lines: list[str] = []
    for part in (p for p in parts if p):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += f" · {part}"
        else:
            lines.append(part)
    return lines


def card(view: ItemView, question: bool, found: tuple[str, str, str] | None = None,
         reason: str | None = None) -> Text:
    """The id and title, then what it waits on (symbol and word, and why), its round, its cost and age."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{states.SYMBOLS.get(view.state, '·')} ", style="bold")
    text.append(view.id, style="bold")
    text.append(f" {view.title or '(untitled)'}")
    shown = labels.badge(found)
    notes = [shown, reason if found and found[0] == "waiting" else ""]
    if not shown:
        notes = ["? question" if question else "", f"⏸ held: {view.hold}" if view.hold else ""]
    facts = [f"round {view.round}" if view.round else "", labels.cost(view.tokens, view.cost_usd),
             rooms.since(view.updated)]
    strong = bool(found and found[0] in ("waiting", "done_unseen"))
    for n, line in enumerate(pack(notes + facts)):
        text.append(f"\n  {line}", style="bold" if strong and n == 0 else "dim")
    return text


class BoardScroll(HorizontalScroll, inherit_bindings=False):
    """Scrolls sideways to the focused column; the arrows belong to the board, not the scroller."""


class BoardColumn(Vertical):
    def __init__(self, state: str) -> None:
        super().__init__(id=f"col-{state}", classes="board-column")
        self.state = state

    def compose(self) -> ComposeResult:
        yield Label(f"{states.SYMBOLS[self.state]} {rooms.STATE_WORDS[self.state]}", classes="column-title")
        yield VimOptionList(id=f"list-{self.state}", classes="column-list")

    @property
    def list(self) -> VimOptionList:
        return self.query_one(VimOptionList)


TRIAGE_BINDINGS = [
    Binding("r", "ready", "Ready", id="triage.ready"),
    Binding("p", "pull_back", "Pull back", id="triage.pull_back"),
    Binding("d", "drop", "Drop", id="triage.drop"),
    Binding("R", "retry", "Retry", id="triage.retry"),
    Binding("a", "answer", "Answer", id="triage.answer"),
    Binding("o", "open_editor", "Editor", id="triage.editor"),
    Binding("t", "trace", "Trace", id="triage.trace"),
    Binding("D", "diff", "Diff", id="triage.diff"),
]


class TriageActions:
    """The triage keys on a selected item, shared by the board and the item detail.

    The host screen provides selected() -> ItemView | None and open_questions(id) -> list.
    """

    def open_questions(self, item_id: str) -> list[dict[str, Any]]:
        return []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in ITEM_ACTIONS:
            return True
        view = self.selected()
        if view is None:
            return None
        state = view.state
        applies = {
            "ready": states.target(state, "ready") is not None,
            "pull_back": states.target(state, "pulled_back") is not None,
            "drop": not view.terminal,
            "retry": states.target(state, "retried") is not None or bool(view.hold),
            "answer": bool(self.open_questions(view.id)),
            "open_editor": bool(view.worktree) and Path(view.worktree).is_dir(),
        }.get(action, True)
        return True if applies else None

    # -- keys ------------------------------------------------------------------------------
    def _need(self) -> ItemView | None:
        view = self.selected()
        if view is None:
            self.notify("No item selected.", severity="warning")
        return view

    def action_open_item(self) -> None:
        view = self._need()
        if view:
            self.hall.open_item(view.id)

    def action_ready(self) -> None:
        view = self._need()
        if view:
            self.hall.core_call("ready", items.ready, view.id, item=view.id)

    def action_pull_back(self) -> None:
        view = self._need()
        if view:
            self.hall.core_call("pulled back", items.pull_back, view.id, reason="pulled back from the board",
                                item=view.id)

    def action_drop(self) -> None:
        view = self._need()
        if view is None:
            return

        def done(reason: str | None) -> None:
            if reason:
                self.hall.core_call("dropped", items.drop, view.id, reason=reason, item=view.id)

        self.app.push_screen(ReasonModal(f"Drop {view.id}: {view.title}", "Why drop it? The journal keeps the reason.",
                                         placeholder="reason"), done)

    def action_retry(self) -> None:
        view = self._need()
        if view is None:
            return

        def done(reason: str | None) -> None:
            if reason:
                self.hall.core_call("retried", items.retry, view.id, reason=reason, item=view.id)

        self.app.push_screen(ReasonModal(f"Retry {view.id}: {view.title}", "Allow one more round. Why?",
                                         placeholder="reason"), done)

    def action_answer(self) -> None:
        view = self._need()
        if view is None:
            return
        open_qs = self.open_questions(view.id)
        if not open_qs:
            self.notify(f"{view.id} has no open question.", severity="warning")
            return
        question = open_qs[0]
        answer_question(self, question)

    def action_open_editor(self) -> None:
        view = self._need()
        if view:
            open_in_editor(self, view)

    def action_trace(self) -> None:
        view = self._need()
        if view is None:
            return
        found = latest_run(self.repo, view.id)
        if found is None:
            self.notify(f"{view.id} has no runs yet.", severity="information")
            return
        self.hall.open_trace(found, item=view.id)

    def action_diff(self) -> None:
        view = self._need()
        if view is None:
            return
        self.app.push_screen(DiffScreen(self.repo, view.id))

    def current_item_id(self) -> str | None:
        """The item `n` (app.next_waiting) counts from."""
        view = self.selected()
        return view.id if view else None


class BoardScreen(TriageActions, HallScreen):
    """b: columns by state; j/k within a column, h/l across; enter opens the item."""

    AUTO_FOCUS = ".column-list"

    BINDINGS = [
        Binding("left,h", "column(-1)", "Left", show=False, id="board.left"),
        Binding("right,l", "column(1)", "Right", show=False, id="board.right"),
        Binding("enter", "open_item", "Open", id="board.open"),
        *TRIAGE_BINDINGS,
        Binding("slash", "filter", "Filter", key_display="/", id="board.filter"),
        Binding("escape", "back", "Back", show=False, id="board.back"),
    ]

    def __init__(self, room: str | None = None) -> None:
        super().__init__()
        self.room = room
        self.data = BoardData([])
        self.filter_text = ""
        self._placed = False  # the cursor has been put on a card once (later it stays where you move it)

    def columns_states(self) -> tuple[str, ...]:
        if self.room is None:
            return states.STATES
        room = rooms.ROOM_BY_KEY[self.room]
        return room.states or states.STATES

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Input(placeholder="filter: id, title or branch (enter to keep, escape to clear)", id="board-filter",
                    classes="-hidden")
        with BoardScroll(id="board"):
            for state in self.columns_states():
                yield BoardColumn(state)
        yield Label("", id="board-empty")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = rooms.ROOM_BY_KEY[self.room].name if self.room else "Boards"
        self.query_one("#board-filter", Input).cursor_blink = False
        super().on_mount()

    def show_waiting(self, item_id: str) -> bool:
        """n lands on the card when the item is on this board (else the app opens its detail)."""
        return self.select_item(item_id)

    # -- data ------------------------------------------------------------------------------
    def load(self, repo: Repo) -> BoardData:
        views = repo.index.items()
        if self.room is not None:
            views = rooms.assign(views).get(self.room, [])
        questions: dict[str, list[dict[str, Any]]] = {}
        for q in repo.index.questions(open_only=True):
            if q["item"]:
                questions.setdefault(q["item"], []).append(q)
        return BoardData(views, questions, *waiting_badges(repo, views))

    def show(self, data: BoardData) -> None:
        self.data = data
        self._fill()

    def _fill(self) -> None:
        selected = self.selected()
        needle = self.filter_text.lower()
        by_state: dict[str, list[ItemView]] = {s: [] for s in self.columns_states()}
        for view in self.data.views:
            if needle and needle not in f"{view.id} {view.title} {view.branch}".lower():
                continue
            if view.state in by_state:
                by_state[view.state].append(view)
        total = 0
        for column in self.query(BoardColumn):
            views = by_state.get(column.state, [])
            total += len(views)
            column.query_one(".column-title", Label).update(
                f"{states.SYMBOLS[column.state]} {rooms.STATE_WORDS[column.state]} ({len(views)})")
            lst = column.list
            lst.set_options([Option(card(v, bool(self.data.questions.get(v.id)), self.data.badges.get(v.id),
                                          self.data.reasons.get(v.id)), id=v.id) for v in views])
            if selected and any(v.id == selected.id for v in views):
                lst.highlighted = lst.get_option_index(selected.id)
            elif views:
                lst.highlighted = 0
        empty = self.query_one("#board-empty", Label)
        if total == 0:
            empty.update("No items here yet. Start one with  hall new --title \"…\"" if not needle
                         else f"No item matches “{self.filter_text}”.")
        else:
            empty.update("")
        empty.set_class(total == 0, "-shown")
        focused = self.focused
        if (not isinstance(focused, OptionList | Input) or focused.has_class("-hidden")
                or (not self._placed and isinstance(focused, OptionList) and not focused.option_count and total)):
            self._focus_first()  # the first cards shown get the cursor, not an empty first column
        self._placed = self._placed or total > 0
        self.refresh_bindings()

    def _focus_first(self) -> None:
        for column in self.query(BoardColumn):
            if column.list.option_count:
                column.list.focus()
                self.call_after_refresh(column.scroll_visible, animate=False)
                return
        columns = list(self.query(BoardColumn))
        if columns:
            columns[0].list.focus()

    # -- selection -------------------------------------------------------------------------
    def current_column(self) -> BoardColumn | None:
        focused = self.focused
        if isinstance(focused, VimOptionList) and isinstance(focused.parent, BoardColumn):
            return focused.parent
        return None

    def selected(self) -> ItemView | None:
        column = self.current_column()
        if column is None:
            return None
        option = column.list.highlighted_option
        if option is None:
            return None
        for view in self.data.views:
            if view.id == option.id:
                return view
        return None

    def select_item(self, item_id: str) -> bool:
        for column in self.query(BoardColumn):
            try:
                index = column.list.get_option_index(item_id)
            except Exception:  # noqa: BLE001 - OptionDoesNotExist: not in this column
                continue
            column.list.focus()
            column.list.highlighted = index
            column.scroll_visible()
            self.refresh_bindings()
            return True
        return False

    def open_questions(self, item_id: str) -> list[dict[str, Any]]:
        return self.data.questions.get(item_id) or []

    @on(OptionList.OptionHighlighted)
    def _highlighted(self) -> None:
        self.refresh_bindings()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.hall.open_item(event.option.id)

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def action_column(self, step: int) -> None:
        columns = list(self.query(BoardColumn))
        current = self.current_column()
        index = columns.index(current) if current in columns else 0
        target = index + step
        while 0 <= target < len(columns):
            if columns[target].list.option_count:
                columns[target].list.focus()
                columns[target].scroll_visible()
                return
            target += step

    def action_filter(self) -> None:
        field = self.query_one("#board-filter", Input)
        field.remove_class("-hidden")
        field.focus()

    @on(Input.Changed, "#board-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()
        self._fill()

    @on(Input.Submitted, "#board-filter")
    def _filter_done(self) -> None:
        self._focus_first()

    def action_back(self) -> None:
        field = self.query_one("#board-filter", Input)
        if self.focused is field or self.filter_text:
            field.value = ""
            self.filter_text = ""
            field.add_class("-hidden")
            self._fill()
            self._focus_first()
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()


def answer_question(screen: HallScreen, question: dict[str, Any]) -> None:
    """A modal with the question and its options, then items.answer."""
    options = question.get("options") or []
    lines = [question.get("question", "")]
    for i, option in enumerate(options):
        lines.append(f"  {chr(ord('a') + i)}) {option}")
    if question.get("default"):
        lines.append(f"default: {question['default']}")

    def done(text: str | None) -> None:
        if text:
            screen.hall.core_call("answered", items.answer, question["qid"], text, item=question.get("item"))

    screen.app.push_screen(ReasonModal(f"Answer {question['qid']}", "\n".join(lines), placeholder="your answer"), done)


def open_in_editor(screen: HallScreen, view: ItemView) -> None:
    """$EDITOR (else $VISUAL, else vi) on the item's worktree, with the app suspended."""
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    if not view.worktree or not Path(view.worktree).is_dir():
        screen.notify(f"{view.id} has no worktree on disk.", severity="warning")
        return
    try:
        code = screen.hall.run_external([*shlex.split(editor), view.worktree], cwd=view.worktree)
    except OSError as exc:
        screen.notify(f"could not start {editor}: {exc}", severity="error")
        return
    if code != 0:
        screen.notify(f"{editor} exited with {code}", severity="warning")
