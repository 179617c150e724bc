"""`[worktree] copy`: untracked files copied from the main checkout into each new worktree, never back."""

from __future__ import annotations

from pathlib import Path

from hallmark.core import items
from hallmark.core.repo import open_repo
from hallmark.core.sweep import sweep

CONFIG_TAIL = (
    '\n[worktree]\ncopy = [".env", ".env.local", "config/dev.env", "../outside.txt", "/etc/hostname", "missing.env"]\n'
)


def _configure(root):
    with (root / ".hallmark.toml").open("a") as fh:
        fh.write(CONFIG_TAIL)
    (root / ".gitignore").write_text(".env\n.env.local\nconfig/dev.env\n")
    (root / ".env").write_text("SECRET=main\n")
    (root / ".env.local").write_text("LOCAL=1\n")
    (root / "config").mkdir()
    (root / "config" / "dev.env").write_text("DEV=1\n")
    (root.parent / "outside.txt").write_text("must not travel\n")
    return open_repo(root)


def test_env_files_are_copied_in_and_never_back(hall_repo):
    repo = _configure(hall_repo.root)
    result = items.new(repo, title="uses env")
    wt = Path(result["worktree"])
    assert (wt / ".env").read_text() == "SECRET=main\n"
    assert (wt / ".env.local").read_text() == "LOCAL=1\n"
    assert (wt / "config" / "dev.env").read_text() == "DEV=1\n"
    created = items.item_events(repo, result["item"])[0]
    assert created["copied"] == [".env", ".env.local", "config/dev.env"]
    # outside the worktree: refused, nothing written beside the worktree or anywhere else
    assert (hall_repo.root.parent / "outside.txt").read_text() == "must not travel\n"
    assert not list(wt.rglob("outside.txt")) and not list(wt.rglob("hostname"))
    assert not (wt / "etc").exists() and not (wt / "missing.env").exists()
    # the worktree's edits never flow back, through its whole life and removal
    (wt / ".env").write_text("SECRET=changed-in-worktree\n")
    items.drop(repo, result["item"], reason="done", keep_worktree=True)
    (wt / ".env").unlink()
    (wt / ".env.local").unlink()
    (wt / "config" / "dev.env").unlink()
    assert sweep(repo)["removed"]
    assert (hall_repo.root / ".env").read_text() == "SECRET=main\n"
    assert (hall_repo.root / ".env.local").read_text() == "LOCAL=1\n"


def test_an_existing_file_in_the_worktree_is_not_overwritten(hall_repo, commit_all):
    root = hall_repo.root
    (root / "tracked.env").write_text("FROM=branch\n")
    commit_all(root, "tracked env")
    with (root / ".hallmark.toml").open("a") as fh:
        fh.write('\n[worktree]\ncopy = ["tracked.env"]\n')
    (root / "tracked.env").write_text("FROM=uncommitted main\n")
    repo = open_repo(root)
    result = items.new(repo, title="keeps its own")
    assert (Path(result["worktree"]) / "tracked.env").read_text() == "FROM=branch\n"


def test_default_copies_nothing(hall_repo):
    (hall_repo.root / ".env").write_text("X=1\n")
    result = items.new(hall_repo, title="no copy")
    assert not (Path(result["worktree"]) / ".env").exists()
    assert "copied" not in items.item_events(hall_repo, result["item"])[0]
