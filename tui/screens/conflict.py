"""A rebase-conflict hold, as the inbox's primary action shows it: the conflicting files, the exact
command that resolves it, and the two ways to act on it (copy the command, or open a shell in the
item's worktree). Never "retry": releasing the hold would leave the branch off its base and the
next ship would conflict again (core.items.retry refuses it too).

The hold's own record (the `held` event: onto, files, next) is read in a worker when the modal
opens; until it arrives the inbox entry's steps are shown, which already name the command.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import ClassVar

from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.tui import programs
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static


@dataclass(frozen=True)
class ConflictHold:
    item: str
    worktree: str
    onto: str
    files: tuple[str, ...]
    steps: tuple[str, ...]  # the rebase command first, then `hall ready`

    @property
    def command(self) -> str:
        """The exact command to run first: the rebase, in the item's worktree."""
        if self.steps:
            return self.steps[0]
        return f"git -C {shlex.quote(self.worktree)} rebase {self.onto or 'origin/main'}"


def read_hold(repo: Repo, hold: ConflictHold) -> ConflictHold:
    """The hold as its latest `held` event recorded it (core.items.item_events); as given without one."""
    from hallmark.core.items import item_events

    held = [e for e in item_events(repo, hold.item) if e.get("event") == "held" and e.get("kind") == "conflict"]
    if not held:
        return hold
    last = held[-1]
    files = tuple(str(f) for f in (last.get("files") or []))
    steps = tuple(str(s) for s in (last.get("next") or [])) or hold.steps
    return ConflictHold(hold.item, hold.worktree, str(last.get("onto") or hold.onto), files, steps)


def shell() -> programs.Program:
    """What `s` starts: $SHELL, else /bin/sh."""
    return programs.find((os.environ.get("SHELL") or "/bin/sh",))


class ConflictModal(ModalScreen[None]):
    """What a held rebase conflict needs from you, with copy (y) and shell (s)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,c", "copy", "Copy command", id="conflict.copy"),
        Binding("s", "shell", "Shell in worktree", id="conflict.shell"),
        Binding("r", "ready", "Ready again", id="conflict.ready"),
        Binding("o", "open_item", "Open item", id="conflict.open"),
        Binding("escape,q", "close", "Close", id="conflict.close"),
    ]

    def __init__(self, hold: ConflictHold, reason: str = "") -> None:
        super().__init__()
        self.hold = hold
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="modal-box", classes="-wide"):
            yield Label(f"{self.hold.item} is held: its rebase conflicts", id="modal-title")
            with VerticalScroll(id="modal-list"):
                yield Static(self._body(), id="conflict-body", markup=False)
            yield Static(
                "y copy the command · s shell in the worktree · r ready again (once rebased) · "
                "o open the item · esc close",
                id="modal-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self._load()

    def _body(self) -> str:
        """The command first (a small terminal shows it before anything else), then the files."""
        hold = self.hold
        lines = ["Run this, resolve the conflicts, `git rebase --continue`, then ready it again:"]
        lines += [f"  $ {step}" for step in hold.steps] or [f"  $ {hold.command}"]
        if hold.files:
            lines.append("Conflicts in: " + ", ".join(hold.files))
        else:
            lines.append("Conflicts in: " + ("(loading…)" if not hold.onto else "(git did not name them)"))
        if hold.onto:
            lines.append(f"The approved commit does not rebase onto {hold.onto}.")
        elif self.reason:
            lines.append(self.reason)
        lines.append(f"worktree: {hold.worktree or '(none)'}")
        return "\n".join(lines)

    @work(thread=True, group="conflict", exit_on_error=False)
    def _load(self) -> None:
        try:
            with self.app.fresh_repo() as repo:  # type: ignore[attr-defined]
                found = read_hold(repo, self.hold)
        except (HallError, OSError):
            return
        self.app.call_from_thread(self._loaded, found)

    def _loaded(self, hold: ConflictHold) -> None:
        self.hold = hold
        if self.is_mounted:
            self.query_one("#conflict-body", Static).update(self._body())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "shell":
            return True if self.hold.worktree and os.path.isdir(self.hold.worktree) else None
        return True

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.hold.command)
        self.app.notify(self.hold.command, title="copied", timeout=4, markup=False)

    def action_shell(self) -> None:
        found = shell()
        if found.missing:
            self.app.notify(found.missing, title="no shell", severity="warning", timeout=8)
            return
        if not os.path.isdir(self.hold.worktree):
            self.app.notify(f"{self.hold.item} has no worktree here.", severity="warning")
            return
        self.app.run_external(list(found.command), cwd=self.hold.worktree)  # type: ignore[attr-defined]

    def action_ready(self) -> None:
        """Ready again: the core refuses (with the steps) while the branch is still off its base."""
        from hallmark.core import items
        from hallmark.tui.triage import person_call

        self.dismiss(None)
        self.app.core_call("ready", person_call(items.ready, "ready"), self.hold.item, item=self.hold.item)  # type: ignore[attr-defined]

    def action_open_item(self) -> None:
        self.dismiss(None)
        self.app.open_item(self.hold.item)  # type: ignore[attr-defined]

    def action_close(self) -> None:
        self.dismiss(None)
