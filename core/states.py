"""Item states, the transition table, and the fold: events in, state out. Pure and stdlib-only.

The table is the seed's "Item states" table, exactly. Every state-changing event names an
action below; an event whose action is not allowed from the folded state is ignored by the
fold and counted as an anomaly (it can only come from a writer that skipped the lock).

This is the one fold: the index, the verbs, the gates and the hooks all fold through it. The hook
path runs it on every tool call, so the module imports nothing at run time: `ItemView` is a plain
slotted class (as paths.RepoPaths and journal.ReadResult are), because `dataclasses` would pull in
`inspect`, `ast` and `typing` (tens of milliseconds on every hook).
"""

from __future__ import annotations

import contextlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEVELOPMENT = "development"
AWAITING_YOU = "awaiting_you"
CHECKS = "checks"
REVIEW = "review"
FIXING = "fixing"
ESCALATED = "escalated"
HALLMARKED = "hallmarked"
CLOSED = "closed"
DROPPED = "dropped"

STATES: tuple[str, ...] = (
    DEVELOPMENT,
    AWAITING_YOU,
    CHECKS,
    REVIEW,
    FIXING,
    ESCALATED,
    HALLMARKED,
    CLOSED,
    DROPPED,
)
TERMINAL = frozenset({CLOSED, DROPPED})
NON_TERMINAL = tuple(s for s in STATES if s not in TERMINAL)
IN_LOOP = frozenset({CHECKS, REVIEW, FIXING})

# action (the journal event that records it) -> {from state: to state}
TRANSITIONS: dict[str, dict[str, str]] = {
    # the agent thinks it's done: waits for you; with auto_ready a `ready` follows at once
    "proposed_ready": {DEVELOPMENT: AWAITING_YOU},
    "ready": {DEVELOPMENT: CHECKS, AWAITING_YOU: CHECKS},
    "pulled_back": {s: DEVELOPMENT for s in (AWAITING_YOU, CHECKS, REVIEW, FIXING, ESCALATED, HALLMARKED)},
    "checks_passed": {CHECKS: REVIEW},
    "checks_failed": {CHECKS: FIXING},
    "hallmarked": {REVIEW: HALLMARKED},
    "changes_requested": {REVIEW: FIXING},
    "escalated": {REVIEW: ESCALATED},
    "fix_submitted": {FIXING: CHECKS},
    "retried": {ESCALATED: FIXING},
    "shipped": {HALLMARKED: CLOSED},
    # the gates fail on the commit the shipper's rebase made: a new round for the fixer
    "recheck_failed": {HALLMARKED: FIXING},
    "reopened": {CLOSED: DEVELOPMENT},
    "restored": {DEVELOPMENT: CLOSED},
    "dropped": {s: DROPPED for s in NON_TERMINAL},
}

# The verbs people and agents type, and the action each records.
ACTION_OF_VERB: dict[str, str] = {
    "propose-ready": "proposed_ready",
    "ready": "ready",
    "pull-back": "pulled_back",
    "drop": "dropped",
    "retry": "retried",
    "ship": "shipped",
}

CREATION_EVENTS = frozenset({"created", "adopted"})

SYMBOLS: dict[str, str] = {
    DEVELOPMENT: "✎",
    AWAITING_YOU: "?",
    CHECKS: "⚙",
    REVIEW: "◎",
    FIXING: "⚒",
    ESCALATED: "!",
    HALLMARKED: "✓",
    CLOSED: "■",
    DROPPED: "✗",
}


def target(state: str, action: str) -> str | None:
    """The state an action leads to from state, or None when the table forbids it."""
    return TRANSITIONS.get(action, {}).get(state)


def allowed_actions(state: str) -> list[str]:
    return [action for action, moves in TRANSITIONS.items() if state in moves]


CARRYING_ACTORS = frozenset({"shipper", "assayer"})


def carries_hallmark(state: str, event: dict) -> bool:
    """A clean rebase of a hallmarked commit by the shipper carries the approval to the new SHA."""
    sha = event.get("sha")
    return (
        state == HALLMARKED
        and event.get("carried") is True
        and event.get("actor") in CARRYING_ACTORS
        and isinstance(sha, str)
        and bool(sha)
    )


# -- the view -------------------------------------------------------------------------------------

# (field, default) in the order item.json and the index write them; a list default is copied per view
_FIELDS: tuple[tuple[str, Any], ...] = (
    ("state", DEVELOPMENT),
    ("title", ""),
    ("request", ""),
    ("branch", ""),
    ("worktree", ""),
    ("base", ""),
    ("created", ""),
    ("updated", ""),
    ("state_since", ""),
    ("sha", ""),  # the frozen commit while in the loop
    ("round", 0),
    ("rejects", 0),  # rejected reviews in this loop (escalates at max_rejects)
    ("check_failures", 0),  # failed checks in a row
    ("run_failures", 0),  # failed runs in a row
    ("hold", ""),  # a hold kind (checks, run_failed, budget, ship_failed, ...) or ""
    ("hold_reason", ""),
    ("hold_since", ""),  # when the hold began (an inbox entry's age and fingerprint)
    ("hold_next", []),  # the steps that release this hold, when it names them
    ("pr", ""),
    ("hallmark_sha", ""),
    # the indices (0-based, among the journal's events) of the `hallmarked` event that struck the
    # current hallmark and of each carried `rebased` since: gates/hallmark.py follows it to the run
    ("hallmark_chain", []),
    ("events", 0),
    ("anomalies", 0),
    ("open_questions", []),
    ("open_findings", 0),
    ("tokens", 0),
    ("cost_usd", 0.0),
    ("last_actor", ""),
    ("last_event", ""),
    ("summary", ""),
    ("parent", ""),
    ("session", ""),
)
FIELD_NAMES: tuple[str, ...] = ("id", *(name for name, _ in _FIELDS))
_LISTS = frozenset(name for name, default in _FIELDS if isinstance(default, list))


class ItemView:
    """What the fold knows about an item. item.json and the index store this as JSON (to_dict)."""

    __slots__ = FIELD_NAMES

    id: str
    state: str
    title: str
    request: str
    branch: str
    worktree: str
    base: str
    created: str
    updated: str
    state_since: str
    sha: str
    round: int
    rejects: int
    check_failures: int
    run_failures: int
    hold: str
    hold_reason: str
    hold_since: str
    hold_next: list[str]
    pr: str
    hallmark_sha: str
    hallmark_chain: list[int]
    events: int
    anomalies: int
    open_questions: list[str]
    open_findings: int
    tokens: int
    cost_usd: float
    last_actor: str
    last_event: str
    summary: str
    parent: str
    session: str

    def __init__(self, id: str, **values: Any) -> None:
        self.id = id
        for name, default in _FIELDS:
            if name in values:
                setattr(self, name, values.pop(name))
            else:
                setattr(self, name, list(default) if name in _LISTS else default)
        if values:
            raise TypeError(f"ItemView has no field {sorted(values)[0]!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            name: (list(value) if name in _LISTS else value) for name in FIELD_NAMES for value in (getattr(self, name),)
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemView:
        """A view from its JSON (unknown keys, from a newer or older writer, are left out)."""
        view = cls.__new__(cls)
        view.id = data["id"]
        for name, default in _FIELDS:
            value = data.get(name, default)
            setattr(view, name, list(value) if name in _LISTS else value)
        return view

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ItemView) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable: folded in place

    def __repr__(self) -> str:
        return f"ItemView(id={self.id!r}, state={self.state!r}, events={self.events})"

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def active(self) -> bool:
        """Created and not finished: the item whose worktree a gate or a hook may bind to."""
        return bool(self.created) and self.state not in TERMINAL


# -- the fold -------------------------------------------------------------------------------------


def apply(view: ItemView, event: dict[str, Any]) -> ItemView:
    """Fold one event into the view (mutates and returns it)."""
    name = event.get("event")
    t = event.get("t", "")
    view.events += 1
    view.updated = t or view.updated
    view.last_actor = str(event.get("actor", ""))
    view.last_event = str(name)
    if name in CREATION_EVENTS:
        if view.events == 1 or not view.created:
            view.created = t
            view.state_since = t
            view.state = DEVELOPMENT
        for key in ("title", "request", "branch", "worktree", "base", "parent"):
            value = event.get(key)
            if isinstance(value, str) and value:
                setattr(view, key, value)
        return view
    if name in TRANSITIONS:
        nxt = target(view.state, name)
        if name == "retried" and view.hold:
            view.hold = ""
            view.hold_reason = ""
            view.hold_next = []
            view.check_failures = 0
            view.run_failures = 0
            if view.state != ESCALATED:
                return view
            nxt = target(view.state, name)
        if nxt is None:
            view.anomalies += 1
            return view
        _on_transition(view, name, event)
        if nxt != view.state:
            view.state = nxt
            view.state_since = t
        return view
    _on_other(view, name, event)
    return view


def _on_transition(view: ItemView, name: str, event: dict[str, Any]) -> None:
    if name == "ready":
        view.sha = str(event.get("sha", view.sha))
        view.round = int(event.get("round", view.round + 1) or 0)
        view.rejects = 0
        view.check_failures = 0
        view.run_failures = 0
        view.hold = ""
        view.hold_next = []
    elif name == "checks_passed":
        view.check_failures = 0
    elif name in ("checks_failed", "recheck_failed"):
        view.check_failures += 1
        if name == "recheck_failed":  # the rebased commit is the fixer's starting point: a new round
            view.sha = str(event.get("sha", view.sha))
            view.round = int(event.get("round", view.round + 1) or view.round + 1)
            view.hallmark_sha = ""
            view.hallmark_chain = []
        if event.get("held"):
            view.hold = "checks"
            view.hold_reason = str(event.get("reason", "checks failed too many times in a row"))
            view.hold_since = str(event.get("t", ""))
    elif name in ("changes_requested", "escalated"):
        view.rejects += 1
        view.open_findings = int(event.get("open_findings", view.open_findings) or 0)
    elif name == "hallmarked":
        view.hallmark_sha = str(event.get("sha", view.sha))
        view.hallmark_chain = [view.events - 1]  # this event's index: apply counted it already
        view.open_findings = 0
    elif name == "fix_submitted":
        view.sha = str(event.get("sha", view.sha))
        view.round += 1
    elif name == "retried":
        view.rejects = 0
    elif name == "pulled_back":
        view.sha = ""
        view.hold = ""
        view.hold_reason = ""
        view.hold_next = []
        view.hallmark_sha = ""
        view.hallmark_chain = []
    elif name == "shipped":
        view.pr = str(event.get("pr", view.pr) or "")
    elif name == "reopened":
        view.hallmark_sha = ""
        view.hallmark_chain = []


def _on_other(view: ItemView, name: Any, event: dict[str, Any]) -> None:
    if name == "rebased" and carries_hallmark(view.state, event):
        view.hallmark_sha = view.sha = str(event["sha"])
        view.hallmark_chain = [*view.hallmark_chain, view.events - 1]
    elif name == "held":
        view.hold = str(event.get("kind", "hold"))
        view.hold_reason = str(event.get("reason", ""))
        view.hold_since = str(event.get("t", ""))
        steps = event.get("next")
        view.hold_next = [str(s) for s in steps] if isinstance(steps, list) else []
    elif name == "released":
        view.hold = ""
        view.hold_reason = ""
        view.hold_next = []
    elif name == "question":
        qid = event.get("qid")
        if isinstance(qid, str) and qid not in view.open_questions:
            view.open_questions.append(qid)
    elif name in ("answered", "question_defaulted"):
        qid = event.get("qid")
        if qid in view.open_questions:
            view.open_questions.remove(qid)
    elif name == "usage":
        view.tokens += usage_tokens(event)
        with contextlib.suppress(TypeError, ValueError):
            view.cost_usd = round(view.cost_usd + float(event.get("cost_usd", 0) or 0), 6)
    elif name == "run_ended":
        if counts_as_failed_run(event):
            view.run_failures += 1
        elif not event.get("failed"):
            view.run_failures = 0
    elif name == "proposed_summary":
        view.summary = str(event.get("summary", ""))
    elif name == "titled":
        view.title = str(event.get("title", view.title))
    elif name == "session_bound":
        view.session = str(event.get("session", ""))


def counts_as_failed_run(event: dict[str, Any]) -> bool:
    """A failed run counts against the item, unless the loop itself cut it short: a daemon that
    died (`recovered`) or stopped (`interrupted`) is not the item's failure, nor a plan limit, an
    API rate limit or an overloaded API (`rate_limited`: the loop pauses; such a run neither counts
    nor ends a streak)."""
    return (
        bool(event.get("failed"))
        and not event.get("recovered")
        and not event.get("interrupted")
        and not event.get("rate_limited")
    )


def usage_tokens(event: dict[str, Any]) -> int:
    """All tokens of a usage event: input, output, cache read and cache write."""
    if "tokens" in event:
        try:
            return int(event["tokens"] or 0)
        except (TypeError, ValueError):
            return 0
    total = 0
    for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        with contextlib.suppress(TypeError, ValueError):
            total += int(event.get(key, 0) or 0)
    return total


def fold(item_id: str, events: list[dict[str, Any]]) -> ItemView:
    view = ItemView(id=item_id)
    for event in events:
        apply(view, event)
    return view
