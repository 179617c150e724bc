"""`hall statusline` (and `hall-hook statusline`, what setup installs) fed Claude Code's status-line
payload on stdin: the line, and that its count is `hall inbox`'s (dismissals applied, a kept line
recomputed when a journal or a dismissal changes). And `hall setup claude --statusline`, which sets
Claude Code's statusLine only where none is set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hallmark.core import items, journal, questions

BIN = Path(sys.executable).parent


def payload(cwd: Path, session: str = "3f1c2a9e-5b7d-4c1e-9a2b-0d4e6f8a1b3c") -> str:
    return json.dumps(
        {
            "hook_event_name": "Status",
            "session_id": session,
            "transcript_path": "/nowhere/t.jsonl",
            "cwd": str(cwd),
            "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
            "workspace": {"current_dir": str(cwd), "project_dir": str(cwd)},
            "version": "2.1.332",
            "output_style": {"name": "default"},
            "cost": {"total_cost_usd": 0.42, "total_duration_ms": 1000, "total_lines_added": 3},
        }
    )


def line(*argv: str, data: str, cwd: Path) -> str:
    proc = subprocess.run(argv, input=data, capture_output=True, text=True, cwd=cwd, timeout=60, check=True)
    assert proc.stderr == ""
    return proc.stdout


def both(data: str, cwd: Path) -> str:
    """The same line through `hall statusline` and `hall-hook statusline`."""
    first = line(str(BIN / "hall"), "statusline", data=data, cwd=cwd)
    assert line(str(BIN / "hall-hook"), "statusline", data=data, cwd=cwd) == first
    assert first.endswith("\n") and first.count("\n") == 1
    return first.rstrip("\n")


def test_the_line_counts_what_hall_inbox_counts(hall_repo, hall, tmp_path):
    created = items.new(hall_repo, title="Status line")
    item, worktree = created["item"], Path(created["worktree"])
    questions.ask(hall_repo, "First?", item_id=item, options=["a", "b"])
    questions.ask(hall_repo, "Second?", item_id=item)
    count = hall("inbox", cwd=hall_repo.root).json["count"]
    assert count == 2
    assert both(payload(worktree), tmp_path) == f"◆ 2 waiting · {item} development · $0.00 today"
    assert both(payload(hall_repo.root), tmp_path) == "◆ 2 waiting · $0.00 today"  # no item in the main checkout
    assert hall("inbox", "1", "--dismiss", cwd=hall_repo.root).code == 0
    assert hall("inbox", cwd=hall_repo.root).json["count"] == 1
    assert both(payload(worktree), tmp_path) == f"◆ 1 waiting · {item} development · $0.00 today"
    journal.append(
        hall_repo.paths.item_journal(item), "usage", item=item, actor="assayer", role="review", model="opus",
        input_tokens=1000, output_tokens=200, cost_usd=1.84,
    )  # fmt: skip
    items.ready(hall_repo, item, note="n")
    assert both(payload(worktree), tmp_path) == f"◆ 1 waiting · {item} checks r1 · $1.84 today"
    questions.answer(hall_repo, "Q-2", "yes")
    assert hall("inbox", cwd=hall_repo.root).json["count"] == 0
    assert both(payload(worktree), tmp_path) == f"nothing waiting · {item} checks r1 · $1.84 today"


def test_outside_hallmark_or_with_a_bad_payload_the_line_is_empty(hall_repo, tmp_path):
    assert both(payload(tmp_path), tmp_path) == ""
    for bad in ("", "not json", "[1, 2]", json.dumps({"cwd": 7})):
        assert both(bad, tmp_path) == ""  # cwd falls back to the process's own: not a repo here
    assert both("{" * 100 + "x" * (2 << 20), tmp_path) == ""  # over the size limit


def test_setup_claude_sets_the_status_line_only_where_none_is(hall, hall_repo):
    settings = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    done = hall("setup", "claude", "--statusline", cwd=hall_repo.root)
    assert done.code == 0, done.stdout + done.stderr
    reply = done.json["statusline"]
    assert reply["installed"] is True and reply["existing"] is None
    assert reply["command"] == f"{BIN / 'hall-hook'} statusline"
    written = json.loads(settings.read_text())["statusLine"]
    assert written == {"type": "command", "command": reply["command"], "padding": 0}
    mine = {"type": "command", "command": "~/.claude/my-line.sh"}
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "statusLine": mine}))
    again = hall("setup", "claude", "--statusline", cwd=hall_repo.root).json
    assert again["statusline"] == {**reply, "installed": False, "existing": "~/.claude/my-line.sh"}
    assert json.loads(settings.read_text())["statusLine"] == mine  # never replaced
    assert any("you have a status line (~/.claude/my-line.sh)" in step for step in again["next"])
