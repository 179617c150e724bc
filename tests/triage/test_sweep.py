"""`hall sweep` on real worktrees: closed and dropped go; dirty, other-branch and main checkout stay."""

from __future__ import annotations

import subprocess

from hallmark.core import items, journal
from hallmark.core.sweep import sweep


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _close(repo, item_id, wt, commit_all):
    (wt / f"{item_id}.txt").write_text("done\n")
    sha = commit_all(wt)
    items.ready(repo, item_id)
    for action in ("checks_passed", "hallmarked", "shipped"):
        items.transition(repo, item_id, action, actor="assayer", sha=sha)
    assert items.fold_item(repo, item_id).state == "closed"


def test_sweep_closed_dropped_dirty_and_other_branch(hall_repo, new_item, commit_all, hall):
    closed, closed_wt = new_item("closed one")
    _close(hall_repo, closed, closed_wt, commit_all)
    dropped, dropped_wt = new_item("dropped one")
    items.drop(hall_repo, dropped, reason="not needed", keep_worktree=True)
    dirty, dirty_wt = new_item("dirty one")
    items.drop(hall_repo, dirty, reason="later", keep_worktree=True)
    (dirty_wt / "scratch.py").write_text("unsaved = True\n")
    other, other_wt = new_item("other branch")
    _close(hall_repo, other, other_wt, commit_all)
    git(other_wt, "switch", "-q", "-c", "someone-elses-work")
    live, live_wt = new_item("still in development")

    preview = hall("sweep", "--dry-run", cwd=hall_repo.root).json
    assert sorted(r["item"] for r in preview["would_remove"]) == sorted([closed, dropped])
    assert closed_wt.exists() and dropped_wt.exists()  # a dry run touches nothing

    result = sweep(hall_repo)
    assert sorted(r["item"] for r in result["removed"]) == sorted([closed, dropped])
    kept = {k["item"]: k["why"] for k in result["kept"]}
    assert kept[dirty] == "it has uncommitted changes: scratch.py"
    assert (
        kept[other] == f"it is on someone-elses-work, not the item's branch {items.fold_item(hall_repo, other).branch}"
    )
    assert live not in kept and live_wt.exists()
    assert not closed_wt.exists() and not dropped_wt.exists()
    assert dirty_wt.exists() and (dirty_wt / "scratch.py").exists() and other_wt.exists()
    # branches and journals stay; each removal is an event
    for item_id in (closed, dropped):
        view = items.fold_item(hall_repo, item_id)
        assert git(hall_repo.root, "branch", "--list", view.branch)
        removed = [
            e for e in journal.read(hall_repo.paths.item_journal(item_id)).events if e["event"] == "worktree_removed"
        ]
        assert len(removed) == 1 and removed[0]["worktree"] == view.worktree
    # a second sweep removes nothing more and records nothing more
    again = sweep(hall_repo)
    assert again["removed"] == [] and {k["item"] for k in again["kept"]} == {dirty, other}


def test_sweep_never_touches_the_main_checkout(hall_repo, hall):
    root = hall_repo.root
    git(root, "switch", "-q", "-c", "adopted-here")
    adopted = items.adopt(hall_repo, title="in the main checkout")["item"]
    items.drop(hall_repo, adopted, reason="done with it", keep_worktree=True)
    result = hall("sweep", cwd=root).json
    assert result["removed"] == []
    assert result["kept"] == [
        {"item": adopted, "state": "dropped", "worktree": str(root), "why": "it is the main checkout"}
    ]
    assert (root / ".git").exists()


def test_sweep_text_names_the_reason(hall_repo, new_item):
    from hallmark.tui.cli.items import sweep_text

    dirty, wt = new_item()
    items.drop(hall_repo, dirty, reason="x", keep_worktree=True)
    (wt / "app.py").write_text("changed\n")
    rendered = sweep_text(sweep(hall_repo, dry_run=True)).plain
    assert f"kept {dirty} (dropped)" in rendered and "uncommitted changes: app.py" in rendered


def test_sweep_only_the_items_named(hall_repo, new_item):
    first, first_wt = new_item("one")
    second, second_wt = new_item("two")
    for item_id in (first, second):
        items.drop(hall_repo, item_id, reason="x", keep_worktree=True)
    result = sweep(hall_repo, item_ids=[second], actor="sweeper")
    assert [r["item"] for r in result["removed"]] == [second]
    assert first_wt.exists() and not second_wt.exists()
    removed = [e for e in items.item_events(hall_repo, second) if e["event"] == "worktree_removed"]
    assert removed[0]["actor"] == "sweeper"
