"""The typed replies of sweep, takeover, budget, diff and inbox: each real reply is its declared
result's keys in the order the CLI always printed them, then `next` (and the keys the face adds),
valid against `hall schema <command>`; product code reads the results by attribute."""

from __future__ import annotations

import json
from pathlib import Path

from hallmark.core import (
    diff_results,
    inbox,
    inbox_results,
    item_results,
    items,
    sweep_results,
    takeover_results,
    waiting,
)
from hallmark.core.loop import budget
from hallmark.core.loop.budget_results import BudgetStatus

from ..conftest import git
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


ENTRY_KEYS = ["kind", "item", "since", "text", "key", "fingerprint", "next"]


def test_inbox_replies_are_typed_rows_in_the_old_key_order(hall_repo, monkeypatch):
    """Each entry keeps its keys and order (a question's qid, options and default after the entry's,
    its number last, a null default still there); notices and dismissals are typed replies too."""
    root = hall_repo.root
    created = items.new(hall_repo, title="ready one")
    item_id = created.item
    git(Path(created.worktree), "commit", "-q", "--allow-empty", "-m", "work")
    items.propose_ready(hall_repo, item_id, summary="look")
    asked = reply_of(monkeypatch, root, "ask", "which?", "--options", "a,b")
    data = reply_of(monkeypatch, root, "inbox")
    check_reply(monkeypatch, root, "inbox", data, item_results.InboxReport)
    question, ready = sorted(data["entries"], key=lambda e: e["kind"] != "question")
    assert list(question) == [*ENTRY_KEYS, "qid", "options", "default", "n"]
    assert question["qid"] == asked["qid"] and question["default"] is None and question["options"] == ["a", "b"]
    assert list(ready) == [*ENTRY_KEYS, "n"] and ready["next"][0] == f"hall ready {item_id}"
    assert sorted(e["n"] for e in data["entries"]) == [1, 2] and data["count"] == 2
    report = inbox.report(hall_repo)
    questions = [e for e in report.entries if isinstance(e, inbox_results.QuestionEntry)]
    assert [e.qid for e in questions] == [asked["qid"]]  # the faces read attributes
    assert all(isinstance(e, inbox_results.InboxEntry) for e in report.entries)

    items.record(hall_repo, item_id, "notice", actor="daemon", kind="stuck", text="no progress")
    notices = reply_of(monkeypatch, root, "inbox", "--notices")
    check_reply(monkeypatch, root, "inbox", notices, inbox_results.NoticeList)
    assert notices["notices"] == [
        {"kind": "stuck", "item": item_id, "since": notices["notices"][0]["since"], "text": "no progress"}
    ]

    first = next(e for e in data["entries"] if e["n"] == 1)
    dismissed = reply_of(monkeypatch, root, "inbox", "--dismiss", "1")
    check_reply(monkeypatch, root, "inbox", dismissed, inbox_results.InboxDismissed)
    assert dismissed == {"dismissed": [first["key"]], "next": ["hall inbox", "hall inbox --all"]}
    assert waiting.waiting_for_you(hall_repo).count == 1  # the hook's count, dismissals applied


def test_budget_reply_is_typed_in_the_old_key_order(hall_repo, monkeypatch):
    root = hall_repo.root
    items.new(hall_repo, title="spending")
    data = reply_of(monkeypatch, root, "budget")
    check_reply(monkeypatch, root, "budget", data, BudgetStatus)
    assert list(data["daily"]) == ["cap", "granted", "limit", "used", "cost_usd", "remaining", "paused"]
    assert list(data["rooms"]) == ["review", "fix", "intake", "librarian", "dev"]
    assert list(data["rooms"]["review"]) == ["used", "daily", "max_usd_per_run", "closed"]
    assert list(data["per_item"]) == ["cap", "items"] and list(data["per_item"]["items"][0]) == [
        "item",
        "tokens",
        "allowance",
        "held",
    ]
    assert data["next"] == ["hall usage --by role", "hall budget --grant", "hall budget --set daily=4M"]
    granted = reply_of(monkeypatch, root, "budget", "--grant", "2M")
    check_reply(monkeypatch, root, "budget", granted, BudgetStatus)
    assert granted["daily"]["granted"] == 2_000_000
    status = budget.status(hall_repo)  # the app's Usage screen reads it by attribute
    assert status.daily.granted == 2_000_000 and status.rooms.by_room()["dev"] == status.rooms.dev


FILE_STAT_KEYS = ["path", "old_path", "status", "added", "removed", "binary"]


def test_diff_replies_are_typed_in_the_old_key_order(hall_repo, monkeypatch):
    root = hall_repo.root
    created = items.new(hall_repo, title="changing")
    worktree = Path(created.worktree)
    (worktree / "new.py").write_text("a = 1\nb = 2\n")
    full = reply_of(monkeypatch, root, "diff", created.item)
    check_reply(monkeypatch, root, "diff", full, diff_results.Diff)
    assert list(full) == [
        "item",
        "base",
        "merge_base",
        "head",
        "worktree",
        "ignore_whitespace",
        "files",
        "added",
        "removed",
        "stat_only",
        "unanchored_findings",
        "next",
    ]
    (changed,) = full["files"]
    assert list(changed) == [*FILE_STAT_KEYS, "hunks", "findings"] and changed["added"] == 2
    assert list(changed["hunks"][0]) == [
        "header",
        "old_start",
        "old_count",
        "new_start",
        "new_count",
        "section",
        "lines",
        "findings",
    ]
    assert changed["hunks"][0]["lines"][1] == {"kind": "+", "text": "b = 2", "old": None, "new": 2}
    assert full["stat_only"] is False and full["added"] == 2 and full["unanchored_findings"] == []
    stat = reply_of(monkeypatch, root, "diff", created.item, "--stat")
    check_reply(monkeypatch, root, "diff", stat, diff_results.DiffStat)
    assert list(stat) == ["item", "base", "merge_base", "head", "files", "added", "removed", "stat_only", "next"]
    assert list(stat["files"][0]) == FILE_STAT_KEYS and stat["stat_only"] is True
    assert (
        stat["next"]
        == full["next"]
        == [
            f"hall findings {created.item}",
            f"hall ready {created.item}",
            f"hall status {created.item}",
        ]
    )
