"""`hall drop` and `hall sweep` never delete a person's git-ignored files (reliability F1).

`git status` skips ignored files and `git worktree remove` deletes them, so a worktree holding an
edited `[worktree] copy` (`.env`) or an ignored file Hallmark did not put there is kept, named,
unless the person asks for `--delete-ignored`. Each test here lost the file on the old code.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hallmark.core import items
from hallmark.core.repo import open_repo
from hallmark.core.sweep import sweep


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _with_env_copy(root: Path):
    (root / ".gitignore").write_text(".env\n*.local\nbuild/\n")
    (root / ".env").write_text("SECRET_URL=postgres://x\n")
    with (root / ".hallmark.toml").open("a") as fh:
        fh.write('\n[worktree]\ncopy = [".env"]\n')
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "ignore env")
    return open_repo(root)


def _new(repo, title: str) -> tuple[str, Path]:
    made = items.new(repo, title=title)
    return made["item"], Path(made["worktree"])


def test_drop_keeps_an_edited_copy(hall_repo):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "env only")
    with (wt / ".env").open("a") as fh:
        fh.write("PERSON_EDIT=1\n")
    dropped = items.drop(repo, item, reason="done")
    assert (wt / ".env").read_text() == "SECRET_URL=postgres://x\nPERSON_EDIT=1\n"
    assert dropped["worktree_removed"] is False
    assert ".env (copied in by Hallmark, edited since)" in dropped["worktree_kept"]
    assert f"hall sweep {item} --delete-ignored" in dropped["worktree_kept"]
    assert items.fold_item(repo, item).state == "dropped"


def test_drop_keeps_an_ignored_file_hallmark_did_not_copy(hall_repo):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "notes")
    (wt / "research.local").write_text("my research notes\n")
    (wt / "build").mkdir()
    (wt / "build" / "out.bin").write_text("x")
    dropped = items.drop(repo, item, reason="done")
    assert (wt / "research.local").read_text() == "my research notes\n"
    assert dropped["worktree_kept"].count("research.local") == 1  # said once
    assert "build/" in dropped["worktree_kept"]


def test_unchanged_copies_alone_do_not_keep_the_worktree(hall_repo):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "clean")
    dropped = items.drop(repo, item, reason="done")
    assert dropped["worktree_removed"] is True and not wt.exists()
    assert "deleted_ignored" not in dropped


def test_sweep_after_keep_worktree_keeps_them_and_names_them_once(hall_repo, hall):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "later")
    items.drop(repo, item, reason="later", keep_worktree=True)
    (wt / ".env").write_text("EDITED=1\n")
    (wt / "research.local").write_text("notes\n")
    result = sweep(repo)
    assert result["removed"] == []
    (kept,) = result["kept"]
    assert kept["item"] == item and kept["why"].count(".env") == 1 and "research.local" in kept["why"]
    assert (wt / ".env").read_text() == "EDITED=1\n" and (wt / "research.local").exists()
    reply = hall("sweep", cwd=hall_repo.root).json
    assert f"hall sweep {item} --delete-ignored" in reply["next"]
    assert wt.exists()


def test_delete_ignored_deletes_them_and_says_which(hall_repo, hall):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "go")
    items.drop(repo, item, reason="later", keep_worktree=True)
    (wt / "research.local").write_text("notes\n")
    preview = hall("sweep", item, "--dry-run", "--delete-ignored", cwd=hall_repo.root).json
    assert preview["would_remove"][0]["deleted_ignored"] == ["research.local"] and wt.exists()
    done = hall("sweep", item, "--delete-ignored", cwd=hall_repo.root).json
    assert done["removed"][0]["deleted_ignored"] == ["research.local"]
    assert not wt.exists()
    events = items.item_events(repo, item)
    assert events[-1]["event"] == "worktree_removed" and events[-1]["deleted_ignored"] == ["research.local"]


def test_drop_with_delete_ignored_from_the_cli(hall_repo, hall):
    repo = _with_env_copy(hall_repo.root)
    item, wt = _new(repo, "cli")
    (wt / ".env").write_text("EDITED=1\n")
    kept = hall("drop", item, "--reason", "x", cwd=hall_repo.root)
    assert kept.code == 0 and kept.json["worktree_removed"] is False and (wt / ".env").exists()
    item2, wt2 = _new(repo, "cli two")
    (wt2 / ".env").write_text("EDITED=2\n")
    gone = hall("drop", item2, "--reason", "x", "--delete-ignored", cwd=hall_repo.root).json
    assert gone["worktree_removed"] is True and gone["deleted_ignored"] == [
        ".env (copied in by Hallmark, edited since)"
    ]
    assert not wt2.exists()
