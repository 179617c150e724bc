"""What each non-gate hook records and injects, in a real repo with a real item."""

from __future__ import annotations

import json
import shutil

from gatehelp import git
from hallmark.core import journal
from hallmark.core.paths import discover
from hallmark.hooks.main import run


def events(repo, item: str | None = None) -> list[dict]:
    paths = discover(repo.main)
    return journal.read(paths.item_journal(item) if item else paths.repo_journal).events


def context_of(answer) -> str:
    return answer["hookSpecificOutput"]["additionalContext"]


def call(event: str, **payload) -> dict | None:
    return run(event, json.dumps(payload).encode())


def test_session_start_in_a_worktree_names_the_item_state_and_next(repo):
    text = context_of(call("session-start", cwd=str(repo.wt), session_id="s1", source="startup"))
    assert repo.item in text and "development" in text and f"hall ready {repo.item}" in text
    assert "next:" in text


def test_session_start_outside_a_worktree_says_how_to_start(repo):
    answer = call("session-start", cwd=str(repo.main), session_id="s1", source="startup")
    assert 'hall new --title "…"' in context_of(answer)


def test_session_start_counts_the_inbox_and_relays_what_the_person_said(repo, hall):
    hall("propose-ready", repo.item, "--summary", "done", cwd=repo.wt, env=repo.env)
    journal.append(
        discover(repo.main).item_journal(repo.item),
        "said",
        item=repo.item,
        actor="you",
        text="please also rename the helper",
    )
    text = context_of(call("session-start", cwd=str(repo.wt), session_id="s1"))
    assert "awaiting_you" in text
    assert "inbox has 1 entry" in text
    assert "please also rename the helper" in text


def test_session_start_without_cwd_uses_the_project_dir(repo, monkeypatch):
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo.wt))
    assert repo.item in context_of(call("session-start", session_id="s1", source="compact"))


def test_user_prompt_is_recorded_under_the_item_and_the_repo(repo):
    assert call("user-prompt-submit", cwd=str(repo.wt), session_id="s1", prompt="make it faster") is None
    recorded = [e for e in events(repo, repo.item) if e["event"] == "prompt"]
    assert recorded[-1]["prompt"] == "make it faster" and recorded[-1]["actor"] == "you"
    call("user-prompt-submit", cwd=str(repo.main), session_id="s2", prompt="what is open?")
    assert [e for e in events(repo) if e["event"] == "prompt"][-1]["prompt"] == "what is open?"


def test_user_prompt_in_review_offers_pull_back(repo):
    path = discover(repo.main).item_journal(repo.item)
    journal.append(path, "ready", item=repo.item, actor="you", sha="a" * 40, round=1)
    journal.append(path, "checks_passed", item=repo.item, actor="assayer")
    text = context_of(call("user-prompt-submit", cwd=str(repo.wt), session_id="s1", prompt="change the name"))
    assert f"hall pull-back {repo.item}" in text and "review" in text


def test_user_prompt_relays_what_the_person_said_once(repo):
    journal.append(
        discover(repo.main).item_journal(repo.item),
        "answered",
        item=repo.item,
        actor="you",
        qid="Q-1",
        answer="use sqlite",
    )
    first = call("user-prompt-submit", cwd=str(repo.wt), session_id="s1", prompt="go on")
    assert "use sqlite" in context_of(first)
    assert call("user-prompt-submit", cwd=str(repo.wt), session_id="s1", prompt="and then?") is None


def test_post_tool_use_binds_the_session_from_hall_new_output(repo):
    out = json.dumps({"item": repo.item, "title": "gate test", "worktree": str(repo.wt), "next": []})
    call(
        "post-tool-use",
        cwd=str(repo.main),
        session_id="sess-9",
        tool_name="Bash",
        tool_input={"command": 'hall new --title "gate test"'},
        tool_response={"stdout": out + "\n", "stderr": "", "interrupted": False},
    )
    bound = [e for e in events(repo, repo.item) if e["event"] == "session_bound"]
    assert bound and bound[-1]["session"] == "sess-9" and bound[-1]["via"] == "hall new"
    # the bound session now gets its item even from the main checkout
    assert repo.item in context_of(call("session-start", cwd=str(repo.main), session_id="sess-9"))


def test_post_tool_use_ignores_json_from_other_commands(repo):
    out = json.dumps({"item": repo.item})
    call(
        "post-tool-use",
        cwd=str(repo.main),
        session_id="sess-8",
        tool_name="Bash",
        tool_input={"command": "cat item.json"},
        tool_response={"stdout": out},
    )
    assert not [e for e in events(repo, repo.item) if e["event"] == "session_bound"]


def test_post_tool_use_records_a_commit(repo):
    (repo.wt / "feature.py").write_text("x = 1\n")
    git(repo.wt, "add", "feature.py", env=repo.env)
    git(repo.wt, "commit", "-q", "-m", "add feature", env=repo.env)
    sha = git(repo.wt, "rev-parse", "HEAD", env=repo.env)
    call(
        "post-tool-use",
        cwd=str(repo.wt),
        session_id="s1",
        tool_name="Bash",
        tool_input={"command": "git add feature.py && git commit -m 'add feature'"},
        tool_response={"stdout": "", "stderr": "", "interrupted": False},
    )
    commit = [e for e in events(repo, repo.item) if e["event"] == "commit"][-1]
    assert commit["sha"] == sha and commit["subject"] == "add feature"


def _assistant(msg_id: str, req: str, out: int, inp: int = 10, cache_read: int = 100) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "requestId": req,
            "uuid": f"u-{msg_id}-{out}",
            "message": {
                "id": msg_id,
                "model": "claude-test",
                "role": "assistant",
                "content": [],
                "usage": {
                    "input_tokens": inp,
                    "output_tokens": out,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation_input_tokens": 0,
                },
            },
        }
    )


def test_stop_records_the_turn_and_deduplicated_usage(repo, tmp_path):
    transcript = tmp_path / "t.jsonl"
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}),
        _assistant("m1", "r1", 10),
        _assistant("m1", "r1", 10),
        _assistant("m1", "r1", 441),
        _assistant("m2", "r2", 5),
    ]
    transcript.write_text("\n".join(lines) + "\n")
    call(
        "stop",
        cwd=str(repo.wt),
        session_id="s1",
        transcript_path=str(transcript),
        last_assistant_message="Renamed the helper.",
        stop_hook_active=False,
    )
    turn = [e for e in events(repo, repo.item) if e["event"] == "turn"][-1]
    assert turn["summary"] == "Renamed the helper."
    usage = [e for e in events(repo, repo.item) if e["event"] == "usage"]
    assert len(usage) == 1
    assert (usage[0]["output_tokens"], usage[0]["input_tokens"], usage[0]["responses"]) == (446, 20, 2)
    # the same response growing across the boundary adds only its growth; old lines are not re-read
    with transcript.open("a") as handle:
        handle.write(_assistant("m2", "r2", 50) + "\n" + _assistant("m3", "r3", 7) + "\n")
    call("stop", cwd=str(repo.wt), session_id="s1", transcript_path=str(transcript))
    usage = [e for e in events(repo, repo.item) if e["event"] == "usage"]
    assert (usage[-1]["output_tokens"], usage[-1]["responses"]) == (45 + 7, 1)
    call("stop", cwd=str(repo.wt), session_id="s1", transcript_path=str(transcript))
    assert len([e for e in events(repo, repo.item) if e["event"] == "usage"]) == 2


def test_stop_reads_a_real_transcript(repo, shared_dir, tmp_path):
    source = sorted((shared_dir / "formats" / "samples" / "transcripts").glob("*.jsonl"))[0]
    transcript = tmp_path / source.name
    shutil.copy(source, transcript)
    call("stop", cwd=str(repo.wt), session_id="real", transcript_path=str(transcript))
    usage = [e for e in events(repo, repo.item) if e["event"] == "usage"]
    expected: dict[str, int] = {}
    for line in source.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "assistant" and isinstance(entry.get("message", {}).get("usage"), dict):
            key = f"{entry['message'].get('id', '')}|{entry.get('requestId', '')}"
            expected[key] = max(expected.get(key, 0), entry["message"]["usage"].get("output_tokens", 0))
    assert usage and usage[-1]["output_tokens"] == sum(expected.values())


def test_stop_without_a_transcript_still_records_the_turn(repo):
    call("stop", cwd=str(repo.wt), session_id="s1", stop_hook_active=False)
    assert [e for e in events(repo, repo.item) if e["event"] == "turn"]
    assert not [e for e in events(repo, repo.item) if e["event"] == "usage"]


def test_notification_files_a_waiting_notice_that_the_next_prompt_clears(repo):
    call(
        "notification",
        cwd=str(repo.wt),
        session_id="s1",
        message="Claude is waiting for your input",
        notification_type="idle_prompt",
    )
    notice = [e for e in events(repo, repo.item) if e["event"] == "notice"][-1]
    assert notice["kind"] == "session_waiting" and notice["message"] == "Claude is waiting for your input"
    entry = [e for e in events(repo) if e["event"] == "inbox_entry"][-1]
    assert entry["for_item"] == repo.item and entry["key"] == "waiting:s1"
    call("user-prompt-submit", cwd=str(repo.wt), session_id="s1", prompt="here")
    assert [e for e in events(repo) if e["event"] == "inbox_cleared"][-1]["key"] == "waiting:s1"


def test_a_session_id_cannot_escape_the_sessions_dir(repo):
    call("notification", cwd=str(repo.wt), session_id="../../evil", message="m")
    assert not (repo.main / ".git" / "evil.json").exists()
    assert not (repo.main / ".git" / "hallmark" / "evil.json").exists()


def test_session_start_exports_the_session_so_hall_ask_records_it(repo, tmp_path, monkeypatch):
    """Claude sources CLAUDE_ENV_FILE before each Bash command: the session id SessionStart writes
    there reaches `hall ask`, so the daemon can resume the asking session with the answer."""
    import subprocess

    from gatehelp import BIN

    env_file = tmp_path / "session-env" / "sessionstart-hook-0.sh"
    env_file.parent.mkdir()
    monkeypatch.setenv("CLAUDE_ENV_FILE", str(env_file))
    session = "5fc1a2aa-5bf9-4e11-b5ac-826333140acc"
    call("session-start", cwd=str(repo.wt), session_id=session, source="startup")
    call("session-start", cwd=str(repo.wt), session_id=session, source="resume")  # once per id
    assert env_file.read_text() == f"export HALL_SESSION_ID='{session}'\n"
    asked = subprocess.run(
        ["bash", "-c", f'. "{env_file}" && "{BIN / "hall"}" ask "billed or raw?" --json'],
        cwd=repo.wt,
        env=repo.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert asked.returncode == 0, asked.stderr
    (question,) = [e for e in events(repo, repo.item) if e["event"] == "question"]
    assert question["session"] == session


def test_session_start_never_writes_an_unsafe_session_id(repo, tmp_path, monkeypatch):
    env_file = tmp_path / "env.sh"
    monkeypatch.setenv("CLAUDE_ENV_FILE", str(env_file))
    answer = call("session-start", cwd=str(repo.wt), session_id="x'; rm -rf ~; '", source="startup")
    assert answer is not None and not env_file.exists()
    monkeypatch.setenv("CLAUDE_ENV_FILE", str(tmp_path / "missing-dir" / "env.sh"))
    assert call("session-start", cwd=str(repo.wt), session_id="s1") is not None  # unwritable: still answers
