"""i: Your Office. What waits for you, oldest first (enter acts, x dismisses, u undoes a dismissal),
and the loop's notices on a second tab; both tabs carry their counts.

The entries are the app's Building's (core.waiting.waiting_for_you): the list here, the footer's
"◆ N waiting" and the floor's office are one number. Dismissing hides an entry until it changes;
a question still blocks its agent after that, so dismissing one asks first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from hallmark.core import inbox, items, rooms
from hallmark.core.inbox_results import InboxEntry, Notice, QuestionEntry
from hallmark.core.repo import Repo
from hallmark.tui import triage
from hallmark.tui.messages import CoreDone
from hallmark.tui.widgets.lists import VimTable
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static, TabbedContent, TabPane

from . import inbox_bulk as bulk
from . import inbox_preview
from .base import HallScreen
from .conflict import ConflictHold, ConflictModal
from .filtering import FilterKeys
from .modals import ConfirmModal, ReasonModal

NARROW = 110  # below this many columns the preview goes under the list

if TYPE_CHECKING:
    from hallmark.core.building import Building


NARROW = 110  # below this many columns the preview goes under the list

if TYPE_CHECKING:
    from hallmark.core.building import Building


def _dismiss(repo: Repo, key: str, fingerprint: str) -> dict[str, InboxEntry]:
    return {"dismissed": inbox.dismiss_entry(repo, key, fingerprint)}


def _undismiss(repo: Repo, key: str) -> dict[str, Any]:
    return {"restored": inbox.undismiss(repo, key), "key": key}


class InboxScreen(FilterKeys, HallScreen):
    AUTO_FOCUS = "#entries"
    FILTER_ID = "inbox-filter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "act", "Act", id="inbox.act"),
        Binding("x", "dismiss_entry", "Dismiss", id="inbox.dismiss"),
        Binding("u", "undo", "Undo dismiss", id="inbox.undo"),
        Binding("o", "open_item", "Open item", id="inbox.open"),
        Binding("y", "copy", "Copy", id="inbox.copy"),
        Binding("space", "mark", "Mark", id="inbox.mark"),
        Binding("R", "retry_marked", "Retry marked", id="inbox.retry_marked"),
        Binding("tab", "next_tab", "Notices/Waiting", id="inbox.tab"),
        Binding("slash", "filter", "Filter", key_display="/", id="inbox.filter"),
        Binding("escape", "clear", "Clear filter", show=False, id="inbox.clear"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[InboxEntry] = []
        self.notices: list[Notice] = []
        self.dismissed: list[list[InboxEntry]] = []  # this session's dismissals, newest last (u restores one batch)
        self.marked: set[str] = set()  # entry keys marked with space (x and R act on all of them)

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Input(
            placeholder="filter: kind, item or words (enter keeps it, escape clears)",
            id="inbox-filter",
            classes="-hidden",
        )
        with TabbedContent(id="inbox-tabs"):
            with TabPane("Waiting for you", id="tab-escalations"), Horizontal(id="inbox-body"):
                yield VimTable(id="entries")
                with VerticalScroll(id="inbox-preview"):
                    yield Static("", id="inbox-preview-text")
            with TabPane("Notices", id="tab-notices"):
                yield VimTable(id="notices")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Inbox"
        self.query_one("#entries", VimTable).add_fixed_columns(
            ("#", 3), ("kind", 14), ("item", 7), ("since", 5), ("what", None)
        )
        self.query_one("#notices", VimTable).add_fixed_columns(("kind", 14), ("item", 7), ("since", 5), ("what", None))
        self.query_one("#inbox-filter", Input).cursor_blink = False
        self._fit(self.app.size.width)
        super().on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        self.query_one("#inbox-body").set_class(width < NARROW, "-narrow")

    def _preview(self) -> None:
        entry = self.selected()
        view = self.building.by_id.get(entry.item) if entry and entry.item and self.building else None
        text = inbox_preview.preview(entry, view, self.primary(entry) if entry else "open")
        self.query_one("#inbox-preview-text", Static).update(text)

    # -- what waits: the Building's ------------------------------------------------------------
    def draw(self, building: Building) -> None:
        keep = self.selected()
        needle = self.filter_text.lower()
        every = building.waiting.entries
        self.entries = [e for e in every if not needle or needle in f"{e.kind} {e.item or ''} {e.text}".lower()]
        table = self.query_one("#entries", VimTable)
        row = table.cursor_row
        table.clear()
        self.marked &= {e.key for e in every}
        for n, entry in enumerate(self.entries, start=1):
            table.add_row(
                ("●" if entry.key in self.marked else "") + str(n),
                entry.kind,
                entry.item or "—",
                rooms.since(entry.since),
                entry.text,
                key=entry.key,
            )
        if not self.entries:
            table.add_row(
                "", "", "", "", f"nothing matches “{self.filter_text}”" if every else "✓ nothing waiting on you"
            )
        else:
            keys = [e.key for e in self.entries]
            target = keys.index(keep.key) if keep and keep.key in keys else min(row, len(keys) - 1)
            table.move_cursor(row=max(0, target))
        shown = f"{len(self.entries)} of {len(every)}" if needle else str(len(every))
        self.query_one(TabbedContent).get_tab("tab-escalations").label = f"Waiting for you ({shown})"
        if self.focused is None:
            table.focus()
        self._preview()

    # -- notices: loaded -----------------------------------------------------------------------
    def load(self, repo: Repo) -> list[Notice]:
        return list(reversed(inbox.notices(repo)))

    def show(self, data: list[Notice]) -> None:
        self.notices = data
        notices = self.query_one("#notices", VimTable)
        notices.clear()
        for note in data:
            notices.add_row(note.kind, note.item or "—", rooms.since(note.since or ""), note.text)
        if not data:
            notices.add_row("", "", "", "no notices")
        self.query_one(TabbedContent).get_tab("tab-notices").label = f"Notices ({len(data)})"

    def wants_reload(self, changed: frozenset[str]) -> bool:
        return True  # a notice can come from any item

    # -- keys ------------------------------------------------------------------------------------
    def selected(self) -> InboxEntry | None:
        if not self.is_mounted or self.query_one(TabbedContent).active != "tab-escalations":
            return None
        table = self.query_one("#entries", VimTable)
        if not self.entries or not 0 <= table.cursor_row < len(self.entries):
            return None
        return self.entries[table.cursor_row]

    def current_item_id(self) -> str | None:
        entry = self.selected()
        return entry.item if entry else None

    def show_waiting(self, item_id: str) -> bool:
        """n moves the cursor to that item's first entry here (the board does the same with its card)."""
        rows = [n for n, e in enumerate(self.entries) if e.item == item_id]
        if not rows or self.query_one(TabbedContent).active != "tab-escalations":
            return False
        self.query_one("#entries", VimTable).move_cursor(row=rows[0])
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("act", "dismiss_entry"):
            return True if self.selected() else None
        if action == "open_item":
            entry = self.selected()
            return True if entry and entry.item else None
        if action == "undo":
            return True if self.dismissed else None
        if action == "retry_marked":
            return True if any(bulk.retryable(e) for e in self._marked_entries()) else None
        if action == "copy":
            entry = self.selected()
            return True if entry and inbox_preview.copy_text(entry) else None
        return True

    @on(VimTable.RowHighlighted)
    def _moved(self) -> None:
        self.refresh_bindings()
        self._preview()

    @on(VimTable.RowSelected, "#entries")
    def _selected(self, event: VimTable.RowSelected) -> None:
        event.stop()
        self.action_act()

    @on(TabbedContent.TabActivated)
    def _tab(self) -> None:
        self.refresh_bindings()

    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "tab-notices" if tabs.active == "tab-escalations" else "tab-escalations"
        self.query_one("#notices" if tabs.active == "tab-notices" else "#entries", VimTable).focus()

    def primary(self, entry: InboxEntry) -> str:
        """The right first move for each kind of entry: what enter does, and the preview says."""
        if isinstance(entry, QuestionEntry):
            return "answer"
        if entry.key.startswith("hold:") and entry.kind == "conflict":
            return "resolve"  # never retry: the branch must be rebased first
        if entry.item and (entry.kind == "escalated" or entry.key.startswith("hold:")):
            return "retry"
        if entry.item and entry.key.startswith("ready:"):
            return "ready"
        return "open" if entry.item else "show"

    def action_act(self) -> None:
        """question: answer it; a rebase conflict: its files and command (copy, shell); escalated or
        another hold: retry with a reason; ready?: confirm ready; otherwise open the item."""
        entry = self.selected()
        if entry is None:
            return
        item = entry.item
        move = self.primary(entry)
        if isinstance(entry, QuestionEntry):
            triage.answer_question(
                self.hall,
                {
                    "qid": entry.qid,
                    "question": entry.text,
                    "options": entry.options,
                    "default": entry.default,
                    "item": item,
                },
            )
            return
        view = self.building.by_id.get(item) if item and self.building else None
        if move == "resolve" and item:
            hold = ConflictHold(item, view.worktree if view else "", "", (), tuple(entry.next))
            self.app.push_screen(ConflictModal(hold, entry.text))
            return
        if move == "retry" and item:

            def done(reason: str | None) -> None:
                if reason:
                    self.hall.core_call(
                        "retried", triage.person_call(items.retry, "retry"), item, reason=reason, item=item
                    )

            self.app.push_screen(ReasonModal(f"Retry {item}", entry.text + "\n\nAllow one more round. Why?"), done)
            return
        if move == "ready" and view is not None:
            triage.act(self.hall, "ready", view)
            return
        if item:
            self.hall.open_item(item)
            return
        self.notify("  ·  ".join(entry.next) or entry.text, title=entry.kind)

    def filter_done(self) -> None:
        self.query_one("#entries", VimTable).focus()

    def action_clear(self) -> None:
        """escape: the filter first, then the marks."""
        if not self.clear_filter() and self.marked:
            self.marked.clear()
            if self.building is not None:
                self.draw(self.building)

    def _marked_entries(self) -> list[InboxEntry]:
        return [e for e in (self.building.waiting.entries if self.building else ()) if e.key in self.marked]

    def action_mark(self) -> None:
        """space: mark or unmark the entry and step to the next one."""
        entry = self.selected()
        if entry is None:
            return
        self.marked ^= {entry.key}
        table = self.query_one("#entries", VimTable)
        row = table.cursor_row
        if self.building is not None:
            self.draw(self.building)
        table.move_cursor(row=min(row + 1, len(self.entries) - 1))
        self.refresh_bindings()

    def action_retry_marked(self) -> None:
        """R: one more round for every marked escalation and hold (never a rebase conflict)."""
        marked = self._marked_entries()
        chosen = [e.item for e in marked if bulk.retryable(e) and e.item]
        skipped = [e.item or e.kind for e in marked if not bulk.retryable(e)]
        if not chosen:
            return
        note = f"\nLeft out: {', '.join(skipped)} (a conflict needs its rebase first)." if skipped else ""

        def done(reason: str | None) -> None:
            if reason:
                self.hall.core_call("retried", bulk.retry_many, chosen, reason=reason)
                self.marked.clear()

        self.app.push_screen(
            ReasonModal(f"Retry {len(chosen)} items", f"{', '.join(chosen)}: one more round each. Why?{note}"), done
        )

    def action_copy(self) -> None:
        """y: a hold's command (the rebase, say), else the item id."""
        entry = self.selected()
        text = inbox_preview.copy_text(entry) if entry else ""
        if text:
            self.app.copy_to_clipboard(text)
            self.notify(text, title="copied", timeout=4, markup=False)

    def action_open_item(self) -> None:
        entry = self.selected()
        if entry and entry.item:
            self.hall.open_item(entry.item)

    def action_dismiss_entry(self) -> None:
        """x: dismiss the entry, or every marked one; a question stays open, so that asks first."""
        marked = self._marked_entries()
        entry = self.selected()
        batch = marked or ([entry] if entry else [])
        if not batch:
            return

        def go(yes: bool | None = True) -> None:
            if yes:
                pairs = [(e.key, e.fingerprint) for e in batch]
                label = "dismissed" if len(batch) == 1 else f"dismissed {len(batch)}"
                self.hall.core_call(label, bulk.dismiss_many, pairs, item=batch[0].item if len(batch) == 1 else None)
                self.dismissed.append(batch)
                self.marked.clear()

        questions = [e for e in batch if isinstance(e, QuestionEntry)]
        if len(batch) > 1:
            lines = [f"{e.item or '—'} {e.kind}: {e.text}" for e in batch]
            if questions:
                lines.append(f"{len(questions)} question(s) stay open: their agents wait until they are answered.")
            lines.append("Each comes back if it changes; u brings them back now.")
            self.app.push_screen(ConfirmModal(f"Dismiss {len(batch)} entries from your inbox?", lines), go)
            return
        if questions:
            question = questions[0]
            self.app.push_screen(
                ConfirmModal(
                    f"Dismiss {question.qid} from your inbox?",
                    [
                        question.text,
                        f"The question stays open: {question.item or 'the agent'} waits until it is answered.",
                        "It comes back if it changes; u brings it back now.",
                    ],
                ),
                go,
            )
            return
        go()

    def action_undo(self) -> None:
        if not self.dismissed:
            return
        batch = self.dismissed.pop()
        item = batch[0].item if len(batch) == 1 else None
        self.hall.core_call("back in your inbox", bulk.undismiss_many, [e.key for e in batch], item=item)

    def core_done(self, message: CoreDone) -> None:
        if message.error is not None and message.label.startswith("dismissed") and self.dismissed:
            self.dismissed.pop()  # it was not dismissed: nothing to undo
        result = message.result
        if message.label == "retried" and isinstance(result, dict) and result.get("refused"):
            refused = "; ".join(f"{item}: {why}" for item, why in result["refused"].items())
            self.notify(refused, title="not retried", severity="warning", timeout=10, markup=False)
