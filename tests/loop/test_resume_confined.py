"""The session resumed after `hall answer` can act: it runs in the session's own folder (where Claude Code
keeps the session) with the item's worktree as a working folder (`--add-dir`), acceptEdits and the
fixer's kind of allowed tools (git in and by `-C` the worktree, `hall propose-ready`), never a bare Edit
or Write. A resume whose result holds permission denials and that committed nothing is a failed resume
with an inbox entry, not "resumed". A recording shim in front of the stand-in shows how it was called."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from hallmark.core import inbox, items, questions

RECORDER = """#!/bin/sh
python3 - "$@" <<'PY'
import json, os, sys
with open(os.environ["RECORD"], "a") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}) + "\\n")
PY
exec hall-standin-claude "$@"
"""


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    recorder = tmp_path / "claude-recorder"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    record = tmp_path / "calls.jsonl"
    monkeypatch.setenv("HALL_CLAUDE", str(recorder))
    monkeypatch.setenv("RECORD", str(record))

    def read() -> list[dict]:
        found = [json.loads(x) for x in record.read_text().splitlines()] if record.exists() else []
        return [c for c in found if c["argv"] != ["--version"]]

    return read


def _asked_from_the_main_checkout(repo, session: str) -> tuple[str, Path, dict]:
    """An item made by a session that runs in the main checkout (its binding says so), and its question."""
    created = items.new(repo, title="Add div")
    item_id, wt = created["item"], Path(created["worktree"])
    sessions = repo.state_dir / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"{session}.json").write_text(json.dumps({"item": item_id, "cwd": str(repo.root)}))
    asked = questions.ask(repo, "raise or none?", item_id=item_id, options=["raise", "none"], session=session)
    questions.answer(repo, asked["qid"], "a", actor="you")
    return item_id, wt, asked


def _flag(argv: list[str], name: str) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == name]


def test_the_resumed_session_may_edit_commit_and_propose_ready_in_the_worktree(loop_repo, calls, kit):
    item_id, wt, _asked = _asked_from_the_main_checkout(loop_repo, "sess-5151")
    kit.run_loop(loop_repo)
    (call,) = calls()
    argv = call["argv"]
    assert Path(call["cwd"]).resolve() == loop_repo.root.resolve()  # where Claude Code keeps the session
    assert _flag(argv, "--add-dir") == [str(wt)]  # the old resume: no way into the worktree
    assert _flag(argv, "--permission-mode") == ["acceptEdits"]
    (tools,) = _flag(argv, "--allowedTools")
    allowed = tools.split(",")
    where = shlex.quote(str(wt))
    for rule in (f"Bash(git -C {where} commit:*)", f"Bash(git -C {where} add:*)", "Bash(hall propose-ready:*)"):
        assert rule in allowed, rule  # the old resume had no --allowedTools: every Bash call was denied
    assert "Edit" not in allowed and "Write" not in allowed  # acceptEdits keeps edits in the worktree
    assert kit.events(loop_repo, item_id, "resumed")


def test_a_resume_denied_its_tools_that_committed_nothing_is_a_failed_resume(loop_repo, calls, kit, scenario):
    denied = [
        {"tool_name": "Write", "tool_use_id": "t1", "tool_input": {"file_path": "tests/test_div.py"}},
        {"tool_name": "Bash", "tool_use_id": "t2", "tool_input": {"command": "git add -A && git commit -m div"}},
    ]
    scenario({"dev": [{"permission_denials": denied}]})
    item_id, _wt, asked = _asked_from_the_main_checkout(loop_repo, "sess-6161")
    kit.run_loop(loop_repo)
    assert not kit.events(loop_repo, item_id, "resumed")  # the old loop: "resumed", and nothing done
    (failed,) = kit.events(loop_repo, item_id, "resume_failed")
    assert "denied Write, Bash(git add -A && git commit -m div) and committed nothing" in failed["reason"]
    (entry,) = [e for e in inbox.report(loop_repo)["entries"] if e["kind"] == "session waiting"]
    assert asked["qid"] in entry["text"] and "denied" in entry["text"]


def test_a_resume_that_committed_despite_a_denial_is_delivered(loop_repo, calls, kit, scenario):
    created = items.new(loop_repo, title="Add div")
    item_id, wt = created["item"], Path(created["worktree"])
    asked = questions.ask(loop_repo, "raise?", item_id=item_id, options=["raise", "none"], session="sess-7171")
    questions.answer(loop_repo, asked["qid"], "a", actor="you")
    scenario(
        {
            "dev": [
                {
                    "edits": [{"file": "div.py", "write": "def div(a, b):\n    return a / b\n"}],
                    "message": "Add div",
                    "permission_denials": [{"tool_name": "WebFetch", "tool_input": {"url": "https://x"}}],
                }
            ]
        }
    )
    kit.run_loop(loop_repo)
    assert kit.git(wt, "log", "-1", "--format=%s") == "Add div"
    assert kit.events(loop_repo, item_id, "resumed") and not kit.events(loop_repo, item_id, "resume_failed")


def test_usage_after_a_resume_counts_the_resumed_run_once(loop_repo, calls, kit, scenario):
    # after --resume the CLI's modelUsage is the whole session's; the earlier turns were counted already
    scenario(
        {
            "dev": [
                {
                    "usage": {"input_tokens": 4462, "output_tokens": 50},
                    "session_usage": {"input_tokens": 5420, "output_tokens": 80},
                }
            ]
        }
    )
    item_id, _wt, _asked = _asked_from_the_main_checkout(loop_repo, "sess-8181")
    kit.run_loop(loop_repo)
    (resumed,) = kit.events(loop_repo, item_id, "resumed")
    rows = [e for e in kit.events(loop_repo, item_id, "usage") if e.get("run") == resumed["run"]]
    assert [(r["input_tokens"], r["output_tokens"]) for r in rows] == [(4462, 50)]  # the old: (9882, 130)
