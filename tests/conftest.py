"""Shared fixtures: real temporary git repositories, an isolated user data dir, and the real `hall`.

Nothing of ours is mocked. Tests that need ../shared read it in place and skip when it is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parent.parent
SHARED = PROJECT.parent / "shared"
BIN = Path(sys.executable).parent

_SCRUB = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "HALL_ACTOR", "HALL_ITEM", "HALL_CLAUDE",
          "HALLMARK_FIXED_NOW", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "CLAUDE_PROJECT_DIR",
          "AGENTMEMORY_PROJECT_NAME")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Per-test user data dir, home and git identity; no Claude Code variables leak in."""
    home = tmp_path_factory.mktemp("home")
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Hallmark Test\n\temail = test@hallmark.invalid\n"
                         "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HALLMARK_DATA_DIR", str(home / "hallmark-data"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return home


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one commit on main."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# demo\n")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def hall_repo(git_repo: Path):
    """git_repo after `hall init` (in-process), as an opened core Repo."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo

    setup_repo.init(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hall init")
    return open_repo(git_repo)


@dataclass
class HallResult:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture
def hall():
    """Run the real `hall` console script: hall(args, cwd=..., env=..., input=...)."""

    def run(*args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None,
            timeout: float = 60) -> HallResult:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        proc = subprocess.run([str(BIN / "hall"), *args], cwd=cwd, env=full_env, input=input,
                              capture_output=True, text=True, timeout=timeout)
        return HallResult(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared is not beside the project ({SHARED}); its corpora and captures are read in place")
    return SHARED


@pytest.fixture(scope="session")
def pycache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One bytecode cache for every spawned hall-hook, compiled once like an installed package."""
    return tmp_path_factory.mktemp("pycache")
