"""Item verbs in-process: the bad paths of `new`, shell safety of templates, the cache, resolve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hallmark.core import items, journal
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo


def test_new_refuses_an_existing_branch_and_a_failing_worktree_command(hall_repo):
    first = items.new(hall_repo, title="one")
    with pytest.raises(HallError) as caught:
        items.new(hall_repo, title="two", branch=first["branch"])
    assert caught.value.code == "WRONG_STATE" and caught.value.exit_code == 4
    (hall_repo.root / ".hallmark.toml").write_text('worktree = "echo nope >&2; exit 3"\n')
    repo = open_repo(hall_repo.root)
    with pytest.raises(HallError) as caught:
        items.new(repo, title="three")
    assert caught.value.code == "COMMAND_FAILED" and "nope" in caught.value.message
    journals = sorted(p.parent.name for p in repo.paths.items_dir.glob("*/events.jsonl"))
    assert journals == ["H-0001"]  # nothing half-made was recorded


def test_templates_never_run_what_a_title_or_branch_says(hall_repo, tmp_path: Path):
    marker = tmp_path / "pwned"
    title = f"$(touch {marker}); `touch {marker}` && touch {marker}"
    created = items.new(hall_repo, title=title)
    assert not marker.exists()
    assert json.loads((hall_repo.paths.item_dir(created["item"]) / "item.json").read_text())["title"] == title
    with pytest.raises(HallError):
        items.new(hall_repo, title="x", branch=f"x; touch {marker}")
    assert not marker.exists()


def test_a_custom_worktree_command_is_found_by_branch(hall_repo):
    (hall_repo.root / ".hallmark.toml").write_text(
        'worktree = "git worktree add ../elsewhere-{id} -b {branch}"\nbranch = "work/{slug}"\n'
    )
    repo = open_repo(hall_repo.root)
    created = items.new(repo, title="Custom place")
    assert created["branch"] == "work/custom-place"
    assert created["worktree"] == str(hall_repo.root.parent / "elsewhere-H-0001")


def test_worktree_copy_brings_untracked_files(hall_repo):
    (hall_repo.root / ".env").write_text("TOKEN=local\n")
    (hall_repo.root / ".hallmark.toml").write_text('[worktree]\ncopy = [".env", "missing.txt", "../escape"]\n')
    created = items.new(open_repo(hall_repo.root), title="with env")
    assert (Path(created["worktree"]) / ".env").read_text() == "TOKEN=local\n"
    assert journal.read(open_repo(hall_repo.root).paths.item_journal("H-0001")).events[0]["copied"] == [".env"]


def test_item_json_is_only_a_cache(hall_repo):
    created = items.new(hall_repo, title="cache")
    cache = hall_repo.paths.item_dir(created["item"]) / "item.json"
    cache.write_text(json.dumps({"id": created["item"], "state": "closed", "title": "lies"}))
    assert items.status_one(hall_repo, created["item"])["state"] == "development"
    assert items.status_one(hall_repo, created["item"])["title"] == "cache"
    cache.unlink()
    assert items.status_one(hall_repo, created["item"])["state"] == "development"


def test_resolve_prefers_the_deepest_worktree_and_refuses_finished_items(hall_repo):
    outer = items.new(hall_repo, title="outer")
    repo_in_outer = open_repo(outer["worktree"])
    assert items.resolve(repo_in_outer, None) == outer["item"]
    items.drop(hall_repo, outer["item"], reason="done", keep_worktree=True)
    with pytest.raises(HallError) as caught:
        items.resolve(open_repo(outer["worktree"]), None)
    assert caught.value.code == "NO_ITEM"


def test_status_one_and_log_of_a_journal_without_creation(hall_repo):
    path = hall_repo.paths.item_journal("H-0005")
    journal.append(path, "note", item="H-0005", actor="you", text="orphan")
    with pytest.raises(HallError) as caught:
        items.status_one(hall_repo, "H-0005")
    assert caught.value.code == "ITEM_NOT_FOUND"


def test_a_worktree_command_failing_half_way_leaves_no_branch(hall_repo):
    """git creates the branch before it finds the path taken: that empty branch is removed again."""
    from hallmark.core import git

    taken = hall_repo.root.parent / f"{hall_repo.root.name}-H-0001"
    taken.mkdir()
    (taken / "someone-elses-file").write_text("keep me\n")
    with pytest.raises(HallError) as caught:
        items.new(hall_repo, title="blocked")
    assert caught.value.code == "COMMAND_FAILED" and "already exists" in caught.value.message
    assert not git.branch_exists(hall_repo.root, "hm/H-0001-blocked")
    assert (taken / "someone-elses-file").read_text() == "keep me\n"
    retry = items.new(hall_repo, title="blocked")
    assert retry["item"] == "H-0002" and Path(retry["worktree"]).is_dir()
