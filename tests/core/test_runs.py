"""core/runs.py: the run-lock probe (a runner's exclusive lock reads as live; other probes never do), a
run's outcome, and the one listing of runs that every face shows."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hallmark.core.runs import lock_is_held, outcome

fcntl = pytest.importorskip("fcntl", reason="flock probes are POSIX-only")


def _hold(lock: Path, mode: int) -> int:
    fd = os.open(str(lock), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, mode | fcntl.LOCK_NB)
    return fd


def test_missing_and_free_locks_are_not_held(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    assert not lock_is_held(lock)
    lock.touch()
    assert not lock_is_held(lock)


def test_runner_lock_in_another_process_is_held(tmp_path: Path) -> None:
    """The runner uses filelock (an exclusive flock) in its own process."""
    lock = tmp_path / "run.lock"
    code = (
        "import sys, filelock; l = filelock.FileLock(sys.argv[1]); l.acquire(); "
        "print('ok', flush=True); sys.stdin.read()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ok"
        assert lock_is_held(lock)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert not lock_is_held(lock)


def test_another_probe_at_the_same_moment_is_not_a_live_run(tmp_path: Path) -> None:
    """A probe in flight holds a shared lock; a second probe must not read that as a runner."""
    lock = tmp_path / "run.lock"
    fd = _hold(lock, fcntl.LOCK_SH)
    try:
        assert not lock_is_held(lock)
    finally:
        os.close(fd)


def test_probes_from_many_threads_never_see_a_free_lock_as_held(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    lock.touch()
    false_lives: list[bool] = []

    def probe() -> None:
        false_lives.extend(True for _ in range(300) if lock_is_held(lock))

    threads = [threading.Thread(target=probe) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert false_lives == []


def _stream(tmp_path: Path, *lines: dict) -> Path:
    import json

    path = tmp_path / "20261130T094312123Z-review.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_run_outcome_comes_from_its_lock_and_its_end_line(tmp_path: Path) -> None:
    init = {"type": "system", "subtype": "init", "session_id": "s"}
    long_result = {"type": "result", "result": "x" * 50_000}  # far longer than the tail that is read
    ok = _stream(tmp_path, init, long_result, {"type": "hall_run_end", "failure": None})
    assert outcome(ok) == ("ok", "")
    failed = _stream(tmp_path, init, {"type": "hall_run_end", "failure": "the run timed out after 30 s"})
    assert outcome(failed) == ("failed", "the run timed out after 30 s")
    # no end line, but Claude's own result line last (read whole, however long): it finished
    finished = _stream(tmp_path, init, long_result)
    assert outcome(finished) == ("finished", "its result line; no runner end line")
    died = _stream(tmp_path, init, {"type": "assistant", "message": {"content": []}})
    assert outcome(died)[0] == "died"
    fd = _hold(died.with_suffix(".lock"), fcntl.LOCK_EX)  # the runner's lock: it is still going
    try:
        assert outcome(died) == ("live", "")
    finally:
        os.close(fd)
    assert outcome(tmp_path / "gone.jsonl")[0] == "died"
