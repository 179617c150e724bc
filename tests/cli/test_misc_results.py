"""The typed replies of sweep, takeover, budget, diff and inbox: each real reply is its declared
result's keys in the order the CLI always printed them, then `next` (and the keys the face adds),
valid against `hall schema <command>`; product code reads the results by attribute."""

from __future__ import annotations

import json
from pathlib import Path

from hallmark.core import items, sweep_results, takeover_results

from .replies import check_reply, reply_of

SESSION = "1d1e46f9-35c7-4834-b529-846d5bb82288"


def _dropped_with_worktree(repo) -> tuple[str, Path]:
    view = items.new(repo, title="to sweep")
    items.drop(repo, view.item, reason="done", keep_worktree=True)
    return view.item, Path(view.worktree)


def test_sweep_replies_are_typed(hall_repo, monkeypatch):
    root = hall_repo.root
    item_id, worktree = _dropped_with_worktree(hall_repo)
    preview = reply_of(monkeypatch, root, "sweep", "--dry-run")
    check_reply(monkeypatch, root, "sweep", preview, sweep_results.SweepPreview)
    assert list(preview) == ["dry_run", "would_remove", "kept", "next"]
    assert preview["would_remove"] == [
        {"item": item_id, "state": "dropped", "worktree": str(worktree), "branch": preview["would_remove"][0]["branch"]}
    ]
    assert preview["next"] == ["hall sweep"] and worktree.exists()
    done = reply_of(monkeypatch, root, "sweep")
    check_reply(monkeypatch, root, "sweep", done, sweep_results.Swept)
    assert list(done) == ["dry_run", "removed", "kept", "next"] and done["dry_run"] is False
    assert [r["item"] for r in done["removed"]] == [item_id] and not worktree.exists()
    assert done["next"] == ["hall status --all"]


def test_takeover_reply_is_typed_then_next_then_ran(hall_repo, monkeypatch):
    root = hall_repo.root
    repo = hall_repo
    view = items.new(repo, title="taken")
    runs = repo.paths.item_dir(view.item) / "runs"
    runs.mkdir(parents=True)
    init = {"type": "system", "subtype": "init", "cwd": view.worktree, "session_id": SESSION}
    (runs / "20261130T090000000Z-dev.jsonl").write_text(json.dumps(init) + "\n")
    data = reply_of(monkeypatch, root, "takeover", view.item, "--print")
    check_reply(monkeypatch, root, "takeover", data, takeover_results.Takeover, "ran")
    assert data["ran"] is False and data["command"][-2:] == ["--resume", SESSION]
    assert data["next"] == [f"hall ready {view.item}", f"hall status {view.item}"]
