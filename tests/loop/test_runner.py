"""The runner across the process boundary: flags, environment, timeouts, and a run killed mid-stream."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hallmark.core import items, states
from hallmark.core import runs as run_files
from hallmark.core.loop import runs
from hallmark.core.runner import command, spawn

BIN = Path(sys.executable).parent

RECORDER = """#!/bin/sh
# records how the runner started `claude`, then hands over to the stand-in
python3 - "$@" <<'PY'
import json, os, sys
with open(os.environ["RECORD"], "a") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
                         "env": {k: os.environ.get(k) for k in ("HALL_ITEM", "HALL_ACTOR",
                                 "CLAUDE_CODE_DISABLE_CLAUDE_MDS", "AGENTMEMORY_PROJECT_NAME", "GH_TOKEN",
                                 "HALL_SESSION_ID")}}) + "\\n")
PY
exec hall-standin-claude "$@"
"""


def test_the_reviewer_is_started_with_every_isolation_flag(loop_repo, ready_item, scenario, kit, tmp_path, monkeypatch):
    recorder = tmp_path / "claude-recorder"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("HALL_CLAUDE", str(recorder))  # HALL_CLAUDE wins over PATH
    monkeypatch.setenv("RECORD", str(record))
    monkeypatch.setenv("GH_TOKEN", "secret-token")
    scenario({"review": [kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED
    calls = [json.loads(x) for x in record.read_text().splitlines()]
    (call,) = [c for c in calls if "hallmark:principal-engineer" in c["argv"]]  # then the librarian distils it
    argv = call["argv"]

    def value(flag: str) -> str:
        return argv[argv.index(flag) + 1]

    assert argv[0] == "-p" and value("--output-format") == "stream-json" and "--verbose" in argv
    assert value("--agent") == "hallmark:principal-engineer"
    assert Path(value("--plugin-dir"), "agents", "principal-engineer.md").is_file()
    assert json.loads(value("--json-schema"))["title"] == "Hallmark verdict"
    assert value("--max-budget-usd") == "6"
    assert value("--setting-sources") == "user" and "--strict-mcp-config" in argv
    settings = json.loads(Path(value("--settings")).read_text())
    assert settings["disableAllHooks"] is True and "WebFetch" in settings["permissions"]["deny"]
    assert settings["sandbox"]["enabled"] is True and settings["sandbox"]["allowUnsandboxedCommands"] is False
    assert {"Bash(hall verdict:*)", "Bash(git push:*)", "Bash(git notes:*)"} <= set(settings["permissions"]["deny"])
    fs = settings["sandbox"]["filesystem"]
    assert "//" + call["cwd"].lstrip("/") in fs["denyWrite"] and fs["allowWrite"] == []  # the reviewer writes nothing
    assert "//" + str(loop_repo.paths.common_dir / "hooks").lstrip("/") in fs["denyWrite"]
    assert "~/.ssh" in fs["denyRead"] and settings["sandbox"]["network"]["allowedDomains"] == []
    assert value("--model") == "opus"
    assert argv[1].startswith(f"# Review {item_id} round 1") and "BASE-RULE-7731" in argv[1]
    assert "Bash(git diff:*)" in value("--allowedTools").split(",")
    env = call["env"]
    assert env["HALL_ITEM"] == item_id and env["HALL_ACTOR"] == "assayer"
    assert env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1" and env["AGENTMEMORY_PROJECT_NAME"]
    assert env["GH_TOKEN"] is None
    assert call["cwd"] == items.fold_item(loop_repo, item_id).worktree
    # a fresh session named before it starts, so a `hall ask` inside it records the session to resume
    ended = next(e for e in kit.events(loop_repo, item_id, "run_ended") if e["role"] == "review")
    assert value("--session-id") == env["HALL_SESSION_ID"] == ended["session"] and "--resume" not in argv


def test_runner_config_names_the_executable_and_a_missing_one_is_a_clear_error(loop_repo, kit):
    kit.write_config(loop_repo.root, "", gates=[])
    with open(loop_repo.root / ".hallmark.toml", "a") as fh:
        fh.write("")
    text = (
        (loop_repo.root / ".hallmark.toml")
        .read_text()
        .replace('claude = "hall-standin-claude"', 'claude = "/nowhere/claude"')
    )
    (loop_repo.root / ".hallmark.toml").write_text(text)
    repo = kit.reopen(loop_repo)
    import pytest
    from hallmark.core.errors import HallError

    with pytest.raises(HallError) as caught:
        command.claude_command(repo)
    assert caught.value.code == "RUN_FAILED" and "[runner] claude" in caught.value.message


def test_a_run_past_its_timeout_is_killed_and_failed(loop_repo, scenario, tmp_path):
    scenario({"dev": [{"sleep": 30}]})
    started = time.monotonic()
    result = spawn.run(loop_repo, spawn.RunSpec(role="dev", prompt="hello", cwd=loop_repo.root, timeout_s=1))
    assert time.monotonic() - started < 15
    assert result.failure == "timed out after 1 s"
    last = json.loads(result.path.read_text().splitlines()[-1])
    assert last["type"] == "hall_run_end" and last["failure"] == "timed out after 1 s"
    ended = [e for e in loop_repo.index.events(kinds=["run_ended"], repo_level=True)]
    assert ended[-1]["failed"] == "timed out after 1 s"


def test_a_run_killed_mid_stream_is_recorded_failed_and_retried_on_the_next_pass(loop_repo, ready_item, scenario, kit):
    scenario({"review": [kit.approve("approved after the crash")], "pace": 0.4})
    item_id = ready_item()
    env = dict(os.environ)
    env["HALL_STANDIN_PACE"] = "0.4"  # slow enough to kill it mid-stream
    daemon = subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(loop_repo.root)],
        cwd=loop_repo.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    run_dir = loop_repo.paths.item_dir(item_id) / "runs"
    deadline = time.monotonic() + 60
    stream = None
    while time.monotonic() < deadline:
        found = sorted(run_dir.glob("*-review.jsonl")) if run_dir.is_dir() else []
        if found and len(found[0].read_text().splitlines()) >= 2:
            stream = found[0]
            break
        time.sleep(0.05)
    assert stream is not None, "the review run never started"
    started = [e for e in kit.events(loop_repo, item_id, "run_started")][-1]
    os.killpg(daemon.pid, signal.SIGKILL)  # the daemon dies: nobody writes the end line
    with contextlib.suppress(ProcessLookupError):
        os.kill(started["pid"], signal.SIGKILL)  # and its claude
    daemon.wait(timeout=10)
    assert "hall_run_end" not in stream.read_text()
    deadline = time.monotonic() + 15  # the run's guard holds its lock until it has ended the run's processes
    while (described := run_files.rows(loop_repo.paths, item_id)[0])["live"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert described["outcome"] == "died" and described["live"] is False
    kit.run_loop(loop_repo)  # the next pass: recorded as failed, then retried
    ended = kit.events(loop_repo, item_id, "run_ended")
    assert ended[0]["failed"] == run_files.DIED and ended[0]["run"] == stream.name and ended[0]["recovered"] is True
    assert ended[1]["failed"] is None
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.CLOSED and view.hold == ""
    assert json.loads(stream.read_text().splitlines()[-1])["failure"] == run_files.DIED
    listed = run_files.rows(loop_repo.paths, item_id)
    assert [r["outcome"] for r in listed if r["role"] == "review"] == ["failed: " + run_files.DIED, "ok"]
    assert listed[1]["session_id"] and listed[1]["cwd"] == view.worktree and listed[1]["tokens"] > 0
    assert runs.recover_dead(loop_repo, item_id) == []  # counted once


def test_a_live_run_is_never_taken_for_dead(loop_repo, scenario):
    from filelock import FileLock

    folder = run_files.runs_dir(loop_repo.paths, None)
    folder.mkdir(parents=True, exist_ok=True)
    stream = folder / "20261130T094312123Z-dev.jsonl"
    stream.write_text(json.dumps({"type": "system", "subtype": "init", "model": "x"}) + "\n")
    lock = FileLock(str(stream.with_suffix(".lock")))
    with lock:
        assert run_files.dead_runs(loop_repo.paths, None) == []
        assert run_files.rows(loop_repo.paths, None)[0]["live"] is True
    assert [r.path for r in run_files.dead_runs(loop_repo.paths, None)] == [stream]


def test_a_prompt_too_long_for_argv_goes_through_stdin(loop_repo):
    from hallmark.core.loop import verdict

    diff = "--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,2 @@\n x = 1\n+y = 2  # FIXME later\n"
    prompt = "# Review\n" + ("filler line\n" * 12_000) + diff
    assert len(prompt) > spawn.ARG_LIMIT
    result = spawn.run(
        loop_repo, spawn.RunSpec(role="review", prompt=prompt, cwd=loop_repo.root, json_schema=verdict.schema())
    )
    assert result.ok, result.failure
    (finding,) = result.structured_output["findings"]
    assert (finding["file"], finding["line"]) == ("app.py", 2)


def _as_in_a_terminal() -> None:
    """Ctrl-C as a person's terminal delivers it: SIGINT neither ignored nor blocked. A test worker can
    hand both on to its children (an xdist worker under CI did: the daemon never saw the signal)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_run_too_and_closes_its_file(loop_repo, ready_item, scenario, kit):
    # a review that talks for ~40 s: Ctrl-C lands while it runs even on a loaded machine (with a short
    # review, the whole daemon could finish, exit 0, before the signal was sent)
    scenario({"review": [{**kit.approve(), "say": ["reading the diff"] * 100}]})
    item_id = ready_item()
    env = dict(os.environ)
    env["HALL_STANDIN_PACE"] = "0.4"
    daemon = subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(loop_repo.root)],
        cwd=loop_repo.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_as_in_a_terminal,
    )
    run_dir = loop_repo.paths.item_dir(item_id) / "runs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = sorted(run_dir.glob("*-review.jsonl")) if run_dir.is_dir() else []
        if found and len(found[0].read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    child = kit.events(loop_repo, item_id, "run_started")[-1]["pid"]
    daemon.send_signal(signal.SIGINT)
    worker = (signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []))
    try:
        code = daemon.wait(timeout=20)
    except subprocess.TimeoutExpired:
        daemon.kill()
        code = None
    assert code == 130, f"the worker's SIGINT handler and blocked signals: {worker}"
    time.sleep(0.2)
    try:
        os.kill(child, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "the stand-in outlived its runner"
    last = json.loads(found[0].read_text().splitlines()[-1])
    assert last["type"] == "hall_run_end" and last["failure"].startswith("interrupted")
    assert kit.events(loop_repo, item_id, "run_ended")[-1]["failed"].startswith("interrupted")
