"""A person's file stays theirs: a symlink is written through and stays a symlink, and a file keeps
its mode, a new one getting the umask's (reliability F10). On the old code `hall init` and
`hall library accept` replaced `CLAUDE.md -> AGENTS.md` with a regular file, and init wrote
CLAUDE.md and .hallmark.toml as 0600."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import atomic

BIN = Path(sys.executable).parent


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path, umask_022):
    target = tmp_path / "AGENTS.md"
    target.write_text("mine\n")
    target.chmod(0o640)
    link = tmp_path / "CLAUDE.md"
    link.symlink_to("AGENTS.md")
    atomic.write_text(link, "mine\nand Hallmark's\n")
    assert link.is_symlink() and os.readlink(link) == "AGENTS.md"
    assert target.read_text() == "mine\nand Hallmark's\n" and _mode(target) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AGENTS.md", "CLAUDE.md"]  # no temp file left


def test_a_dangling_link_creates_its_target(tmp_path, umask_022):
    link = tmp_path / "CLAUDE.md"
    link.symlink_to("docs/AGENTS.md")
    atomic.write_text(link, "new\n")
    assert link.is_symlink() and (tmp_path / "docs" / "AGENTS.md").read_text() == "new\n"


def test_modes_are_kept_and_new_files_get_the_umasks(tmp_path, umask_022):
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    atomic.write_text(script, "new\n")
    assert _mode(script) == 0o755
    fresh = tmp_path / "fresh.txt"
    atomic.write_text(fresh, "x\n")
    assert _mode(fresh) == 0o644
    atomic.write_text(tmp_path / "explicit", "x\n", mode=0o600)
    assert _mode(tmp_path / "explicit") == 0o600


def _repo_with_linked_claude_md(tmp_path: Path) -> Path:
    root = tmp_path / "linked"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "AGENTS.md").write_text("# Agents\n\nbe kind\n")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "linked")
    return root


def _hall(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "hall"), *args], cwd=root, capture_output=True, text=True, timeout=120)


def test_init_and_accept_keep_the_link_and_the_modes(tmp_path, umask_022):
    root = _repo_with_linked_claude_md(tmp_path)
    assert _hall(root, "init").returncode == 0
    claude = root / "CLAUDE.md"
    assert claude.is_symlink() and "hall" in (root / "AGENTS.md").read_text()
    assert _mode(root / "AGENTS.md") == 0o644 and _mode(root / ".hallmark.toml") == 0o644
    assert "120000" in _git(root, "ls-files", "-s", "CLAUDE.md")
    assert _git(root, "status", "--porcelain", "CLAUDE.md") == ""  # the link itself is unchanged
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "hall init")
    proposed = _hall(
        root,
        "library",
        "propose",
        "--kind",
        "convention",
        "--pattern",
        "Makefiles use tabs",
        "--source",
        "user_statement",
        "--quote",
        "we use tabs",
    )
    assert proposed.returncode == 0, proposed.stdout
    accepted = _hall(root, "library", "accept", "L-0001")
    assert accepted.returncode == 0, accepted.stdout
    assert claude.is_symlink() and "Makefiles use tabs" in (root / "AGENTS.md").read_text()
    assert _mode(root / "AGENTS.md") == 0o644


def test_init_keeps_an_existing_claude_md_mode(git_repo, umask_022):
    (git_repo / "CLAUDE.md").write_text("# mine\n")
    (git_repo / "CLAUDE.md").chmod(0o664)
    assert _hall(git_repo, "init").returncode == 0
    assert _mode(git_repo / "CLAUDE.md") == 0o664 and "# mine" in (git_repo / "CLAUDE.md").read_text()
