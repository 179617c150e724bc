"""Acceptance: the review loop with the real Claude Code CLI on PATH (HALL_CLAUDE unset) and the
scripted model: checks, a review with one major finding, a fixer that edits and commits through
Claude Code's own tools, an approving review, the hallmark on the fixer's commit, shipping to a
local bare remote — and a plan limit (429) that pauses the loop until its reset."""

from __future__ import annotations

import json
import subprocess
import time
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
def loop_item(git_repo: Path, tmp_path: Path):
    """A repo with a bare origin, hall init, checks, and one item ready for review."""
    from hallmark.core import items, setup_repo
    from hallmark.core.repo import open_repo

    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(git_repo, "remote", "add", "origin", str(bare))
    setup_repo.init(git_repo)
    (git_repo / ".hallmark.toml").write_text(
        'base = "main"\ngates = ["python3 -c \'import app\'"]\nship = "git push -q -u origin {branch}"\n'
        'max_rejects = 3\nmax_check_failures = 3\n[runner]\ntimeout = "120s"\n'
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hall init")
    git(git_repo, "push", "-q", "--no-verify", "-u", "origin", "main")  # the base, before any item
    repo = open_repo(git_repo)
    created = items.new(repo, title="Add mul")
    worktree = Path(created["worktree"])
    (worktree / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "Add mul")
    return repo, created["item"], worktree, bare


def fixer_turns(worktree: Path) -> list[dict]:
    return [
        {"tool": "Read", "input": {"file_path": str(worktree / "app.py")}},
        {"tool": "Write", "input": {"file_path": str(worktree / "app.py"), "content": FIXED_APP}},
        {"tool": "Bash", "input": {"command": "git add app.py", "description": "stage"}},
        {"tool": "Bash", "input": {"command": "git commit -q -m 'Test mul (fixes F-1)'", "description": "commit"}},
        {"tool": "Bash", "input": {"command": "hall fixed F-1", "description": "record the fix"}},
        {"text": "F-1 fixed: mul is exercised."},
    ]


def review(findings: list[dict]) -> list[dict]:
    return [
        {
            "structured": {"summary": "Reviewed the change.", "findings": findings, "still_open": []},
            "usage": {"input_tokens": 2000, "output_tokens": 150},
        }
    ]


def daemon(hall, repo) -> subprocess.CompletedProcess:
    result = hall("daemon", "run", "--until-idle", "--repo", str(repo.root), "--json", cwd=repo.root, timeout=300)
    assert result.code == 0, result.stderr + result.stdout
    return result


def events(repo, item_id: str, kind: str) -> list[dict]:
    from hallmark.core import items

    return [e for e in items.item_events(repo, item_id) if e.get("event") == kind]


def assert_shipped_with_hallmark_on_the_fixers_commit(repo, item_id: str, worktree: Path, bare: Path) -> None:
    from hallmark.core import items

    view = items.fold_item(repo, item_id)
    head = git(worktree, "rev-parse", "HEAD")
    assert git(worktree, "log", "-1", "--format=%s") == "Test mul (fixes F-1)"
    assert (worktree / "app.py").read_text() == FIXED_APP
    note = json.loads(git(repo.root, "notes", "--ref=hallmark", "show", head))
    assert note["sha"] == head and note["item"] == item_id
    assert git(bare, "rev-parse", f"refs/heads/{view.branch}") == head


def test_the_loop_reviews_fixes_approves_and_ships_with_the_real_cli(claude_cli, model_server, hall, loop_item):
    repo, item_id, worktree, bare = loop_item
    server = model_server({"roles": {"review": [review([MAJOR]), review([])], "fix": [fixer_turns(worktree)]}})
    assert hall("ready", item_id, "--json", cwd=worktree).code == 0
    daemon(hall, repo)
    assert len(server.requests("review")) >= 2 and server.requests("fix")
    assert "StructuredOutput" in server.requests("review")[0].tool_names
    verdicts = events(repo, item_id, "verdict")
    assert [len(v.get("findings") or []) for v in verdicts][:2] == [1, 0]
    assert_shipped_with_hallmark_on_the_fixers_commit(repo, item_id, worktree, bare)
    runs = [e for e in events(repo, item_id, "usage") if e.get("role") in ("review", "fix")]
    assert len(runs) == 3, runs  # one record per run, the Stop hook of the fixer's session adds none


def test_a_plan_limit_pauses_the_loop_until_it_resets(claude_cli, model_server, hall, loop_item):
    repo, item_id, worktree, bare = loop_item
    resets = int(time.time()) + 15  # far enough that a loaded CI machine's first pass ends before it
    limited = [
        {
            "error": 429,
            "headers": {
                "anthropic-ratelimit-unified-status": "rejected",
                "anthropic-ratelimit-unified-reset": str(resets),
                "anthropic-ratelimit-unified-representative-claim": "five_hour",
            },
        }
    ]
    model_server(
        {"roles": {"review": [limited, review([MAJOR]), review([])], "fix": [fixer_turns(worktree)]}}, subscription=True
    )
    assert hall("ready", item_id, "--json", cwd=worktree).code == 0
    daemon(hall, repo)
    from datetime import UTC, datetime

    from hallmark.core import clock, items

    limited_runs = [e for e in events(repo, item_id, "run_ended") if e.get("rate_limited")]
    assert limited_runs and limited_runs[0]["limit"] == "plan"
    paused = [e for e in repo.index.events(kinds=["paused"], repo_level=True) if e.get("level") == "plan"]
    assert paused and paused[-1]["until"] == clock.stamp(datetime.fromtimestamp(resets, UTC))
    view = items.fold_item(repo, item_id)
    assert view.state == "review" and not view.hold
    while time.time() < resets + 0.5:
        time.sleep(0.2)
    daemon(hall, repo)
    assert_shipped_with_hallmark_on_the_fixers_commit(repo, item_id, worktree, bare)
