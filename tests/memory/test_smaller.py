"""The smaller promises, through the real `hall`: identity across imports and branches, damaged
journals shown (not hidden), control characters never reach a terminal, config bounds."""

from __future__ import annotations

import json

from ..cli.test_contract import run_on_pty
from ..conftest import git

OTHER = "github.com/other/secret-project"


def test_a_branch_cannot_name_another_projects_identity_after_an_import(repo, hall, tmp_path):
    export = tmp_path / "export.json"
    export.write_text(
        json.dumps(
            {
                "format": "hallmark-library",
                "version": 1,
                "project": OTHER,
                "learnings": [
                    {
                        "id": "L-0001",
                        "kind": "rule",
                        "pattern": "The other project's private rule",
                        "status": "accepted",
                        "scope": {"project": OTHER, "paths": []},
                    }
                ],
            }
        )
    )
    assert hall("library", "import", "--from", str(export), cwd=repo.root).code == 0
    assert hall("library", "list", cwd=repo.root).json["count"] == 0  # kept under its own scope
    git(repo.root, "checkout", "-q", "-b", "evil")
    (repo.root / ".agentmemory-project").write_text(OTHER + "\n")
    git(repo.root, "commit", "-qam", "borrow another identity")
    listed = hall("library", "list", cwd=repo.root)
    assert listed.code == 4 and listed.json["error"]["code"] == "WRONG_STATE", listed.stdout
    assert "private rule" not in listed.stdout
    worktree = tmp_path / "wt"
    git(repo.root, "checkout", "-q", "main")
    git(repo.root, "worktree", "add", "-q", str(worktree), "evil")
    assert "private rule" not in hall("library", "list", cwd=worktree).stdout
    briefing = hall("library", "briefing", cwd=worktree).json
    assert briefing["memory_restored"] is False and "private rule" not in json.dumps(briefing)


def test_an_emptied_or_deleted_journal_is_damage_not_absence(repo, hall):
    first = hall("new", "--title", "first item", cwd=repo.root).json["item"]
    second = hall("new", "--title", "second item", cwd=repo.root).json["item"]
    (repo.state_dir / "items" / first / "events.jsonl").write_text("")
    (repo.state_dir / "items" / second / "events.jsonl").unlink()
    status = hall("status", "--all", cwd=repo.root).json
    damaged = {d["item"]: d for d in status["damaged"]}
    assert set(damaged) == {first, second}
    assert damaged[first]["title"] == "first item" and damaged[first]["problem"] == "its journal is empty"
    assert "missing" in damaged[second]["problem"] and status["counts"]["damaged"] == 2
    doctor = hall("doctor", cwd=repo.root).json
    items = next(c for c in doctor["checks"] if c["check"] == "items")
    assert items["ok"] is False and first in items["detail"] and second in items["detail"]


def test_control_characters_never_reach_the_terminal(repo, hall):
    evil = "fix \x1b]8;;https://evil.invalid\x1b\\link\x1b]8;;\x1b\\ \x1b[2J\x1b]0;pwned\x07 \u202eitem\x9b31m"
    item = hall("new", "--title", evil, cwd=repo.root).json["item"]
    for args in (["status", "--all"], ["status", item], ["log", item]):
        shown = run_on_pty(args, repo.root)
        # rich's own colours may be there (ESC [ … m); nothing of the title's may: OSC, clear screen, BEL, CSI, RLO
        for bad in ("\x1b]", "\x1b[2J", "\x07", "\x9b", "\u202e", "\x1b\\"):
            assert bad not in shown, (args, bad)
        assert "fix" in shown
    error = run_on_pty(["status", "H-9999\x1b[2J"], repo.root)
    assert "\x1b[2J" not in error and ("ITEM_NOT_FOUND" in error or "USAGE" in error)


def test_config_bounds_unknown_keys_and_encoding(repo, hall):
    config = repo.root / ".hallmark.toml"
    original = config.read_bytes()
    for text, key in (
        ("max_check_failures = 100000000000000000000000000000\n", "max_check_failures"),
        ("max_rejects = 0\n", "max_rejects"),
        ('[budget]\ndayly = "4M"\n', "dayly"),
        ("[budget]\ndaily = 100000000000000000\n", "budget.daily"),
        ("[budget.review]\nmax_usd = -3\n", "max_usd"),
        ('[library]\nauto_accept = ["automation"]\n', "automation"),
        ('stuck_after = "0s"\n', "stuck_after"),
    ):
        config.write_bytes(original + b"\n" + text.encode())
        result = hall("new", "--title", "x", cwd=repo.root)
        assert result.code == 2 and result.json["error"]["code"] == "INVALID_CONFIG", (text, result.stdout)
        assert key in result.json["error"]["message"], (text, result.json["error"]["message"])
    config.write_bytes(original + b"\n# caf\xe9 in Latin-1\n")
    result = hall("new", "--title", "x", cwd=repo.root)
    assert result.code == 2 and result.json["error"]["code"] == "INVALID_CONFIG", result.stdout
    assert "not UTF-8" in result.json["error"]["message"]
