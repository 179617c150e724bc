"""The states, the transition table and the verbs, without the fold: pure data, import-light.

states.py re-exports every name here; this module exists so the hook path (which runs on every
tool call) can read the table without importing dataclasses.
"""

from __future__ import annotations

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
    "pulled_back": {
        s: DEVELOPMENT for s in (AWAITING_YOU, CHECKS, REVIEW, FIXING, ESCALATED, HALLMARKED)
    },
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
    return (state == HALLMARKED and event.get("carried") is True and event.get("actor") in CARRYING_ACTORS
            and isinstance(sha, str) and bool(sha))
