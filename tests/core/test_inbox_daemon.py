"""A daemon that should be running but has no heartbeat shows in Your Office, derived on read."""

import json

from hallmark.core import inbox
from hallmark.core.loop import daemon_state as daemon


def test_a_dead_daemon_that_should_run_is_in_the_inbox(hall_repo):
    path = daemon.state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # a pid that cannot be alive, a heartbeat long ago, and the daemon was expected to keep running
    path.write_text(
        json.dumps(
            {
                "pid": 2**22 + 12345,
                "started": "2026-01-01T00:00:00.000Z",
                "heartbeat": "2026-01-01T00:05:00.000Z",
                "expected": True,
            }
        )
    )
    kinds = [e["kind"] for e in inbox.report(hall_repo)["entries"]]
    assert kinds == ["daemon stopped"]
    # a daemon that was stopped on purpose is not an escalation
    path.write_text(json.dumps({"pid": None, "started": "2026-01-01T00:00:00.000Z", "expected": False}))
    assert inbox.report(hall_repo)["entries"] == []
