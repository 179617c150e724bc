"""Headless runs die with the daemon, and a daemon's death is not the item's failure.

Real daemons (`hall daemon run`) are killed with SIGKILL or stopped with SIGTERM mid-run; the
stand-in `claude` is the run's process. The run guard must end the run's whole process group,
the run lock must stay held while any of its processes live, and the next pass must record the
run without counting it against the item.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hallmark.core import items, states
from hallmark.core import runs as run_files
from hallmark.core.runner import lifecycle
from hallmark.core.runs import lock_is_held

BIN = Path(sys.executable).parent


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait(predicate, timeout: float = 60.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def _start_daemon(repo) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(repo.root)],
        cwd=repo.root,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _live_review(repo, item_id: str, kit, seen: int) -> dict:
    """Wait until the daemon has started review run number seen+1; its run_started event."""

    def started() -> bool:
        return len([e for e in kit.events(repo, item_id, "run_started") if e["role"] == "review"]) > seen

    assert _wait(started), "the review run never started"
    event = [e for e in kit.events(repo, item_id, "run_started") if e["role"] == "review"][-1]
    stream = repo.paths.item_dir(item_id) / "runs" / event["run"]
    assert _wait(lambda: stream.exists() and stream.stat().st_size > 0)
    return event


def test_a_run_dies_with_a_daemon_killed_without_a_word(loop_repo, ready_item, scenario, kit):
    scenario({"review": [{"sleep": 0, "say": ["thinking"], "commands": ["sleep 60"]}, kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo, max_passes=1)  # checks pass: review is next
    daemon = _start_daemon(loop_repo)
    started = _live_review(loop_repo, item_id, kit, 0)
    group = int(started["pid"])
    lock = loop_repo.paths.item_dir(item_id) / "runs" / Path(started["run"]).with_suffix(".lock").name
    assert _group_alive(group) and lock_is_held(lock)
    os.killpg(daemon.pid, signal.SIGKILL)  # the daemon's own group: the run has a session of its own
    daemon.wait(timeout=10)
    assert _wait(lambda: not _group_alive(group), timeout=20), "the run outlived its daemon"
    assert _wait(lambda: not lock_is_held(lock), timeout=10)
    kit.run_loop(loop_repo)  # the next daemon: the dead run is recorded, not counted, and the review reruns
    ended = [e for e in kit.events(loop_repo, item_id, "run_ended") if e["role"] == "review"]
    assert ended[0]["failed"] == run_files.DIED and ended[0]["recovered"] is True
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.CLOSED and view.hold == ""


def test_two_daemon_crashes_during_a_review_do_not_hold_the_item(loop_repo, ready_item, scenario, kit):
    scenario({"review": [{"commands": ["sleep 60"]}, {"commands": ["sleep 60"]}, kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo, max_passes=1)
    for crash in range(2):
        daemon = _start_daemon(loop_repo)
        started = _live_review(loop_repo, item_id, kit, crash)
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait(timeout=10)
        assert _wait(lambda started=started: not _group_alive(int(started["pid"])), timeout=20)
    kit.run_loop(loop_repo)
    view = items.fold_item(loop_repo, item_id)
    assert view.hold == "" and view.state == states.CLOSED
    ended = [e for e in kit.events(loop_repo, item_id, "run_ended") if e["role"] == "review"]
    assert [bool(e.get("recovered")) for e in ended] == [True, True, False]


def test_a_stopped_daemon_ends_its_run_and_says_so(loop_repo, ready_item, scenario, kit):
    scenario({"review": [{"commands": ["sleep 60"]}, kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo, max_passes=1)
    daemon = _start_daemon(loop_repo)
    started = _live_review(loop_repo, item_id, kit, 0)
    os.kill(daemon.pid, signal.SIGTERM)
    assert daemon.wait(timeout=30) != 0
    assert _wait(lambda: not _group_alive(int(started["pid"])), timeout=10)
    stream = loop_repo.paths.item_dir(item_id) / "runs" / started["run"]
    end = json.loads(stream.read_text().splitlines()[-1])
    assert end["type"] == "hall_run_end" and end["failure"].startswith("interrupted")
    (ended,) = [e for e in kit.events(loop_repo, item_id, "run_ended") if e["role"] == "review"]
    assert ended["interrupted"] is True
    assert items.fold_item(loop_repo, item_id).run_failures == 0
    lease = loop_repo.state_dir / "leases" / f"{item_id}.json"
    assert not lease.exists()  # released on the way out
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED


def test_the_run_lock_is_held_while_any_process_of_the_run_lives(tmp_path):
    lock_path = tmp_path / "run.lock"
    lock = lifecycle.RunLock(lock_path)
    lock.acquire()
    proc = lifecycle.popen_guarded([sys.executable, "-c", "import time; time.sleep(1.5)"], pass_fds=lock.pass_fds)
    lock.release()  # the runner lets go (or dies): the guard's copy still holds the run's lock
    assert lock_is_held(lock_path)
    proc.wait(timeout=30)
    assert not lock_is_held(lock_path)


def test_the_guard_ends_its_group_when_its_parent_dies(tmp_path):
    """A parent (standing in for the daemon) starts a guarded sleeper, then dies by SIGKILL."""
    marker = tmp_path / "pgid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time; from hallmark.core.runner import lifecycle\n"
                f"p = lifecycle.popen_guarded(['sleep', '60'])\n"
                f"open({str(marker)!r}, 'w').write(str(p.pid))\n"
                "time.sleep(60)\n"
            ),
        ],
        start_new_session=True,
    )
    assert _wait(lambda: marker.exists() and marker.read_text().strip() != "", timeout=30)
    group = int(marker.read_text())
    assert _group_alive(group)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    assert _wait(lambda: not _group_alive(group), timeout=20)


def test_a_gate_timeout_ends_everything_the_gate_started(loop_repo, tmp_path):
    from hallmark.core.loop import checks

    pid_file = tmp_path / "child.pid"
    code, _ms, timed_out = checks.run_gate(
        f"(sleep 60 & echo $! > {pid_file}; wait)", loop_repo.root, tmp_path / "gate.log", 1.0
    )
    assert timed_out and code == checks.TIMEOUT_EXIT
    child = int(pid_file.read_text())
    assert _wait(
        lambda: not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2],
        timeout=10,
    )


def test_what_a_finished_gate_left_running_is_stopped(loop_repo, tmp_path):
    from hallmark.core.loop import checks

    pid_file = tmp_path / "left.pid"
    code, _ms, timed_out = checks.run_gate(
        f"sleep 60 & echo $! > {pid_file}", loop_repo.root, tmp_path / "gate.log", 30.0
    )
    assert code == 0 and not timed_out
    left = int(pid_file.read_text())
    assert _wait(
        lambda: not Path(f"/proc/{left}").exists() or "Z" in Path(f"/proc/{left}/stat").read_text().split()[2],
        timeout=10,
    ), "a background process outlived its gate"


def test_the_guard_exits_with_its_commands_code():
    for command, code in (
        (["sh", "-c", "exit 3"], 3),
        (["sh", "-c", "kill -9 $$"], 137),
        (["no-such-program-hallmark"], 127),
    ):
        assert subprocess.run(lifecycle.guarded(command), capture_output=True).returncode == code


def test_the_guard_never_signals_the_group_of_whoever_started_it(tmp_path):
    """Started without a session of its own, the guard still ends only its own group."""
    marker = tmp_path / "alive"
    caller = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import subprocess, time\n"
                "from hallmark.core.runner import lifecycle\n"
                "subprocess.run(lifecycle.guarded(['sh', '-c', 'sleep 30 & exit 0']))\n"
                "time.sleep(1.0)\n"
                f"open({str(marker)!r}, 'w').write('alive')\n"
            ),
        ],
        start_new_session=True,
    )
    assert caller.wait(timeout=60) == 0
    assert marker.read_text() == "alive"
