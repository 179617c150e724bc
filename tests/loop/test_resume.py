"""Resuming the asking session after an answer: the daemon runs `claude -p --resume <session> "<answer>"`
in the directory the session ran in, once per answer; an answer it cannot deliver is a
"session waiting" inbox entry. A recording shim in front of the stand-in shows how it was called."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hallmark.core import inbox, items, journal, questions
from hallmark.core.loop import resume

RECORDER = """#!/bin/sh
python3 - "$@" <<'PY'
import json, os, sys
with open(os.environ["RECORD"], "a") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "item": os.environ.get("HALL_ITEM"),
                         "actor": os.environ.get("HALL_ACTOR")}) + "\\n")
PY
exec hall-standin-claude "$@"
"""


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The calls of `claude` so far (argv, cwd, HALL_ITEM, HALL_ACTOR), read when called."""
    recorder = tmp_path / "claude-recorder"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    record = tmp_path / "calls.jsonl"
    monkeypatch.setenv("HALL_CLAUDE", str(recorder))
    monkeypatch.setenv("RECORD", str(record))

    def read() -> list[dict]:
        """Every call but the runner's `--version` probe (its minimum-version check)."""
        calls = [json.loads(x) for x in record.read_text().splitlines()] if record.exists() else []
        return [call for call in calls if call["argv"] != ["--version"]]

    return read


def _item(repo) -> tuple[str, Path]:
    created = items.new(repo, title="Price rule")
    return created["item"], Path(created["worktree"])


def _waiting(repo) -> list[dict]:
    return [e for e in inbox.report(repo)["entries"] if e["kind"] == "session waiting"]


def test_an_answer_resumes_the_asking_session_in_its_worktree_once(loop_repo, calls, kit):
    item_id, worktree = _item(loop_repo)
    asked = questions.ask(
        loop_repo, "billed or raw?", item_id=item_id, options=["billed", "raw"], default="billed", session="sess-1111"
    )
    questions.answer(loop_repo, asked["qid"], "b", actor="you")
    kit.run_loop(loop_repo)

    (call,) = calls()
    argv = call["argv"]
    assert argv[:3] == ["-p", "--resume", "sess-1111"]
    assert "raw" in argv[3] and asked["qid"] in argv[3] and "--agent" not in argv
    assert argv[argv.index("--output-format") + 1] == "stream-json"
    assert Path(call["cwd"]).resolve() == worktree.resolve()
    assert call["item"] == item_id and call["actor"].startswith("dev")
    (resumed,) = kit.events(loop_repo, item_id, "resumed")
    assert resumed["qid"] == asked["qid"] and resumed["session"] == "sess-1111"
    run_file = loop_repo.paths.item_dir(item_id) / "runs" / resumed["run"]
    assert run_file.name.endswith("-dev.jsonl")
    lines = [json.loads(x) for x in run_file.read_text().splitlines()]
    assert lines[0]["session_id"] == "sess-1111"  # the same session, continued
    said = [
        b["text"] for x in lines if x["type"] == "assistant" for b in x["message"]["content"] if b["type"] == "text"
    ]
    assert said[0].startswith("Resumed session sess-1111 with:") and "raw" in said[0]
    assert lines[-1]["type"] == "hall_run_end" and lines[-1]["failure"] is None
    started = [e for e in kit.events(loop_repo, item_id, "run_started") if e["run"] == resumed["run"]]
    assert started[0]["role"] == "dev" and started[0]["resume"] == "sess-1111"
    # exactly once: more passes deliver nothing more
    kit.run_loop(loop_repo)
    assert len(calls()) == 1 and len(kit.events(loop_repo, item_id, "resumed")) == 1
    assert _waiting(loop_repo) == []


def test_a_default_after_its_wait_is_delivered_too(loop_repo, calls, kit):
    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(
        loop_repo,
        "billed or raw?",
        item_id=item_id,
        options=["billed", "raw"],
        default="billed",
        wait="1s",
        session="sess-2222",
    )
    kit.run_loop(loop_repo)
    assert calls() == []  # not answered yet, the wait has not run out
    time.sleep(1.05)
    kit.run_loop(loop_repo)
    (call,) = calls()
    assert call["argv"][1:3] == ["--resume", "sess-2222"] and "default, billed" in call["argv"][3]
    assert kit.events(loop_repo, item_id, "question_defaulted")[0]["qid"] == asked["qid"]
    assert kit.events(loop_repo, item_id, "resumed")[0]["qid"] == asked["qid"]


def test_the_transcript_says_where_the_session_ran(loop_repo, calls, kit, tmp_path, monkeypatch):
    """A session started in the main checkout that created the item resumes there, not in the worktree."""
    item_id, _worktree = _item(loop_repo)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"type": "summary"})
        + "\n"
        + json.dumps({"type": "user", "cwd": str(loop_repo.root), "sessionId": "sess-3333"})
        + "\n"
    )
    sessions = loop_repo.state_dir / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / "sess-3333.json").write_text(json.dumps({"item": item_id, "transcript": str(transcript)}))
    # a second session known only to Claude's own projects folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-elsewhere"
    projects.mkdir(parents=True)
    (projects / "sess-4444.jsonl").write_text(json.dumps({"type": "user", "cwd": str(elsewhere)}) + "\n")
    first = questions.ask(loop_repo, "which?", session="sess-3333", item_id=item_id)
    second = questions.ask(loop_repo, "and?", session="sess-4444")
    questions.answer(loop_repo, first["qid"], "this one", actor="you")
    questions.answer(loop_repo, second["qid"], "that one", actor="you")
    kit.run_loop(loop_repo)
    by_session = {c["argv"][2]: c for c in calls()}
    assert Path(by_session["sess-3333"]["cwd"]).resolve() == loop_repo.root.resolve()
    assert Path(by_session["sess-4444"]["cwd"]).resolve() == elsewhere.resolve()
    # the repo-level question's run is a repo-level run
    (resumed,) = [e for e in loop_repo.index.events(kinds=["resumed"], repo_level=True)]
    assert resumed["qid"] == second["qid"] and (loop_repo.state_dir / "runs" / resumed["run"]).is_file()


def _prompt_in_session(repo, session: str) -> None:
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(repo.root), "prompt": "go on"}
    subprocess.run(
        [str(Path(sys.executable).parent / "hall-hook"), "user-prompt-submit"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=repo.root,
        timeout=30,
        check=True,
    )


def test_an_answer_that_cannot_be_delivered_waits_in_the_inbox(loop_repo, calls, scenario, kit):
    scenario({"dev": [{"no_conversation": True}]})
    item_id, worktree = _item(loop_repo)
    unknown = questions.ask(loop_repo, "keep it?", item_id=item_id, session="sess-gone")
    nowhere = questions.ask(loop_repo, "and this?", session="sess-nowhere")  # no item, binding or transcript
    questions.answer(loop_repo, unknown["qid"], "yes", actor="you")
    questions.answer(loop_repo, nowhere["qid"], "no", actor="you")
    kit.run_loop(loop_repo)

    (call,) = calls()  # Claude was asked once, for the session it could find a directory for
    assert call["argv"][2] == "sess-gone" and Path(call["cwd"]).resolve() == worktree.resolve()
    (failed,) = kit.events(loop_repo, item_id, "resume_failed")
    assert failed["qid"] == unknown["qid"] and failed["run"].endswith("-dev.jsonl")
    assert "no result line" in failed["reason"] or "exit" in failed["reason"]
    entries = {e["key"]: e for e in _waiting(loop_repo)}
    assert set(entries) == {"waiting:sess-gone", "waiting:sess-nowhere"}
    assert entries["waiting:sess-gone"]["item"] == item_id and "'yes'" in entries["waiting:sess-gone"]["text"]
    assert entries["waiting:sess-gone"]["next"][0] == f"cd {worktree} && claude --resume sess-gone"
    assert "no directory is known" in entries["waiting:sess-nowhere"]["text"]
    # not retried: once per answer, even when it failed
    kit.run_loop(loop_repo)
    assert len(calls()) == 1 and len(kit.events(loop_repo, item_id, "resume_failed")) == 1
    # the person's next prompt in that session clears its entry (the real hook)
    _prompt_in_session(loop_repo, "sess-gone")
    assert [e["key"] for e in _waiting(kit.reopen(loop_repo))] == ["waiting:sess-nowhere"]


def test_two_daemons_deliver_an_answer_once(loop_repo, calls, kit):
    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "now?", item_id=item_id, session="sess-5555")
    questions.answer(loop_repo, asked["qid"], "now", actor="you")
    results: list = []
    barrier = threading.Barrier(2)

    def daemon_pass() -> None:
        repo = kit.reopen(loop_repo)
        barrier.wait()
        results.append(resume.resume_answers(repo))

    threads = [threading.Thread(target=daemon_pass) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(calls()) == 1
    assert sorted(len(r) for r in results) == [0, 1]
    assert len(kit.events(loop_repo, item_id, "resumed")) == 1


def test_a_delivery_whose_daemon_died_is_not_repeated(loop_repo, calls, kit):
    item_id, worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "ship it?", item_id=item_id, session="sess-6666")
    questions.answer(loop_repo, asked["qid"], "yes", actor="you")
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that no longer runs: the daemon that claimed the delivery died mid-run
    journal.append(
        loop_repo.paths.item_journal(item_id),
        "resume_started",
        item=item_id,
        actor="hall",
        qid=asked["qid"],
        session="sess-6666",
        cwd=str(worktree),
        pid=gone.pid,
        host=socket.gethostname(),
    )
    kit.run_loop(loop_repo)
    assert calls() == []
    (failed,) = kit.events(loop_repo, item_id, "resume_failed")
    assert "interrupted" in failed["reason"]
    assert [e["key"] for e in _waiting(loop_repo)] == ["waiting:sess-6666"]


def test_an_answer_from_long_ago_is_history_not_owed(loop_repo, calls, kit):
    from datetime import timedelta

    from hallmark.core import clock

    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "old?", item_id=item_id, session="sess-7777")
    old = journal.make_event("answered", item_id, "you", {"qid": asked["qid"], "answer": "long ago"})
    old["t"] = clock.stamp(clock.now() - timedelta(days=8))  # e.g. answered before this daemon existed
    path = loop_repo.paths.item_journal(item_id)
    with journal.locked(path):
        journal.append_unlocked(path, old)
    kit.run_loop(loop_repo)
    assert calls() == [] and resume.owed(loop_repo) == [] and _waiting(loop_repo) == []


def test_a_rate_limit_defers_the_delivery_instead_of_losing_it(loop_repo, calls, scenario, kit):
    scenario({"dev": [{"api_error_status": 429, "subtype": "error_during_execution"}]})
    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "now?", item_id=item_id, session="sess-8888")
    questions.answer(loop_repo, asked["qid"], "now", actor="you")
    kit.run_loop(loop_repo)  # terminates: the loop pauses for the plan's limit
    assert len(calls()) == 1
    assert [e["event"] for e in kit.events(loop_repo, item_id) if e.get("qid") == asked["qid"]][-1] == "resume_released"
    assert [q["qid"] for q in resume.owed(loop_repo)] == [asked["qid"]]  # still owed, after the reset
    assert [e["level"] for e in loop_repo.index.events(kinds=["paused"], repo_level=True)] == ["plan"]
    assert _waiting(loop_repo) == []


def test_the_daemon_command_delivers_and_exits_when_idle(loop_repo, calls, kit):
    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "go?", item_id=item_id, session="sess-9999")
    questions.answer(loop_repo, asked["qid"], "go", actor="you")
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "hall"),
            "daemon",
            "run",
            "--until-idle",
            "--repo",
            str(loop_repo.root),
            "--json",
        ],
        cwd=loop_repo.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [s["outcome"] for s in lines[-1]["steps"]] == ["resumed"]
    assert [(s["event"], s["outcome"]) for s in lines[:-1]] == [("step", "resumed")]  # as it happened
    assert len(calls()) == 1


def test_an_answer_waits_while_another_worker_holds_the_item(loop_repo, calls, kit):
    from hallmark.core.loop import leases

    item_id, _worktree = _item(loop_repo)
    asked = questions.ask(loop_repo, "wait?", item_id=item_id, session="sess-1234")
    questions.answer(loop_repo, asked["qid"], "yes", actor="you")
    leases.acquire(loop_repo, item_id, "fixer", "fixer@elsewhere", pid=0)  # e.g. `hall next --role fixer`
    assert resume.resume_answers(loop_repo, "daemon@here") == [] and calls() == []
    assert [q["qid"] for q in resume.owed(loop_repo)] == [asked["qid"]]
    leases.release(loop_repo, item_id)
    assert [s["outcome"] for s in resume.resume_answers(loop_repo, "daemon@here")] == ["resumed"]
    assert len(calls()) == 1 and leases.current(loop_repo, item_id) is None
