"""Files Hallmark copies into a worktree (`[worktree] copy`) and that are unchanged are Hallmark's own:
ready, the fixer's judgement, the checks cache, shipping, the sweep and drop all leave them out, and
nothing ever suggests committing one. Real repos; the `.env` is deliberately NOT git-ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from hallmark.core import items, states, sweep
from hallmark.core.errors import HallError
from hallmark.core.loop import daemon

ENV = "API_TOKEN=not-a-real-one\n"


@pytest.fixture
def copying(loop_repo, kit):
    text = (loop_repo.root / ".hallmark.toml").read_text()
    (loop_repo.root / ".hallmark.toml").write_text(text + '[worktree]\ncopy = [".env", "config/local.toml"]\n')
    kit.git(loop_repo.root, "add", ".hallmark.toml")
    kit.git(loop_repo.root, "commit", "-q", "-m", "copy .env into worktrees")
    kit.git(loop_repo.root, "push", "-q", "--no-verify", "origin", "main")
    (loop_repo.root / ".env").write_text(ENV)  # untracked in the main checkout, and not ignored
    (loop_repo.root / "config").mkdir()
    (loop_repo.root / "config" / "local.toml").write_text("debug = true\n")
    return kit.reopen(loop_repo)


def _item_with_commit(repo, kit, title: str = "Add mul") -> tuple[str, Path]:
    created = items.new(repo, title=title)
    wt = Path(created["worktree"])
    assert (wt / ".env").read_text() == ENV and (wt / "config" / "local.toml").is_file()
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    kit.git(wt, "add", "app.py")
    kit.git(wt, "commit", "-q", "-m", title)
    return created["item"], wt


def test_ready_ignores_unchanged_copies(copying, kit):
    item_id, _wt = _item_with_commit(copying, kit)
    result = items.ready(copying, item_id)
    assert result["state"] == states.CHECKS
    (created,) = kit.events(copying, item_id, "created")
    assert created["copied"] == [".env", "config/local.toml"] and set(created["copied_sha256"]) == set(
        created["copied"]
    )


def test_an_edited_copy_is_refused_without_ever_suggesting_to_commit_it(copying, kit):
    item_id, wt = _item_with_commit(copying, kit)
    (wt / ".env").write_text(ENV + "EXTRA=1\n")
    with pytest.raises(HallError) as caught:
        items.ready(copying, item_id)
    assert caught.value.code == "DIRTY_WORKTREE"
    advice = caught.value.next
    assert any(".env: copied in by Hallmark" in step and "rm .env" in step for step in advice)
    assert not any(step.startswith("commit") for step in advice)  # the copy is the only change
    (wt / "new.py").write_text("x = 1\n")
    with pytest.raises(HallError) as caught:
        items.ready(copying, item_id)
    assert "commit or stash your other changes, then run ready again" in caught.value.next


def test_the_loop_caches_checks_and_ships_with_copies_present(copying, kit, scenario):
    scenario({"review": [kit.approve()]})
    item_id, _wt = _item_with_commit(copying, kit)
    items.ready(copying, item_id)
    kit.run_loop(copying)
    view = items.fold_item(copying, item_id)
    assert view.state == states.CLOSED
    runs = kit.events(copying, item_id, "check_run")
    from hallmark.core.loop import checks

    key = checks.cache_key(runs[0]["tree"], runs[0]["command"], copying.config.gates)
    assert checks.cached_pass(copying, key) is not None  # the copies did not make the tree "unfrozen"
    remote_files = kit.git(copying.bare, "ls-tree", "-r", "--name-only", view.branch).split()
    assert ".env" not in remote_files and "config/local.toml" not in remote_files


def test_a_fixer_is_not_blamed_for_hallmarks_copies(copying, kit, scenario):
    scenario(
        {
            "review": [kit.reject(), kit.approve()],
            "fix": [{"edits": [{"file": "app.py", "append": "# overflow checked\n"}], "fixed": ["F-1"]}],
        }
    )
    item_id, _wt = _item_with_commit(copying, kit)
    items.ready(copying, item_id)
    kit.run_loop(copying)
    assert items.fold_item(copying, item_id).state == states.CLOSED
    assert not [e for e in kit.events(copying, item_id, "run_ended") if e.get("failed")]


def test_sweep_and_drop_remove_worktrees_holding_only_copies(copying, kit, scenario):
    scenario({"review": [kit.approve()]})
    shipped, shipped_wt = _item_with_commit(copying, kit, "shipped one")
    items.ready(copying, shipped)
    kit.run_loop(copying)
    assert items.fold_item(copying, shipped).state == states.CLOSED
    result = sweep.sweep(copying)
    assert [r["item"] for r in result["removed"]] == [shipped] and not result["kept"]
    assert not shipped_wt.exists()
    dropped, dropped_wt = _item_with_commit(copying, kit, "dropped one")
    answer = items.drop(copying, dropped, reason="not needed")
    assert answer["worktree_removed"] is True and not dropped_wt.exists()
    assert (copying.root / ".env").read_text() == ENV  # the main checkout's own file is untouched


def test_an_edited_copy_keeps_the_worktree(copying, kit):
    item_id, wt = _item_with_commit(copying, kit)
    (wt / ".env").write_text("CHANGED=1\n")
    answer = items.drop(copying, item_id, reason="stop")
    assert answer["worktree_removed"] is False and (wt / ".env").read_text() == "CHANGED=1\n"


def test_the_daemon_sweeper_path_is_the_same(copying, kit, scenario):
    scenario({"review": [kit.approve()]})
    item_id, _wt = _item_with_commit(copying, kit)
    items.ready(copying, item_id)
    daemon.run(until_idle=True, repos=[copying.root])
    removable, kept = sweep.plan(copying)
    assert [v.id for v in removable] == [item_id] and kept == []
