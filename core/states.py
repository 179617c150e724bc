"""Item states, the transition table, and the fold: events in, state out. Pure and stdlib-only.

The table is the seed's "Item states" table, exactly. Every state-changing event names an
action below; an event whose action is not allowed from the folded state is ignored by the
fold and counted as an anomaly (it can only come from a writer that skipped the lock).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .transitions import (  # noqa: F401 - re-exported: the table lives there, import-light
    ACTION_OF_VERB,
    AWAITING_YOU,
    CHECKS,
    CLOSED,
    CREATION_EVENTS,
    DEVELOPMENT,
    DROPPED,
    ESCALATED,
    FIXING,
    HALLMARKED,
    IN_LOOP,
    NON_TERMINAL,
    REVIEW,
    STATES,
    SYMBOLS,
    TERMINAL,
    TRANSITIONS,
    allowed_actions,
    carries_hallmark,
    target,
)


@dataclass
class ItemView:
    """What the fold knows about an item. item.json and the index store this as JSON."""

    id: str
    state: str = DEVELOPMENT
    title: str = ""
    request: str = ""
    branch: str = ""
    worktree: str = ""
    base: str = ""
    created: str = ""
    updated: str = ""
    state_since: str = ""
    sha: str = ""  # the frozen commit while in the loop
    round: int = 0
    rejects: int = 0  # rejected reviews in this loop (escalates at max_rejects)
    check_failures: int = 0  # failed checks in a row
    run_failures: int = 0  # failed runs in a row
    hold: str = ""  # a hold kind (checks, run_failed, budget, ship_failed, ...) or ""
    hold_reason: str = ""
    hold_since: str = ""  # when the hold began (an inbox entry's age and fingerprint)
    hold_next: list[str] = field(default_factory=list)  # the steps that release this hold, when it names them
    pr: str = ""
    hallmark_sha: str = ""
    events: int = 0
    anomalies: int = 0
    open_questions: list[str] = field(default_factory=list)
    open_findings: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    last_actor: str = ""
    last_event: str = ""
    summary: str = ""
    parent: str = ""
    session: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemView:
        names = cls.__dataclass_fields__
        if data.keys() <= names.keys():
            return cls(**data)  # the index's own rows: every key is a field
        return cls(**{k: v for k, v in data.items() if k in names})

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL


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
        if event.get("held"):
            view.hold = "checks"
            view.hold_reason = str(event.get("reason", "checks failed too many times in a row"))
            view.hold_since = str(event.get("t", ""))
    elif name in ("changes_requested", "escalated"):
        view.rejects += 1
        view.open_findings = int(event.get("open_findings", view.open_findings) or 0)
    elif name == "hallmarked":
        view.hallmark_sha = str(event.get("sha", view.sha))
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
    elif name == "shipped":
        view.pr = str(event.get("pr", view.pr) or "")
    elif name == "reopened":
        view.hallmark_sha = ""


def _on_other(view: ItemView, name: Any, event: dict[str, Any]) -> None:
    if name == "rebased" and carries_hallmark(view.state, event):
        view.hallmark_sha = view.sha = str(event["sha"])
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
        try:
            view.cost_usd = round(view.cost_usd + float(event.get("cost_usd", 0) or 0), 6)
        except (TypeError, ValueError):
            pass
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
    died (`recovered`) or stopped (`interrupted`) is not the item's failure."""
    return bool(event.get("failed")) and not event.get("recovered") and not event.get("interrupted")


def usage_tokens(event: dict[str, Any]) -> int:
    """All tokens of a usage event: input, output, cache read and cache write."""
    if "tokens" in event:
        try:
            return int(event["tokens"] or 0)
        except (TypeError, ValueError):
            return 0
    total = 0
    for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        try:
            total += int(event.get(key, 0) or 0)
        except (TypeError, ValueError):
            pass
    return total


def fold(item_id: str, events: list[dict[str, Any]]) -> ItemView:
    view = ItemView(id=item_id)
    for event in events:
        apply(view, event)
    return view
