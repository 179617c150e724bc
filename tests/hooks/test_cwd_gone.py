"""The gates when the payload's cwd is gone (the session's worktree was dropped under it): the hook
finds the repository from the call's other paths and the command, and denies when it cannot tell
(reliability F2). On the old code every one of these calls got no answer at all."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from gatehelp import bash, decision, hook_env, run_hook


@pytest.fixture
def gone(repo, tmp_path):
    """A cwd that existed once: a copy of the worktree's path, removed."""
    where = tmp_path / "dropped-H-0009"
    where.mkdir()
    shutil.rmtree(where)
    return where


def _write(cwd, file_path, content="x"):
    return {
        "session_id": "s-gone",
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_name": "Write",
        "tool_input": {"file_path": str(file_path), "content": content},
    }


def _deny(repo, pycache, payload):
    code, out, _err = run_hook("pre-tool-use", payload, hook_env(repo, pycache), timeout=60)
    assert code == 0
    return decision(out), out


def test_an_edit_of_the_main_checkout_from_a_gone_cwd_is_denied(repo, pycache, gone):
    assert _deny(repo, pycache, _write(gone, repo.main / "app.py"))[0] == "deny"


def test_a_dropped_worktree_as_cwd_still_meets_the_gate(repo, pycache):
    """The real sequence: the item's worktree is removed while the session stands in it."""
    subprocess.run(["git", "worktree", "remove", "--force", str(repo.wt)], cwd=repo.main, check=True, env=repo.env)
    assert not repo.wt.exists()
    assert _deny(repo, pycache, _write(repo.wt, repo.main / "app.py"))[0] == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "git -C {main} push origin main",
        "cd {main} && git push origin main",
        "echo x >> {main}/.hallmark.toml",
        "printf x >> {main}/.git/hallmark/items/H-0001/events.jsonl",
    ],
)
def test_commands_aimed_at_the_repo_from_a_gone_cwd_are_denied(repo, pycache, gone, command):
    assert _deny(repo, pycache, bash(command.format(main=repo.main), gone))[0] == "deny"


def test_a_call_that_names_no_repository_is_denied_naming_doctor(repo, pycache, gone):
    verdict, out = _deny(repo, pycache, bash("git push origin main", gone))
    assert verdict == "deny" and "hall doctor" in out and "no longer exists" in out


def test_the_transcript_path_finds_the_repository(repo, pycache, gone):
    payload = bash("git push origin main", gone)
    payload["transcript_path"] = str(repo.main / ".claude" / "session.jsonl")
    verdict, out = _deny(repo, pycache, payload)
    assert verdict == "deny" and "no longer exists" not in out  # the gate itself decided


def test_other_events_from_a_gone_cwd_stay_silent(repo, pycache, gone):
    payload = {"session_id": "s-gone", "cwd": str(gone), "prompt": "hello"}
    code, out, _ = run_hook("user-prompt-submit", payload, hook_env(repo, pycache))
    assert code == 0 and out == ""
    read = {"session_id": "s", "cwd": str(gone), "tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}
    code, out, _ = run_hook("pre-tool-use", read, hook_env(repo, pycache))
    assert code == 0 and out == ""
