"""Take-over and `hall new --open`: the command, directory and environment each launched process sees."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.takeover import takeover
from hallmark.tui.cli.meta import reply_schema

SESSION = "1d1e46f9-35c7-4834-b529-846d5bb82288"


def _identity(repo) -> str:
    """The committed project identity `hall init` proposed (what memory tools are keyed by)."""
    return (repo.root / ".agentmemory-project").read_text().strip()


def _stream(path: Path, cwd: Path, *, ended: bool) -> None:
    lines = [
        {
            "type": "system",
            "subtype": "init",
            "cwd": str(cwd),
            "session_id": SESSION,
            "model": "hallmark-standin",
            "tools": ["Read"],
            "permissionMode": "default",
        },
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "reviewing"}]},
            "session_id": SESSION,
        },
    ]
    if ended:
        lines.append(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "session_id": SESSION,
                "total_cost_usd": 0,
                "num_turns": 1,
                "result": "ok",
            }
        )
        lines.append(
            {
                "type": "hall_run_end",
                "role": "review",
                "item": "x",
                "exit_code": 0,
                "duration_ms": 5,
                "failure": None,
                "cwd": str(cwd),
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _in_review(repo, new_item, commit_all):
    item_id, wt = new_item("reviewed")
    (wt / "r.py").write_text("r = 1\n")
    sha = commit_all(wt)
    items.ready(repo, item_id)
    items.transition(repo, item_id, "checks_passed", actor="assayer", sha=sha)
    return item_id, wt


def _live_runner(lock: Path, tmp_path: Path) -> subprocess.Popen:
    """A real process holding the run's lock, like the runner does while `claude -p` runs."""
    flag = tmp_path / "runner-holds-lock"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, os, time\n"
                f"fd = os.open({str(lock)!r}, os.O_CREAT | os.O_RDWR)\n"
                "fcntl.flock(fd, fcntl.LOCK_EX)\n"
                f"open({str(flag)!r}, 'w').close()\n"
                "time.sleep(60)\n"
            ),
        ],
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert flag.exists()
    return proc


def test_takeover_stops_the_live_run_and_resumes_by_hand(
    hall_repo, new_item, commit_all, standin_claude, hall, tmp_path
):
    item_id, wt = _in_review(hall_repo, new_item, commit_all)
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    old = runs / "20261130T090000000Z-review.jsonl"
    _stream(old, wt, ended=True)
    live = runs / "20261130T094312123Z-review.jsonl"
    _stream(live, wt, ended=False)
    runner = _live_runner(live.with_suffix(".lock"), tmp_path)
    live.with_suffix(".pid").write_text(str(runner.pid))
    try:
        result = hall("takeover", item_id, cwd=hall_repo.root)  # runs the stand-in, inheriting the terminal
        assert result.code == 0, result.stderr
        data = result.json
        assert runner.wait(timeout=10) is not None  # the live run was stopped
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert data["stopped"] is True and data["ran"] is True and data["exit_code"] == 0
    assert data["run"] == live.name and data["session_id"] == SESSION
    launched = standin_claude()
    assert len(launched) == 1
    assert _no_wall(launched[0]["argv"]) == ["--resume", SESSION]
    assert Path(launched[0]["cwd"]).resolve() == wt.resolve()
    assert launched[0]["env"]["HALL_ITEM"] == item_id
    assert launched[0]["env"]["AGENTMEMORY_PROJECT_NAME"] == _identity(hall_repo)
    events = items.item_events(hall_repo, item_id)
    names = [e["event"] for e in events]
    assert names[-2:] == ["taken_over", "pulled_back"]
    taken = events[-2]
    assert (taken["run"], taken["session_id"], taken["stopped"], taken["actor"]) == (live.name, SESSION, True, "you")
    assert events[-1]["reason"] == "taken over"
    view = items.fold_item(hall_repo, item_id)
    assert view.state == "development"  # stays there until `hall ready`


def _no_wall(argv: list[str]) -> list[str]:
    """The command without the sandbox wall's `--settings <file>` (there where the sandbox can run)."""
    if "--settings" not in argv:
        return list(argv)
    at = argv.index("--settings")
    return argv[:at] + argv[at + 2 :]


def test_takeover_print_runs_nothing_and_picks_run_n(hall_repo, new_item, commit_all, standin_claude, hall):
    item_id, wt = new_item("in development")
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    _stream(runs / "20261130T090000000Z-dev.jsonl", wt, ended=True)
    (runs / "20261130T091000000Z-dev.jsonl").write_text('{"type":"system","subtype":"init"}\n')  # no session yet
    data = hall("takeover", item_id, "--print", "--run", "1", cwd=hall_repo.root).json
    assert data["ran"] is False and _no_wall(data["command"]) == ["claude", "--resume", SESSION]
    assert data["env"] == {"HALL_ITEM": item_id, "AGENTMEMORY_PROJECT_NAME": _identity(hall_repo)}
    assert data["pulled_back"] is False and data["stopped"] is False
    assert f"--resume {SESSION}" in data["shell"]
    assert standin_claude() == []
    # default: the latest run WITH a session id
    assert takeover(hall_repo, item_id)["run"] == "20261130T090000000Z-dev.jsonl"
    with pytest.raises(HallError) as err:
        takeover(hall_repo, item_id, run=2)
    assert err.value.code == "NO_SESSION"
    with pytest.raises(HallError) as err:
        takeover(hall_repo, item_id, run=7)
    assert err.value.code == "NO_RUN"


def test_takeover_without_runs_is_a_clear_error(hall_repo, new_item, hall):
    item_id, _ = new_item()
    bad = hall("takeover", item_id, "--print", cwd=hall_repo.root)
    assert bad.code != 0 and bad.json["error"]["code"] == "NO_RUN"
    assert [e["event"] for e in items.item_events(hall_repo, item_id)] == ["created"]  # nothing recorded


def test_hall_claude_override(hall_repo, new_item, monkeypatch):
    item_id, wt = new_item()
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    _stream(runs / "20261130T090000000Z-dev.jsonl", wt, ended=True)
    monkeypatch.setenv("HALL_CLAUDE", "/opt/claude/bin/claude --verbose")
    command = _no_wall(takeover(hall_repo, item_id)["command"])
    assert command == ["/opt/claude/bin/claude", "--verbose", "--resume", SESSION]


def test_new_open_starts_claude_in_the_worktree(hall_repo, standin_claude, hall):
    data = hall("new", "--open", "--title", "open me", cwd=hall_repo.root).json
    opened = data["opened"]
    launched = standin_claude()
    assert len(launched) == 1
    run = launched[0]
    assert Path(run["cwd"]).resolve() == Path(data["worktree"]).resolve()
    assert run["env"]["HALL_ITEM"] == data["item"]
    assert run["env"]["AGENTMEMORY_PROJECT_NAME"] == _identity(hall_repo)
    assert "--dangerously-skip-permissions" not in run["argv"]
    plugin = Path(run["argv"][run["argv"].index("--plugin-dir") + 1])
    assert (plugin / ".claude-plugin" / "plugin.json").is_file()
    assert opened["exit_code"] == 0
    # the item's keys, next, then the session (NewOpened), valid against hall schema new
    assert list(data)[-2:] == ["next", "opened"]
    assert list(opened) == ["item", "command", "cwd", "env", "yolo", "sandbox", "exit_code"]
    jsonschema.validate(data, reply_schema(["new"]))


def test_new_open_yolo_only_at_the_process_boundary(hall_repo, standin_claude, hall):
    before = (hall_repo.root / ".hallmark.toml").read_text()
    data = hall("new", "--open", "--yolo", "add", "a", "login", "page", cwd=hall_repo.root).json
    run = standin_claude()[0]
    assert "--dangerously-skip-permissions" in run["argv"] and run["argv"][-1] == "add a login page"
    assert run["env"]["HALL_ITEM"] == data["item"]
    assert (hall_repo.root / ".hallmark.toml").read_text() == before  # nothing loosened in config
    assert "dangerously" not in json.dumps(items.item_events(hall_repo, data["item"]))
    refused = hall("new", "--yolo", "--title", "no open", cwd=hall_repo.root)
    assert refused.code != 0 and refused.json["error"]["code"] == "USAGE"


def test_project_identity_file_reaches_every_launch(hall_repo, standin_claude, hall, commit_all):
    (hall_repo.root / ".agentmemory-project").write_text("acme-widgets\n")
    commit_all(hall_repo.root, "identity")
    data = hall("new", "--open", "--title", "x", cwd=hall_repo.root).json
    wt = Path(data["worktree"])
    runs = hall_repo.paths.item_dir(data["item"]) / "runs"
    runs.mkdir(parents=True)
    _stream(runs / "20261130T090000000Z-dev.jsonl", wt, ended=True)
    assert hall("takeover", data["item"], cwd=wt).code == 0
    launched = standin_claude()
    assert [r["env"]["AGENTMEMORY_PROJECT_NAME"] for r in launched] == ["acme-widgets", "acme-widgets"]
    assert {r["env"]["HALL_ITEM"] for r in launched} == {data["item"]}


def test_takeover_bad_input_is_refused_and_records_nothing(hall_repo, new_item, tmp_path):
    item_id, _wt = new_item()
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    _stream(runs / "20261130T090000000Z-dev.jsonl", tmp_path / "gone", ended=True)
    with pytest.raises(HallError) as err:
        takeover(hall_repo, item_id, run="no-such-run.jsonl")
    assert err.value.code == "NO_RUN"
    events_before = len(items.item_events(hall_repo, item_id))
    # the directory the run ran in is gone: a session resumes only where it ran, so no fallback
    with pytest.raises(HallError) as err:
        takeover(hall_repo, item_id, run="20261130T090000000Z-dev.jsonl")
    assert err.value.code == "WRONG_STATE" and "gone" in err.value.message
    assert len(items.item_events(hall_repo, item_id)) == events_before


def test_a_live_run_with_no_known_process_is_not_taken_over(hall_repo, new_item, tmp_path):
    item_id, wt = new_item()
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    live = runs / "20261130T094312123Z-dev.jsonl"
    _stream(live, wt, ended=False)
    runner = _live_runner(live.with_suffix(".lock"), tmp_path)
    try:
        with pytest.raises(HallError) as err:
            takeover(hall_repo, item_id)
        assert err.value.code == "RUN_LIVE"
        assert "taken_over" not in [e["event"] for e in items.item_events(hall_repo, item_id)]
        assert runner.poll() is None  # nothing was killed on a guess
    finally:
        runner.kill()
        runner.wait()


def test_new_open_without_claude_keeps_the_item_and_says_so(hall_repo, hall, monkeypatch):
    monkeypatch.setenv("HALL_CLAUDE", "/nonexistent/claude")
    result = hall("new", "--open", "--title", "no claude here", cwd=hall_repo.root)
    assert result.code != 0
    data = result.json
    assert data["opened"]["error"]["code"] == "COMMAND_FAILED"
    assert Path(data["worktree"]).is_dir() and items.fold_item(hall_repo, data["item"]).state == "development"
    assert data["next"][0].endswith("&& claude")
    assert list(data)[-2:] == ["next", "opened"]
