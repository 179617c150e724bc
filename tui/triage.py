"""The triage actions on one item, shared by the board, the triage list, an item's detail and the
command palette: one implementation, so a key and a palette entry do exactly the same thing.

Every action goes through a core verb (items.ready, pull_back, drop, retry; questions.answer).
What changes an item's state asks first: ready and pull back take a y/n confirmation that names
the item and what will happen; drop and retry take a reason; answer shows the question. Whether an action
applies is decided from the Building the screen shows (no I/O on a key press); the core checks
again when it acts, and a refusal is shown, never swallowed.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallmark.core import items, questions, rooms, states
from hallmark.core.actor import require_person
from hallmark.core.states import ItemView

from . import programs
from .screens.modals import ConfirmModal, ReasonModal

if TYPE_CHECKING:
    from hallmark.core.building import Building

    from .protocols import HallmarkAppLike


@dataclass(frozen=True)
class Action:
    name: str  # the action method's name (action_<name>) and the palette's verb
    key: str
    label: str  # the footer's word
    binding_id: str
    palette: str  # the palette's text, with {id} and {title}
    help: str


ACTIONS: tuple[Action, ...] = (
    Action("ready", "r", "Ready", "triage.ready", "Ready {id}: start checks", "Freeze the commit and queue the checks"),
    Action(
        "pull_back",
        "p",
        "Pull back",
        "triage.pull_back",
        "Pull back {id}",
        "Back to development (the loop stops working on it)",
    ),
    Action("drop", "d", "Drop", "triage.drop", "Drop {id}…", "Give it up, with a reason the journal keeps"),
    Action("retry", "R", "Retry", "triage.retry", "Retry {id}…", "One more round after an escalation or a hold"),
    Action("answer", "a", "Answer", "triage.answer", "Answer {id}'s question…", "Answer its open question"),
    Action("open_editor", "e", "Editor", "triage.editor", "Edit {id} in $EDITOR", "Open its worktree in your editor"),
    Action("runs", "t", "Runs", "triage.runs", "Runs of {id}", "Its headless runs (enter follows a trace)"),
    Action("diff", "D", "Diff", "triage.diff", "Diff of {id}", "The change against its merge-base, findings inline"),
)
BY_NAME = {a.name: a for a in ACTIONS}
NAMES = frozenset(BY_NAME) | {"open_item"}


def applies(name: str, view: ItemView, building: Building | None) -> bool:
    """Does the action make sense for this item in the state the screen shows?"""
    state = view.state
    if name == "ready":
        return states.target(state, "ready") is not None
    if name == "pull_back":
        return states.target(state, "pulled_back") is not None
    if name == "drop":
        return not view.terminal
    if name == "retry":
        return states.target(state, "retried") is not None or bool(view.hold)
    if name == "answer":
        return bool(building and building.open_questions(view.id))
    if name == "open_editor":
        return bool(view.worktree) and not view.terminal
    return True


def unavailable(name: str) -> str:
    """Why an action cannot run on this machine at all (a missing program), or ""."""
    if name == "open_editor":
        return programs.editor().missing
    if name == "diff":
        return programs.git().missing
    return ""


def act(app: HallmarkAppLike, name: str, view: ItemView) -> None:
    """Run one triage action on one item (after its confirmation, reason or question)."""
    building = app.building
    missing = unavailable(name)
    if missing:
        app.notify(missing, title=f"{BY_NAME[name].label}: not available", severity="warning", timeout=8)
        return
    if name not in ("open_item", "runs", "diff") and not applies(name, view, building):
        app.notify(
            f"{BY_NAME[name].label} does not apply to {view.id} in {rooms.state_label(view.state)}.",
            severity="warning",
            timeout=5,
        )
        return
    {
        "open_item": lambda: app.open_item(view.id),
        "ready": lambda: _confirm(
            app,
            view,
            "ready",
            f"Ready {view.id}?",
            [f"{view.id}: {view.title}", "Its current commit is frozen and the checks start; the review follows."],
            items.ready,
        ),
        "pull_back": lambda: _confirm(
            app,
            view,
            "pulled back",
            f"Pull {view.id} back to development?",
            [
                f"{view.id}: {view.title} (now {rooms.state_label(view.state)})",
                "The loop stops working on it; `r` makes it ready again.",
            ],
            items.pull_back,
            reason="pulled back from the app",
        ),
        "drop": lambda: _reason(
            app,
            view,
            "dropped",
            f"Drop {view.id}: {view.title}",
            "Why drop it? The journal keeps the reason.",
            items.drop,
        ),
        "retry": lambda: _reason(
            app, view, "retried", f"Retry {view.id}: {view.title}", "Allow one more round. Why?", items.retry
        ),
        "answer": lambda: answer_question(app, dict(building.open_questions(view.id)[0])) if building else None,
        "open_editor": lambda: open_in_editor(app, view),
        "runs": lambda: app.call_later(app.show_runs, view.id),
        "diff": lambda: _diff(app, view),
    }[name]()


def person_call(verb: Any, what: str) -> Any:
    """A core verb that only a person may call: refused under an agent (core.actor), as the CLI does."""

    def call(repo: Any, *args: Any, **kwargs: Any) -> Any:
        actor = require_person(what)
        return verb(repo, *args, actor=actor, **kwargs)

    return call


def _confirm(
    app: HallmarkAppLike, view: ItemView, label: str, title: str, lines: list[str], verb: Any, **kwargs: Any
) -> None:
    def done(yes: bool | None) -> None:
        if yes:
            app.core_call(label, person_call(verb, label), view.id, item=view.id, **kwargs)

    app.push_screen(ConfirmModal(title, lines), done)


def _reason(app: HallmarkAppLike, view: ItemView, label: str, title: str, prompt: str, verb: Any) -> None:
    def done(reason: str | None) -> None:
        if reason:
            app.core_call(label, person_call(verb, label), view.id, reason=reason, item=view.id)

    app.push_screen(ReasonModal(title, prompt, placeholder="reason"), done)


def _diff(app: HallmarkAppLike, view: ItemView) -> None:
    from .screens.diff import DiffScreen

    assert app.repo is not None
    app.push_screen(DiffScreen(app.repo, view.id))


def answer_question(app: HallmarkAppLike, question: dict[str, Any]) -> None:
    """A modal with the question and its options (a letter picks one), then questions.answer."""
    options = question.get("options") or []
    lines = [question.get("question", "")]
    for i, option in enumerate(options):
        lines.append(f"  {chr(ord('a') + i)}) {option}")
    if question.get("default"):
        lines.append(f"default: {question['default']}")

    def done(text: str | None) -> None:
        if text:
            app.core_call(
                "answered", person_call(questions.answer, "answer"), question["qid"], text, item=question.get("item")
            )

    app.push_screen(ReasonModal(f"Answer {question['qid']}", "\n".join(lines), placeholder="your answer"), done)


def open_in_editor(app: HallmarkAppLike, view: ItemView) -> None:
    """$EDITOR (else $VISUAL, else vi) on the item's worktree, with the app suspended."""
    editor = programs.editor()
    if editor.missing:
        app.notify(editor.missing, title="no editor", severity="warning", timeout=8)
        return
    if not view.worktree or not Path(view.worktree).is_dir():
        app.notify(f"{view.id} has no worktree on disk.", severity="warning")
        return
    code = app.run_external([*editor.command, view.worktree], cwd=view.worktree)
    if code:
        app.notify(f"{shlex.join(editor.command)} exited with {code}", severity="warning")
