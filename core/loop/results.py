"""What the review loop's verbs answer: typed results the faces read by attribute.

`hall verdict` (review.person_verdict), `hall fixed` (fix.mark_fixed), `hall next` (leases.claim)
and `hall daemon start|stop|status|run` (daemon.py). `to_dict()` gives the JSON reply's keys in the
CLI's order, without `next`: tui/cli/loop.py adds it (from `view` where it depends on the state).
"""

from __future__ import annotations

from typing import Any, Literal

from hallmark.core.results import Result, hidden
from hallmark.core.states import ItemView


class VerdictHallmarked(Result):
    """A verdict with nothing blocking: the hallmark note struck on the reviewed commit."""

    item: str
    outcome: Literal["hallmarked"]
    sha: str
    note: dict[str, Any]  # the note as written to refs/notes/hallmark (its own versioned format)
    human_override: bool
    state: str
    view: ItemView = hidden()  # what `next` depends on


class VerdictReturned(Result):
    """A verdict with blocking findings: back to fixing, or escalated to a person after
    `max_rejects`. `human_override` only when a person recorded it (`hall verdict`)."""

    OPTIONAL = frozenset({"human_override"})

    item: str
    outcome: Literal["changes_requested", "escalated"]
    open_findings: list[str]
    state: str
    human_override: bool | None = None
    view: ItemView = hidden()


VerdictApplied = VerdictHallmarked | VerdictReturned


class FixRecorded(Result):
    """`hall fixed`: the findings HEAD fixes and the ones disputed; resubmitted to checks unless
    `--no-submit`."""

    item: str
    fixed: list[str]
    disputed: list[str]
    sha: str
    state: str
    submitted: bool = hidden()


class Lease(Result):
    """One worker's hold on an item (`<state_dir>/leases/<ID>.json`), until it expires."""

    item: str
    holder: str
    role: str
    pid: int
    host: str
    acquired: str
    expires: str

    @classmethod
    def of(cls, lease: dict[str, Any]) -> Lease:
        return cls(**{name: lease[name] for name in cls._fields})


class Claimed(Result):
    """`hall next`: the item claimed for the role, with its lease and the work it needs."""

    item: str
    state: str
    role: str
    work: str
    sha: str
    worktree: str
    lease: Lease


class NothingToClaim(Result):
    """`hall next`: no item has work for the role now."""

    item: None
    role: str
    work: None


class DaemonStatus(Result):
    """`hall daemon status`: is a daemon running on this host, and is its heartbeat fresh?"""

    running: bool
    pid: int | None
    started: str | None
    heartbeat: str | None
    heartbeat_age_s: float | None
    passes: int
    stop_requested: bool
    stale: bool  # one should run but has no heartbeat
    state_file: str


class DaemonAlreadyRunning(DaemonStatus):
    """`hall daemon start` when one runs already: its status, unchanged."""

    already: Literal[True] = True


class DaemonStarted(DaemonStatus):
    """`hall daemon start`: the detached daemon's status, pid and log file."""

    started_pid: int
    log: str


class DaemonStopped(DaemonStatus):
    """`hall daemon stop`: the status after asking; stopped is false when none ran (or it did not
    stop in time)."""

    stopped: bool


class DaemonRun(Result):
    """`hall daemon run`: the passes made and every step taken (printed as they happened).

    A step stays a dict: it is whatever its worker answered (checks, review, fix, ship, resume,
    librarian, recovered runs, defaulted questions, a blocked repo), a dozen shapes that vary
    within one worker too (a review is hallmarked, returned, run_failed or stopped by a bound),
    and `hall daemon run` prints each as the JSON line scripts already read."""

    passes: int
    steps: list[dict[str, Any]]
