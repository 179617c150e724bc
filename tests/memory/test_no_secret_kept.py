"""No secret kept anywhere: free text that reaches the journal or a log through the real hooks and
the real `hall` is redacted in place, never refused; nothing on disk holds the value verbatim."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from ..conftest import BIN

TOKEN = "ghp_" + "Zq8Lm2Nx4Rt6Vb0Kc3Hd5Jf7Gp9Ws1Ya2Ue4"
AWS = "AKIA" + "QW7ZX5C3V1B9N8M6"
DB = "postgres://app:Sup3rS3cretPw77@db.internal:5432/app"


def hook(event: str, payload: dict | bytes, cwd: Path) -> subprocess.CompletedProcess:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [str(BIN / "hall-hook"), event], input=data, cwd=cwd, capture_output=True, env=dict(os.environ), timeout=60
    )


def nowhere_on_disk(*roots: Path, values=(TOKEN, AWS, "Sup3rS3cretPw77")) -> None:
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                for value in values:
                    assert value.encode() not in data, f"{value[:8]}… is on disk in {path}"


def test_a_secret_in_a_prompt_is_never_on_disk_verbatim(repo):
    prompt = f"deploy with {TOKEN} and {AWS}, the db is {DB}"
    done = hook(
        "user-prompt-submit",
        {"session_id": "s-1", "cwd": str(repo.root), "prompt": prompt, "hook_event_name": "UserPromptSubmit"},
        repo.root,
    )
    assert done.returncode == 0 and done.stdout == b""
    events = [json.loads(line) for line in (repo.state_dir / "events.jsonl").read_text().splitlines()]
    recorded = [e for e in events if e["event"] == "prompt"][-1]["prompt"]
    assert recorded == (
        "deploy with [redacted: GitHub token] and [redacted: AWS access key], the db is "
        "postgres://app:[redacted: URL with a password]@db.internal:5432/app"
    )
    stop = hook(
        "stop",
        {
            "session_id": "s-1",
            "cwd": str(repo.root),
            "hook_event_name": "Stop",
            "last_assistant_message": f"I used {TOKEN} to push",
        },
        repo.root,
    )
    assert stop.returncode == 0
    nowhere_on_disk(repo.state_dir, repo.root)


def test_a_malformed_payload_never_reaches_the_hook_log(repo):
    data_dir = Path(os.environ["HALLMARK_DATA_DIR"])
    for raw in (f'{{"prompt": "{TOKEN}"'.encode(), f'["{TOKEN}"]'.encode()):
        assert hook("user-prompt-submit", raw, repo.root).returncode == 0
    log = (data_dir / "hook.log").read_text()
    assert "malformed stdin" in log
    nowhere_on_disk(data_dir, repo.state_dir)


def test_questions_answers_and_titles_are_redacted(repo, hall):
    asked = hall("ask", f"may I use {TOKEN} for the release?", cwd=repo.root)
    assert asked.code == 0, asked.stdout
    assert "[redacted: GitHub token]" in asked.json["question"] or TOKEN not in asked.stdout
    answered = hall("answer", asked.json["qid"], f"no, use {AWS} instead", cwd=repo.root)
    assert answered.code == 0, answered.stdout
    made = hall("new", "--title", f"rotate {TOKEN}", cwd=repo.root)
    assert made.code == 0, made.stdout
    assert made.json["title"] == "rotate [redacted: GitHub token]" and TOKEN.lower() not in made.json["branch"]
    refs = subprocess.run(["git", "for-each-ref"], cwd=repo.root, capture_output=True, text=True, check=True).stdout
    assert TOKEN.lower()[:12] not in refs.lower()
    nowhere_on_disk(repo.state_dir, values=(TOKEN, AWS))


def test_memory_writes_are_still_refused_not_redacted(repo, hall):
    result = hall("note", "add", "--facet", "gotcha", "--fact", f"the CI uses {TOKEN}", cwd=repo.root)
    assert result.code == 2 and result.json["error"]["code"] == "SECRET_REFUSED"
    assert "fact: GitHub token" in result.json["error"]["message"] and TOKEN not in result.stdout


def test_a_denied_command_is_journaled_without_its_secret(repo):
    command = f"git push https://bot:{TOKEN}@github.com/acme/app.git main"
    done = hook(
        "pre-tool-use",
        {
            "session_id": "s-2",
            "cwd": str(repo.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        },
        repo.root,
    )
    assert done.returncode == 0 and json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    events = [json.loads(line) for line in (repo.state_dir / "events.jsonl").read_text().splitlines()]
    denied = [e for e in events if e["event"] == "gate_denied"][-1]
    assert denied["input"] == "git push https://bot:[redacted: GitHub token]@github.com/acme/app.git main"
    nowhere_on_disk(repo.state_dir, values=(TOKEN,))


# ---- issue 22 item 3: a cut never keeps a secret's head; every channel redacts the same way ----

CUT_TOKEN = "ghp_" + "Vn3Qw8Er5Ty1Ui7Op2As4Df6Gh9Jk0Lz3Xc5"


def _events(repo) -> list[dict]:
    lines = (repo.state_dir / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _no_head(*roots: Path, token: str = CUT_TOKEN) -> None:
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and "/objects/" not in str(path) and "/logs/" not in str(path):
                data = path.read_bytes()
                assert token[:8].encode() not in data, f"the head of the token is on disk in {path}"


def test_a_prompt_cut_at_4000_keeps_no_head_of_a_token_across_the_cut(repo):
    prompt = "p" * 3985 + " " + CUT_TOKEN + " more"
    done = hook("user-prompt-submit", {"session_id": "s-c", "cwd": str(repo.root), "prompt": prompt}, repo.root)
    assert done.returncode == 0
    recorded = [e for e in _events(repo) if e["event"] == "prompt"][-1]
    assert recorded["truncated"] is True and recorded["prompt"].endswith("[redacted: GitHub token]")
    _no_head(repo.state_dir)


def test_a_commit_subject_cut_at_300_keeps_no_head_and_a_wrapped_token_is_one_token(repo):
    for message in ("s" * 290 + " " + CUT_TOKEN, f"rotate {CUT_TOKEN[:20]}\n{CUT_TOKEN[20:]}"):
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=repo.root, check=True)
        payload = {
            "session_id": "s-c",
            "cwd": str(repo.root),
            "tool_name": "Bash",
            "tool_input": {"command": "git commit -m x"},
            "tool_response": {"stdout": ""},
        }
        assert hook("post-tool-use", payload, repo.root).returncode == 0
    subjects = [e["subject"] for e in _events(repo) if e["event"] == "commit"]
    assert subjects[-1] == "rotate [redacted: GitHub token]"
    assert subjects[-2].endswith("[redacted: GitHub token]")
    _no_head(repo.state_dir)


def test_a_turn_summary_and_a_denied_command_are_redacted_before_their_cut(repo):
    summary = "s" * 1990 + " " + CUT_TOKEN
    hook("stop", {"session_id": "s-c", "cwd": str(repo.root), "last_assistant_message": summary}, repo.root)
    command = "echo " + "x" * 460 + f" && git push https://bot:{CUT_TOKEN}@github.com/acme/app.git main"
    payload = {"session_id": "s-c", "cwd": str(repo.root), "tool_name": "Bash", "tool_input": {"command": command}}
    assert hook("pre-tool-use", payload, repo.root).returncode == 0
    assert [e for e in _events(repo) if e["event"] == "gate_denied"], "the push by hand should be denied"
    _no_head(repo.state_dir)


def test_the_hook_log_redacts_before_it_cuts():
    from hallmark.hooks import common

    common.log(None, "probe", "m" * 1990 + " " + CUT_TOKEN)
    _no_head(Path(os.environ["HALLMARK_DATA_DIR"]))


def test_a_title_that_holds_a_password_never_names_a_branch(repo, hall):
    password = "qzvbnwpyrt"  # letters only: the old rule let these through
    made = hall("new", "--title", f"PGPASSWORD={password} psql -h db", cwd=repo.root)
    assert made.code == 0, made.stdout
    assert password not in made.json["branch"] and password not in made.json["title"]
    refs = subprocess.run(["git", "for-each-ref"], cwd=repo.root, capture_output=True, text=True, check=True).stdout
    assert password not in refs
    nowhere_on_disk(repo.state_dir, values=(password,))


def test_checkpoint_refuses_what_the_old_scanner_stored_verbatim(repo, hall):
    for step in ("mysql -u root -pK7mQ2xWv9Lp shop", "sshpass -p 'Zt4Rk8Wq1Bn' ssh ops@db1"):
        result = hall("checkpoint", "set", "--phase", "p", "--active-work", "w", "--next-step", step, cwd=repo.root)
        assert result.code == 2 and result.json["error"]["code"] == "SECRET_REFUSED", result.stdout
    nowhere_on_disk(repo.state_dir, values=("K7mQ2xWv9Lp", "Zt4Rk8Wq1Bn"))


def test_a_failed_call_with_a_token_across_the_cut_is_not_logged(repo):
    command = "x" * 290 + " " + CUT_TOKEN
    payload = {
        "session_id": "s-c",
        "cwd": str(repo.root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "error": "y" * 395 + " " + CUT_TOKEN + ": command not found",
    }
    assert hook("post-tool-use-failure", payload, repo.root).returncode == 0
    _no_head(repo.state_dir)
