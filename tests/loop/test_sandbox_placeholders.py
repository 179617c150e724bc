"""Claude Code's Linux sandbox (bubblewrap) mounts /dev/null over protected dotfiles in the working
directory (`.bashrc`, `.gitconfig`, `.gitmodules`, `.mcp.json`, `.claude/` …); inside it they are
character devices and `git status` lists them as untracked. They are never dirt: `hall ready` and
`hall fixed` (claims and disputes) work from inside the sandbox. Real repos, the real `hall`, run under
a real `bwrap` with the same kind of mounts (skipped where bubblewrap is missing or cannot start)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import items, states
from hallmark.core.loop import daemon

HALL = str(Path(sys.executable).parent / "hall")  # the real console script of this install
PLACEHOLDERS = [".bashrc", ".gitconfig", ".gitmodules", ".mcp.json", ".claude/settings.json", ".vscode/settings.json"]


def _bwrap(wt: Path) -> list[str]:
    """A bwrap command line that mounts /dev/null over the dotfiles, as Claude Code's sandbox does."""
    if not shutil.which("bwrap"):
        pytest.skip("bubblewrap (bwrap) is not installed; Claude Code's sandbox needs it")
    argv = ["bwrap", "--dev-bind", "/", "/"]
    for rel in PLACEHOLDERS:
        argv += ["--ro-bind", "/dev/null", str(wt / rel)]
    probe = subprocess.run([*argv, "--", "true"], capture_output=True, text=True, check=False)
    _clean(wt)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot start here: {probe.stderr.strip()[:200]}")
    return [*argv, "--"]


def _clean(wt: Path) -> None:
    """bwrap leaves the empty mount points behind on the host; Claude Code's sandbox removes its own."""
    for rel in PLACEHOLDERS:
        (wt / rel).unlink(missing_ok=True)
    for folder in (".claude", ".vscode"):
        if (wt / folder).is_dir():
            (wt / folder).rmdir()


def _in_sandbox(wt: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*_bwrap(wt), *argv], cwd=wt, capture_output=True, text=True, check=False, timeout=120)
    _clean(wt)
    return proc


def _item(repo, kit) -> tuple[str, Path]:
    created = items.new(repo, title="Add mul")
    wt = Path(created["worktree"])
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    kit.git(wt, "add", "app.py")
    kit.git(wt, "commit", "-q", "-m", "Add mul")
    return created["item"], wt


def test_git_lists_the_placeholders_inside_the_sandbox(loop_repo, kit):
    _item_id, wt = _item(loop_repo, kit)
    shown = _in_sandbox(wt, "git", "status", "--porcelain").stdout
    assert "?? .bashrc" in shown and "?? .claude/" in shown  # what made every hall command refuse


def test_ready_from_inside_the_sandbox_is_not_refused(loop_repo, kit):
    item_id, wt = _item(loop_repo, kit)
    proc = _in_sandbox(wt, HALL, "ready", item_id, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the old code: DIRTY_WORKTREE … .bashrc, .claude/
    assert items.fold_item(loop_repo, item_id).state == states.CHECKS


def test_hall_fixed_records_a_dispute_from_inside_the_sandbox(loop_repo, kit, scenario):
    scenario({"review": [kit.reject()]})
    item_id, wt = _item(loop_repo, kit)
    items.ready(loop_repo, item_id)
    daemon.do_checks(loop_repo, items.fold_item(loop_repo, item_id))
    daemon.do_review(loop_repo, items.fold_item(loop_repo, item_id))
    assert items.fold_item(loop_repo, item_id).state == states.FIXING
    proc = _in_sandbox(wt, HALL, "fixed", "--dispute", "F-1", "--reason", "the C API takes int64", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the old code: DIRTY_WORKTREE, the dispute lost
    (disputed,) = kit.events(loop_repo, item_id, "disputed")
    assert disputed["finding"] == "F-1" and items.fold_item(loop_repo, item_id).state == states.CHECKS


def test_a_real_dotfile_is_still_the_work(loop_repo, kit):
    item_id, wt = _item(loop_repo, kit)
    (wt / ".env.local").write_text("X=1\n")  # a regular file: someone's work, to commit or remove
    proc = _in_sandbox(wt, HALL, "ready", item_id, "--json")
    assert proc.returncode != 0 and "DIRTY_WORKTREE" in proc.stdout + proc.stderr
    assert ".env.local" in proc.stdout + proc.stderr and ".bashrc" not in proc.stdout + proc.stderr
