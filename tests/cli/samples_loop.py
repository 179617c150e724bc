"""Samples of the review loop's results (verdict, fixed, next, daemon, verify), for
tests/cli/test_results.py: one of each type, every optional key left out."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results
from hallmark.core.loop import findings
from hallmark.core.loop import results as loop
from hallmark.core.states import ItemView
from hallmark.core.verify import Verified

VIEW = ItemView("H-0001", title="t", state="fixing", branch="b", worktree="/w", base="main")
STATUS = {
    "running": False,
    "pid": None,
    "started": None,
    "heartbeat": None,
    "heartbeat_age_s": None,
    "passes": 0,
    "stop_requested": False,
    "stale": False,
    "state_file": "/d/daemon.json",
}
LEASE = loop.Lease(item="H-0001", holder="fixer@h:1", role="fixer", pid=0, host="h", acquired="t0", expires="t1")
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    loop.VerdictHallmarked: lambda: loop.VerdictHallmarked(
        item="H-0001",
        outcome="hallmarked",
        sha="abc",
        note={"v": 1},
        human_override=True,
        state="hallmarked",
        view=VIEW,
    ),
    loop.VerdictReturned: lambda: loop.VerdictReturned(
        item="H-0001", outcome="changes_requested", open_findings=["F-1"], state="fixing", view=VIEW
    ),
    loop.FixRecorded: lambda: loop.FixRecorded(
        item="H-0001", fixed=["F-1"], disputed=[], sha="abc", state="checks", submitted=True
    ),
    loop.Lease: lambda: LEASE,
    loop.Claimed: lambda: loop.Claimed(
        item="H-0001", state="fixing", role="fixer", work="fix the open findings", sha="abc", worktree="/w", lease=LEASE
    ),
    loop.NothingToClaim: lambda: loop.NothingToClaim(item=None, role="fixer", work=None),
    loop.DaemonStatus: lambda: loop.DaemonStatus(**STATUS),
    loop.DaemonAlreadyRunning: lambda: loop.DaemonAlreadyRunning(**STATUS),
    loop.DaemonStarted: lambda: loop.DaemonStarted(**STATUS, started_pid=7, log="/d/daemon.log"),
    loop.DaemonStopped: lambda: loop.DaemonStopped(**STATUS, stopped=False),
    loop.DaemonRun: lambda: loop.DaemonRun(passes=1, steps=[{"item": "H-0001", "outcome": "checks_passed"}]),
    findings.FailingCheck: lambda: findings.FailingCheck(
        command="pytest -q", exit_code=1, sha="abc", log=None, output="1 failed"
    ),
    Verified: lambda: Verified(
        ref="HEAD",
        sha="abc",
        item="H-0001",
        actor="assayer",
        round=1,
        carried_from=None,
        reason="ok",
        ok=True,
        journal="checked",
    ),
}
