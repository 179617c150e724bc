"""The learning state machine: which decision moves a learning from which status to which.

proposed -> accepted -> (promoted) -> retired; proposed -> rejected (a tombstone);
proposed -> skipped -> (offered again; accept/reject/skip from there). A rejected or retired
learning comes back only through `review --reopen`. Stdlib only.
"""

from __future__ import annotations

from hallmark.core.errors import HallError

STATUSES = ("proposed", "skipped", "accepted", "promoted", "rejected", "retired")
PENDING = frozenset({"proposed", "skipped"})
ACTIVE = frozenset({"accepted", "promoted"})  # the only statuses that ever reach a prompt or a file

# action -> {from: to}. "accept" lands on accepted; promotion moves it on to promoted.
TRANSITIONS: dict[str, dict[str, str]] = {
    "accept": {"proposed": "accepted", "skipped": "accepted"},
    "skip": {"proposed": "skipped", "skipped": "skipped"},
    "reject": {"proposed": "rejected", "skipped": "rejected"},
    "promote": {"accepted": "promoted"},
    "unpromote": {"promoted": "accepted"},
    "retire": {"accepted": "retired", "promoted": "retired"},
    "reopen": {"rejected": "proposed", "retired": "proposed"},
    # bookkeeping actions that keep the status
    "merge": {s: s for s in STATUSES},
    "propose_retirement": {"accepted": "accepted", "promoted": "promoted"},
    "keep": {"accepted": "accepted", "promoted": "promoted"},
    "reconcile": {"accepted": "accepted", "promoted": "promoted"},
    "edit": {s: s for s in STATUSES},
}


def next_status(action: str, status: str | None, lid: str = "") -> str:
    """The status after action, or WRONG_STATE naming what is allowed."""
    table = TRANSITIONS.get(action)
    if table is None:
        raise HallError("USAGE", f"unknown library action '{action}'", ["hall library --help"])
    if status not in table:
        allowed = ", ".join(sorted(table)) or "none"
        hint = {
            "rejected": [f"hall library review --reopen {lid}"],
            "retired": [f"hall library review --reopen {lid}"],
        }.get(status or "", [f"hall library show {lid}"])
        raise HallError(
            "WRONG_STATE",
            f"{lid or 'the learning'} is {status}; '{action}' needs one of: {allowed}.",
            hint,
        )
    return table[status]
