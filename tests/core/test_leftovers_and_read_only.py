"""Reliability F11/F12/F14/F15: read-only commands need no writable state dir, a path with a newline
is one path, a renamed base is named, and what a killed `hall new` leaves is found by doctor. Each
failed on the old code (INTERNAL, a truncated worktree path, silence)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import doctor, git, items
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo

BIN = Path(sys.executable).parent


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _hall(cwd: Path, *args: str) -> dict:
    proc = subprocess.run([str(BIN / "hall"), *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout)


def _checks(root: Path) -> dict:
    return {c.check: c for c in doctor.run(root).checks}


@pytest.mark.parametrize("broken", ["index.sqlite", "index.sqlite.lock"])
def test_reads_fold_the_journals_when_the_index_cannot_be_written(hall_repo, broken):
    made = items.new(hall_repo, title="readable")
    _hall(hall_repo.root, "ask", "still answerable?")
    state = hall_repo.state_dir
    for leftover in state.glob("index.sqlite*"):
        leftover.unlink()
    (state / broken).mkdir()  # stands for a read-only or full state dir: the write fails
    status = _hall(hall_repo.root, "status", "--all")
    assert [i["item"] for i in status["items"]] == [made["item"]]
    assert _hall(hall_repo.root, "status", made["item"])["state"] == "development"
    inbox = _hall(hall_repo.root, "inbox")
    assert [e["text"] for e in inbox["entries"]] == ["still answerable?"]


def test_a_repo_path_with_a_newline_is_one_path(tmp_path):
    root = tmp_path / "nl\nrepo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "i")
    from hallmark.core import setup_repo

    setup_repo.init(root)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "h")
    repo = open_repo(root)
    made = items.new(repo, title="newline")
    wt = Path(made["worktree"])
    assert wt.is_dir() and "\n" in str(wt)
    assert any(e["path"] == str(wt) for e in git.worktrees(root))
    (wt / "b.txt").write_text("b\n")
    _git(wt, "add", "-A")
    _git(wt, "commit", "-qm", "b")
    assert items.ready(open_repo(wt), items.resolve(open_repo(wt), None))["state"] == "checks"


def test_a_missing_base_is_named_by_new_and_doctor(hall_repo):
    made = items.new(hall_repo, title="on main")
    _git(hall_repo.root, "branch", "-m", "main", "trunk")
    with pytest.raises(HallError) as caught:
        items.new(open_repo(hall_repo.root), title="after the rename")
    assert caught.value.code == "WRONG_STATE" and "'main' does not exist" in caught.value.message
    check = _checks(hall_repo.root)["bases"]
    assert check.ok is False and "main" in check.detail and made["item"] in check.detail


def test_doctor_finds_what_a_killed_new_left(hall_repo):
    made = items.new(hall_repo, title="real")
    assert _checks(hall_repo.root)["leftovers"].ok is True
    orphan_wt = hall_repo.root.parent / "repo-H-0002"
    _git(hall_repo.root, "worktree", "add", "-q", str(orphan_wt), "-b", "hm/H-0002-killed")
    _git(hall_repo.root, "branch", "hm/H-0003-also-killed")
    _git(hall_repo.root, "branch", "my-own-branch")  # the person's: not Hallmark's to report
    check = _checks(hall_repo.root)["leftovers"]
    assert check.ok is False
    assert check.mismatches is not None and len(check.mismatches) == 2
    assert "hm/H-0002-killed" in check.detail and str(orphan_wt) in check.detail
    assert "hm/H-0003-also-killed" in check.detail and "my-own-branch" not in check.detail
    assert made["branch"] not in check.detail
    assert check.fix and check.fix.startswith(f"git worktree remove {orphan_wt}")
