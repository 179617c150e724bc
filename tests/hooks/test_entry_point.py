"""hall-hook as a process: the failure policy, real payloads, fuzzing (its imports: tests/test_import_hygiene.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gatehelp import bash, hook_env, run_hook
from hallmark.hooks.main import EVENTS, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EVENT_NAMES = sorted(EVENTS)
SAMPLE_EVENTS = {
    "session_start": "session-start",
    "user_prompt_submit": "user-prompt-submit",
    "pre_tool_use": "pre-tool-use",
    "post_tool_use": "post-tool-use",
    "post_tool_use_failure": "post-tool-use-failure",
    "stop": "stop",
    "notification": "notification",
}


def test_outside_an_initialized_repo_every_hook_is_silent(tmp_path, pycache, shared_repo):
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=plain, check=True, env=shared_repo.env)
    env = hook_env(shared_repo, pycache)
    for where in (tmp_path, plain):
        for event in EVENT_NAMES:
            payload = {**bash("git push origin main", where), "hook_event_name": event, "prompt": "x"}
            code, out, err = run_hook(event, payload, env)
            assert (code, out) == (0, ""), (event, where, out, err)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"{",
        b"\xff\xfe",
        b"null",
        b'{"cwd": 42, "tool_name": "Bash"}',
        b'{"cwd": ["x"]}',
    ],
)
def test_malformed_stdin_is_silent_and_logged(raw, shared_repo, pycache):
    env = hook_env(shared_repo, pycache)
    code, out, err = run_hook("pre-tool-use", raw, env)
    assert (code, out) == (0, "")
    assert "Traceback" not in err
    log = Path(env["HALLMARK_DATA_DIR"]) / "hook.log"
    assert log.is_file() and "malformed" in log.read_text().splitlines()[-1]


def test_unknown_events_and_no_event_are_silent(shared_repo, pycache):
    env = hook_env(shared_repo, pycache)
    for args in (["pre-compact"], ["SubagentStop"], []):
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "hall-hook"), *args], input=b"{}", capture_output=True, env=env
        )
        assert (proc.returncode, proc.stdout) == (0, b"")


def test_hall_hook_alias_runs_the_same_hook(shared_repo, hall):
    result = hall(
        "hook",
        "pre-tool-use",
        cwd=shared_repo.main,
        env=shared_repo.env,
        input=json.dumps(bash("git push origin main", shared_repo.wt)),
    )
    assert result.code == 0
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_an_internal_error_in_a_gate_denies_and_names_doctor(repo, pycache):
    (repo.main / ".hallmark.toml").write_text('[capture]\nmode = "sometimes"\n')
    code, out, _ = run_hook("pre-tool-use", bash("git push origin main", repo.wt), hook_env(repo, pycache))
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["permissionDecision"] == "deny"
    assert "hall doctor" in answer["permissionDecisionReason"] and "GATE_FAILED" in answer["permissionDecisionReason"]
    # other hooks fail open on the same error: no output, a line in the hook log
    code, out, _ = run_hook(
        "user-prompt-submit", {"cwd": str(repo.wt), "session_id": "s", "prompt": "x"}, hook_env(repo, pycache)
    )
    assert (code, out) == (0, "")


def test_an_internal_error_elsewhere_fails_open_and_logs(repo):
    state = repo.main / ".git" / "hallmark"
    (state / "items" / repo.item / "events.jsonl").chmod(0o000)
    try:
        if os.access(state / "items" / repo.item / "events.jsonl", os.R_OK):
            pytest.skip("running as a user who can read anything (root)")
        assert run("stop", json.dumps({"cwd": str(repo.wt), "session_id": "s"}).encode()) is None
    finally:
        (state / "items" / repo.item / "events.jsonl").chmod(0o644)


def test_stop_fails_open_on_a_locked_up_journal(repo):
    """A journal path that is a directory makes the append fail: Stop logs and says nothing."""
    state = repo.main / ".git" / "hallmark"
    bad = state / "events.jsonl"
    bad.unlink(missing_ok=True)
    bad.mkdir()
    answer = run("stop", json.dumps({"cwd": str(repo.main), "session_id": "s2"}).encode())
    assert answer is None
    assert "internal error" in (state / "hook.log").read_text()


# -- real payloads ---------------------------------------------------------------------------------


def _samples(shared_dir) -> list[tuple[str, dict]]:
    found = []
    for path in sorted((shared_dir / "formats" / "samples" / "hooks").glob("*.json")):
        base = path.stem.split("__")[-1]
        data = json.loads(path.read_text(encoding="utf-8"))
        for payload in data if isinstance(data, list) else [data]:
            if isinstance(payload, dict) and isinstance(payload.get("input_data"), dict):
                payload = payload["input_data"]
            found.append((SAMPLE_EVENTS.get(base, base.replace("_", "-")), payload))
    return found


def test_real_payloads_run_through_every_hook(shared_dir, shared_repo):
    """Each payload through its own hook (as captured, and moved into the worktree); a few per file
    through every hook, in both checkouts."""
    samples = _samples(shared_dir)
    assert len(samples) > 50
    per_file: dict[str, int] = {}
    for own_event, payload in samples:
        per_file[own_event] = per_file.get(own_event, 0) + 1
        everywhere = per_file[own_event] <= 2
        for cwd in (None, str(shared_repo.wt), str(shared_repo.main)) if everywhere else (None, str(shared_repo.wt)):
            moved = dict(payload) if cwd is None else {**payload, "cwd": cwd}
            for event in {own_event, *EVENT_NAMES} if everywhere else {own_event}:
                answer = run(event, json.dumps(moved).encode())
                assert answer is None or isinstance(answer, dict)
                if answer:
                    specific = answer["hookSpecificOutput"]
                    assert specific.get("permissionDecision") != "allow"
                    assert "GATE_FAILED" not in json.dumps(answer), (event, moved)
    log = shared_repo.main / ".git" / "hallmark" / "hook.log"
    assert not log.exists() or "internal error" not in log.read_text()


def test_real_payloads_through_the_real_process(shared_dir, shared_repo, pycache):
    env = hook_env(shared_repo, pycache)
    seen = set()
    for own_event, payload in _samples(shared_dir):
        if own_event in seen or own_event not in EVENTS:
            continue
        seen.add(own_event)
        code, out, _err = run_hook(own_event, {**payload, "cwd": str(shared_repo.wt)}, env)
        assert code == 0 and "Traceback" not in out
        assert out == "" or out.lstrip().startswith("{")
    assert {"session-start", "pre-tool-use", "post-tool-use", "stop", "notification", "user-prompt-submit"} <= seen


# -- fuzzing ---------------------------------------------------------------------------------------

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "cwd": st.one_of(st.just("__WT__"), st.just("__MAIN__"), st.text(max_size=20), st.integers(), st.none()),
        "session_id": st.one_of(st.text(max_size=40), st.integers(), st.none(), st.just("../../x")),
        "tool_name": st.sampled_from(["Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "Read", ""]) | JSONISH,
        "tool_input": st.fixed_dictionaries(
            {},
            optional={
                "command": st.text(max_size=80)
                | st.sampled_from(["git push", "bash -c 'git push'", "cat <<EOF"])
                | JSONISH,
                "file_path": st.text(max_size=40) | JSONISH,
                "notebook_path": st.text(max_size=40),
            },
        )
        | JSONISH,
        "tool_response": JSONISH,
        "prompt": st.text(max_size=60) | JSONISH,
        "message": JSONISH,
        "transcript_path": st.text(max_size=40) | JSONISH,
        "last_assistant_message": JSONISH,
        "hook_event_name": st.text(max_size=20),
        "source": JSONISH,
        "notification_type": JSONISH,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    event=st.sampled_from(EVENT_NAMES), fields=FIELDS, extra=st.dictionaries(st.text(max_size=10), JSONISH, max_size=3)
)
def test_fuzz_every_event_never_raises_and_never_allows(shared_repo, event, fields, extra):
    payload = {**extra, **fields}
    if payload.get("cwd") == "__WT__":
        payload["cwd"] = str(shared_repo.wt)
    elif payload.get("cwd") == "__MAIN__":
        payload["cwd"] = str(shared_repo.main)
    answer = run(event, json.dumps(payload).encode())
    assert answer is None or isinstance(answer, dict)
    if answer:
        assert answer["hookSpecificOutput"].get("permissionDecision") in (None, "deny", "ask")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event=st.sampled_from(EVENT_NAMES), cut=st.integers(min_value=0, max_value=400), junk=st.binary(max_size=20))
def test_fuzz_truncated_payloads(shared_repo, event, cut, junk):
    whole = json.dumps({**bash("cd . && git push origin main", shared_repo.wt), "prompt": "p", "message": "m"}).encode()
    answer = run(event, whole[:cut] + junk)
    assert answer is None or isinstance(answer, dict)


def test_fuzz_through_the_real_process(shared_repo, pycache):
    env = hook_env(shared_repo, pycache)
    whole = json.dumps(bash("git -c alias.p=push p", shared_repo.wt)).encode()
    for event in EVENT_NAMES:
        for cut in (0, 1, 17, len(whole) // 2, len(whole) - 1):
            code, out, err = run_hook(event, whole[:cut], env)
            assert (code, out) == (0, ""), (event, cut, out)
            assert "Traceback" not in err
