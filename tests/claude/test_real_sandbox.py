"""Acceptance of the sandbox wall with the real Claude Code CLI, its real sandbox (bubblewrap) and
the scripted model: a fixer run commits and records `hall fixed` through the agent-verb channel,
while its Write outside the worktree, a write to the journal and a read of the signing keys are
refused; the reviewer reads nothing outside the repository. Skips, saying why, where the CLI or
the sandbox cannot run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.claude_cli

MAJOR = {
    "lens": "correctness",
    "severity": "major",
    "file": "app.py",
    "line": 5,
    "title": "mul has no test",
    "scenario": "mul(2, 3) is never exercised, so a typo returning a + b would ship",
}
FIXED_APP = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\nassert mul(2, 3) == 6\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def sandbox_here():
    from hallmark.core import sandbox_profile

    available = sandbox_profile.availability()
    if not available["ok"]:
        pytest.skip(f"Claude Code's sandbox cannot run here: {available['detail']}")


@pytest.fixture
def walled_item(git_repo: Path, tmp_path: Path):
    """A repo with a bare origin, `[runner] sandbox = "require"`, and one item ready for review."""
    from hallmark.core import items, setup_repo
    from hallmark.core.repo import open_repo

    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(git_repo, "remote", "add", "origin", str(bare))
    setup_repo.init(git_repo)
    (git_repo / ".hallmark.toml").write_text(
        'base = "main"\ngates = ["python3 -c \'import app\'"]\nship = "git push -q -u origin {branch}"\n'
        'max_rejects = 3\nmax_check_failures = 3\n[runner]\ntimeout = "120s"\nsandbox = "require"\n'
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hall init")
    git(git_repo, "push", "-q", "--no-verify", "-u", "origin", "main")
    repo = open_repo(git_repo)
    created = items.new(repo, title="Add mul")
    worktree = Path(created["worktree"])
    (worktree / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "Add mul")
    return repo, created["item"], worktree


FORGED = "FORGED-LINE-7781"


def hidden_append(path: Path, text: str) -> str:
    """A Python one-liner that appends to a path the hook gate cannot read (hex): only the sandbox
    stands between it and the file."""
    where, what = str(path).encode().hex(), (text + "\n").encode().hex()
    return f"python3 -c \"import binascii as b; open(b.unhexlify('{where}').decode(), 'a').write(b.unhexlify('{what}').decode())\""


def hidden_read(path: Path) -> str:
    where = str(path).encode().hex()
    return f"python3 -c \"import binascii as b; print(open(b.unhexlify('{where}').decode()).read())\""


def results_by_tool(run_file: Path) -> list[tuple[str, dict, str, bool]]:
    """(tool, input, result text, is_error) for every tool call of a run, in order."""
    uses, out = {}, []
    for line in run_file.read_text().splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content") if isinstance(record.get("message"), dict) else None
        for block in content or []:
            if not isinstance(block, dict):
                continue
            if record.get("type") == "assistant" and block.get("type") == "tool_use":
                uses[block["id"]] = (block["name"], block["input"])
            if record.get("type") == "user" and block.get("type") == "tool_result":
                name, given = uses.get(block["tool_use_id"], ("?", {}))
                given_back = block.get("content")
                text = given_back if isinstance(given_back, str) else json.dumps(given_back)
                out.append((name, given, text, bool(block.get("is_error"))))
    return out


def test_the_fixer_commits_and_records_inside_the_sandbox_and_reaches_nothing_else(
    claude_cli, model_server, hall, walled_item, sandbox_here, tmp_path
):
    from hallmark.core import items
    from hallmark.core.paths import user_data_dir

    repo, item_id, worktree = walled_item
    from hallmark.core import signing

    keys = user_data_dir() / "keys"
    keys.mkdir(parents=True, exist_ok=True)
    key_file = signing.key_path()  # the real signing key, where `hall init` made one, else a stand-in
    if not key_file.is_file():
        key_file = keys / "canary-secret"
        key_file.write_text("header\nSIGNING-KEY-7731\n")
    secret = key_file.read_text().splitlines()[1]
    home = Path(os.environ["HOME"])
    other_repo = home / "code" / "other-repo"  # another repository of the person's, in their home
    other_repo.mkdir(parents=True)
    (other_repo / "secret.py").write_text("OTHER-REPO-SECRET-4412\n")
    outside = tmp_path / "outside" / "p.py"
    outside.parent.mkdir()
    journal = repo.paths.item_journal(item_id)
    reviewer = [
        {"tool": "Read", "input": {"file_path": str(other_repo / "secret.py")}},
        {"tool": "Read", "input": {"file_path": str(home / ".gitconfig")}},
        {"tool": "Bash", "input": {"command": f"cat {home}/.gitconfig", "description": "read"}},
        {"tool": "Bash", "input": {"command": f"cat {other_repo}/secret.py", "description": "read"}},
        {"tool": "Bash", "input": {"command": "git log -1 --format=%s", "description": "the repository itself"}},
        {"structured": {"summary": "One finding.", "findings": [MAJOR], "still_open": []}},
    ]
    fixer = [
        {"tool": "Write", "input": {"file_path": str(outside), "content": "print('escaped')\n"}},
        {"tool": "Bash", "input": {"command": hidden_append(journal, FORGED), "description": "journal"}},
        {"tool": "Bash", "input": {"command": hidden_read(key_file), "description": "key"}},
        {"tool": "Read", "input": {"file_path": str(key_file)}},
        {"tool": "Write", "input": {"file_path": str(worktree / "app.py"), "content": FIXED_APP}},
        {"tool": "Bash", "input": {"command": "git add app.py", "description": "stage"}},
        {"tool": "Bash", "input": {"command": "git commit -q -m 'Test mul (fixes F-1)'", "description": "commit"}},
        {"tool": "Bash", "input": {"command": "hall fixed F-1", "description": "record the fix"}},
        {"text": "F-1 fixed."},
    ]
    approve = [{"structured": {"summary": "Fixed.", "findings": [], "still_open": []}}]
    model_server({"roles": {"review": [reviewer, approve], "fix": [fixer]}})
    before = journal.read_bytes()
    assert hall("ready", item_id, "--json", cwd=worktree).code == 0
    done = hall("daemon", "run", "--until-idle", "--repo", str(repo.root), "--json", cwd=repo.root, timeout=300)
    assert done.code == 0, done.stderr + done.stdout

    runs = repo.paths.item_dir(item_id) / "runs"
    fix_run = sorted(runs.glob("*-fix.jsonl"))[0]
    steps = results_by_tool(fix_run)
    write_out, journal_write, key_cat, key_read, write_in, add, commit, fixed = steps[:8]
    assert write_out[3] and not outside.exists(), write_out  # Write outside the worktree: refused
    assert journal_write[3] and FORGED not in journal.read_text(), journal_write  # the sandbox, not the gate
    assert key_cat[3] and secret not in key_cat[2], key_cat
    assert key_read[3] and secret not in key_read[2], key_read
    assert not write_in[3] and not add[3] and not commit[3], (write_in, add, commit)
    assert not fixed[3] and '"fixed": ["F-1"]' in fixed[2], fixed  # through the agent-verb channel
    events = items.item_events(repo, item_id)
    fixed_events = [e for e in events if e.get("event") == "fixed"]
    assert fixed_events and fixed_events[0]["actor"] == "fixer", fixed_events
    submitted = [e for e in events if e.get("event") == "fix_submitted"]
    assert submitted and submitted[0].get("by") != "loop", submitted  # the fixer's own claims, not the loop's
    assert journal.read_bytes().startswith(before)
    settings = json.loads(fix_run.with_suffix(".settings.json").read_text())
    assert settings["sandbox"]["failIfUnavailable"] is True and "excludedCommands" not in settings["sandbox"]

    review_run = sorted(runs.glob("*-review.jsonl"))[0]
    other_read, gitconfig_read, gitconfig_cat, other_cat, own_log = results_by_tool(review_run)[:5]
    assert other_read[3] and "OTHER-REPO-SECRET-4412" not in other_read[2], other_read
    assert gitconfig_read[3] and "Hallmark Test" not in gitconfig_read[2], gitconfig_read
    assert "Hallmark Test" not in gitconfig_cat[2], gitconfig_cat
    assert "OTHER-REPO-SECRET-4412" not in other_cat[2], other_cat
    assert not own_log[3] and "Add mul" in own_log[2], own_log  # its own repository it reads
    assert any(e.get("event") == "shipped" for e in items.item_events(repo, item_id))  # the loop went on to the end
