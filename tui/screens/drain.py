"""l: the reflect drain. One proposed learning a screen, decided with one key, through the
memory store (`hallmark.core.memory.drain`: the queue, what came back, accept-all). The queue is
fixed when the drain opens (new proposals join at the end), so "3 of 12" stays true while you work."""

from __future__ import annotations

from typing import ClassVar

from hallmark.core.memory import drain
from hallmark.core.memory.drain import DrainCard, DrainQueue
from hallmark.core.repo import Repo
from hallmark.tui.messages import CoreDone
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from .base import HallScreen
from .modals import ConfirmModal, ReasonModal, TextModal

DECISION_WORDS = {
    "accept": "✓ accepted",
    "skip": "↷ skipped",
    "reject": "✗ rejected",
    "edit": "✎ edited and accepted",
    "undo": "↶ undone",
    "accept_all": "✓ accepted",
}


def _accept_reopened(repo: Repo, lid: str) -> dict:
    return drain.accept_reopened(repo, lid).to_dict()


class DrainScreen(HallScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "decide('accept')", "Accept", id="drain.accept"),
        Binding("s", "decide('skip')", "Skip", id="drain.skip"),
        Binding("x", "decide('reject')", "Reject", id="drain.reject"),
        Binding("e", "decide('edit')", "Edit + accept", id="drain.edit"),
        Binding("u", "undo", "Undo", id="drain.undo"),
        Binding("A", "accept_all", "Accept all", id="drain.accept_all"),
        Binding("right,j", "move(1)", "Next", show=False, id="drain.next"),
        Binding("left,k", "move(-1)", "Previous", show=False, id="drain.prev"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data = DrainQueue()
        self.queue: list[str] = []
        self.pos = 0
        self.decided: dict[str, str] = {}
        self.history: list[tuple[str, str]] = []
        self.last_note = ""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        yield Static("", id="drain-progress")
        with VerticalScroll(id="drain-card"):
            yield Static("", id="drain-body")
        yield Static("", id="drain-last")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Reflect drain"
        super().on_mount()

    def load(self, repo: Repo) -> DrainQueue:
        return drain.load(repo)

    def show(self, data: DrainQueue) -> None:
        self.data = data
        for lid in data.order:
            if lid not in self.queue:
                self.queue.append(lid)
        self.pos = min(self.pos, max(0, len(self.queue) - 1))
        self._render_card()

    def current(self) -> DrainCard | None:
        if not self.queue or not self.data.available:
            return None
        lid = self.queue[self.pos]
        if lid in self.decided:
            return None
        return self.data.cards.get(lid)

    def _remaining(self) -> list[str]:
        return [lid for lid in self.queue if lid not in self.decided and lid in self.data.cards]

    def _render_card(self) -> None:
        progress = self.query_one("#drain-progress", Static)
        body = self.query_one("#drain-body", Static)
        self.query_one("#drain-last", Static).update(self.last_note)
        if not self.data.available:
            progress.update("Reflect drain · memory paused")
            body.update(
                Text("The memory store cannot be read, so there is nothing to review yet.\n\n", style="bold")
                + Text(self.data.problem)
            )
            self.refresh_bindings()
            return
        if not self._remaining():
            progress.update("Reflect drain · nothing pending")
            body.update(self._empty_text())
            self.refresh_bindings()
            return
        if self.queue[self.pos] in self.decided or self.queue[self.pos] not in self.data.cards:
            self._advance()
        card = self.current()
        if card is None:
            body.update(self._empty_text())
            return
        decided = sum(1 for lid in self.queue if lid in self.decided)
        progress.update(f"{self.pos + 1} of {len(self.queue)}  ·  {decided} decided  ·  {len(self._remaining())} left")
        body.update(self._card_text(card))
        self.query_one("#drain-card", VerticalScroll).scroll_home(animate=False)
        self.refresh_bindings()

    def _empty_text(self) -> Text:
        text = Text("✓ Nothing to review: no learning is waiting.\n\n", style="bold")
        summary = self.data.summary
        if summary is not None and summary.decisions:
            text.append(
                f"Last drain {summary.started or ''} → {summary.ended or ''}: "
                f"{summary.decisions} decisions — {summary.accepted} accepted, "
                f"{summary.skipped} skipped, {summary.rejected} rejected, "
                f"{summary.retired} retired, {summary.undone} undone."
            )
        else:
            text.append("No drain has happened yet.")
        return text

    def _card_text(self, card: DrainCard) -> Text:
        x = card.learning
        text = Text()
        retire = bool(x.get("retire_proposal"))
        if card.came_back and card.tombstone:
            t = card.tombstone
            text.append("✗ PROPOSED AGAIN — this pattern was rejected\n", style="bold")
            text.append(f"tombstone {t.id}: “{t.pattern}”\n")
            text.append(f"rejected {t.rejected} by {t.rejected_by}: {t.reason}\n")
            text.append(f"proposed again {t.reproposed} time(s); evidence now {t.evidence}\n")
            text.append("a: reopen and accept it anyway · s or x: leave it rejected\n\n", style="italic")
        elif card.tombstone:
            t = card.tombstone
            text.append(f"✗ Like rejected {t.id}: “{t.pattern}” — {t.reason}\n\n", style="bold")
        kind = x.get("kind", "")
        text.append(f"{'⌫ RETIRE ' if retire else ''}{kind}", style="bold")
        text.append(f"   {card.lid}   status {x.get('status', '')}")
        if x.get("skip_count"):
            text.append(f"   skipped {x['skip_count']}×")
        text.append("\n\n")
        text.append(str(x.get("pattern", "")) + "\n", style="bold")
        if x.get("rationale"):
            text.append(f"\nWhy: {x['rationale']}\n")
        if retire:
            text.append(f"\nRetirement proposed: {(x.get('retire_proposal') or {}).get('reason', '')}\n")
        evidence = x.get("evidence") or []
        text.append(f"\nEvidence ({len(evidence)}), occurrences {x.get('occurrences', 1)}\n", style="bold")
        for ev in evidence:
            where = " · ".join(str(ev[k]) for k in ("item", "file", "session") if ev.get(k))
            text.append(f"  “{ev.get('quote', '')}”\n")
            text.append(
                f"    — {ev.get('source', '')}, {ev.get('date', '')}{' · ' + where if where else ''}\n", style="dim"
            )
        scope = x.get("scope") or {}
        paths = ", ".join(scope.get("paths") or []) or "the whole project"
        text.append(f"\nScope: {scope.get('project', '')} · {paths}\n")
        preview = card.preview
        text.append("\nAccepting writes: ", style="bold")
        text.append(preview.where if preview is not None else "")
        if preview is not None and preview.path:
            text.append(f" → {preview.path}")
        text.append("\n")
        if preview is not None and preview.problem:
            text.append(f"  ⚠ {preview.problem} (it stays in the library)\n")
        for line in (preview.text if preview is not None else "").splitlines():
            text.append(f"  │ {line}\n", style="dim")
        return text

    # -- keys ------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("decide", "accept_all", "move"):
            if not self.data.available:
                return False
            card = self.current()
            if card is None:
                return None
            if action == "decide" and card.came_back and parameters and parameters[0] == "edit":
                return None
            return True
        if action == "undo":
            return True if self.history else None
        return True

    def _advance(self) -> None:
        if not self.queue:
            return
        for step in range(len(self.queue)):
            index = (self.pos + step) % len(self.queue)
            lid = self.queue[index]
            if lid not in self.decided and lid in self.data.cards:
                self.pos = index
                return

    def action_move(self, step: int) -> None:
        remaining = self._remaining()
        if not remaining:
            return
        index = self.pos
        for _ in range(len(self.queue)):
            index = (index + step) % len(self.queue)
            if self.queue[index] in remaining:
                self.pos = index
                break
        self._render_card()

    def action_decide(self, what: str) -> None:
        card = self.current()
        if card is None:
            return
        lid = card.lid
        if card.came_back:
            if what == "accept":
                self.hall.core_call("accept", _accept_reopened, lid, item=lid)
            else:
                self._record(lid, "skip", f"↷ left {lid} rejected")
                self._render_card()
            return
        if what == "accept":
            auto = card.automation
            if auto:  # its own confirmation, showing the exact command and the file it goes to

                def confirmed(yes: bool | None) -> None:
                    if yes:
                        self.hall.core_call(
                            "accept",
                            drain.decide,
                            "accept",
                            lid,
                            actor="you",
                            confirm_automation=auto["confirm"],
                            item=lid,
                        )

                self.app.push_screen(
                    ConfirmModal(
                        f"Accept automation {lid}? Claude Code will run this command on its own",
                        [
                            f"file: {auto['file']}",
                            f"event: {auto['event']}   matcher: {auto['matcher'] or '(all)'}",
                            f"command: {auto['command']}",
                        ],
                    ),
                    confirmed,
                )
                return
            self.hall.core_call("accept", drain.decide, "accept", lid, actor="you", item=lid)
        elif what == "skip":
            self.hall.core_call("skip", drain.decide, "skip", lid, actor="you", item=lid)
        elif what == "reject":

            def rejected(reason: str | None) -> None:
                if reason:
                    self.hall.core_call("reject", drain.decide, "reject", lid, reason, actor="you", item=lid)

            self.app.push_screen(
                ReasonModal(
                    f"Reject {lid}",
                    f"“{card.learning.get('pattern', '')}”\n\nWhy reject it? The reason stays as its tombstone.",
                ),
                rejected,
            )
        elif what == "edit":

            def edited(pattern: str | None) -> None:
                if pattern:
                    self.hall.core_call("edit", drain.decide, "accept", lid, actor="you", pattern=pattern, item=lid)

            self.app.push_screen(
                TextModal(
                    f"Edit {lid}, then accept",
                    "The pattern, in your words:",
                    value=str(card.learning.get("pattern", "")),
                ),
                edited,
            )

    def action_undo(self) -> None:
        if not self.history:
            return
        lid, what = self.history[-1]
        if what == "local":
            self.history.pop()
            self.decided.pop(lid, None)
            self.pos = self.queue.index(lid)
            self.last_note = f"↶ back to {lid}"
            self._render_card()
            return
        self.hall.core_call("undo", drain.decide, "undo", lid, actor="you", item=lid)

    def _is_automation(self, lid: str) -> bool:
        return self.data.cards[lid].automation is not None

    def acceptable(self) -> list[str]:
        """What A would accept: the remaining cards accept-all may take (core.memory.drain: not one
        that came back after a rejection, not an automation; each of those needs its own `a`)."""
        return [lid for lid in self._remaining() if self.data.cards[lid].bulk_acceptable]

    def greyed(self, action: str) -> bool:
        return action == "accept_all" and not self.acceptable()

    def action_accept_all(self) -> None:
        remaining = self.acceptable()
        automations = [lid for lid in self._remaining() if self._is_automation(lid)]
        if not remaining:
            left = len(self._remaining())
            came_back = left - len(automations)
            why = []
            if came_back:
                why.append(
                    f"{came_back} card{'s' if came_back != 1 else ''} came back after a rejection "
                    "(a accepts one, s or x leaves it rejected)"
                )
            if automations:
                why.append(
                    f"{len(automations)} automation{'s' if len(automations) != 1 else ''} "
                    "(each is accepted on its own card, after reading its command)"
                )
            self.notify(
                "Nothing to accept all at once: " + ("; ".join(why) if why else "no learning is waiting."),
                severity="warning",
            )
            return
        lines = [f"{lid}: {self.data.cards[lid].learning.get('pattern', '')}" for lid in remaining]
        if automations:
            lines.append(
                f"Not included — automations, each accepted on its own card (a) after reading its "
                f"command: {', '.join(automations)}"
            )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.hall.core_call("accept_all", drain.accept_all, remaining)

        self.app.push_screen(ConfirmModal(f"Accept all {len(remaining)} remaining?", lines), confirmed)

    def _record(self, lid: str, what: str, note: str) -> None:
        self.decided[lid] = what
        self.history.append((lid, "local" if what == "skip" and self.data.cards[lid].came_back else what))
        self.last_note = note
        self._advance()

    def core_done(self, message: CoreDone) -> None:
        if message.error is not None:
            return
        lid = message.item or ""
        label = message.label
        if label == "accept_all":
            for done in (message.result or {}).get("accepted", []):
                self.decided[done] = "accept"
                self.history.append((done, "accept"))
            self.last_note = f"✓ accepted {len((message.result or {}).get('accepted', []))} learnings"
        elif label == "undo":
            if self.history:
                self.history.pop()
            self.decided.pop(lid, None)
            if lid in self.queue:
                self.pos = self.queue.index(lid)
            self.last_note = f"↶ undid the last decision on {lid}"
        elif lid:
            note = f"{DECISION_WORDS.get(label, label)} {lid}"
            if label == "reject":
                tomb = (message.result or {}).get("tombstone")
                if tomb is None:
                    note += f" — tombstone {lid}: “”, reason: "
                else:
                    note += f" — tombstone {tomb.id}: “{tomb.pattern}”, reason: {tomb.reason}"
            elif label in ("accept", "edit"):
                promo = (message.result or {}).get("promotion") or {}
                if promo.get("path"):
                    note += f" → written to {promo['path']}"
            self.decided[lid] = label
            self.history.append((lid, label))
            self.last_note = note
            self._advance()
        self._render_card()  # now, from what is known; the reload brings what the store says
        self.reload()
