"""Shared fixtures: real temporary git repositories, an isolated user data dir, and the real `hall`.

Nothing of ours is mocked. Tests that need ../shared read it in place and skip when it is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parent.parent
SHARED = PROJECT.parent / "shared"
BIN = Path(sys.executable).parent

_SCRUB = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "HALL_ACTOR",
    "HALL_ITEM",
    "HALL_CLAUDE",
    "HALLMARK_FIXED_NOW",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "CLAUDE_PROJECT_DIR",
    "AGENTMEMORY_PROJECT_NAME",
)


def _real_data_dir() -> Path:
    """The data dir of the person running the tests (read before any test isolates the env)."""
    from hallmark.core.paths import user_data_dir

    return user_data_dir()


REAL_REPOS = _real_data_dir() / "repos.json"


def _leaked_repos(base: Path) -> list[str]:
    """Repos under this run's temporary dir that a test registered in the person's own data dir."""
    try:
        repos = json.loads(REAL_REPOS.read_text(encoding="utf-8")).get("repos", {})
    except (OSError, ValueError, AttributeError):
        return []
    return [path for path in repos if Path(path).is_relative_to(base)]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Per-test user data dir, home and git identity; no Claude Code variables leak in. A test
    that writes the person's own data dir anyway (an undone monkeypatch, a fixture that forgot the
    env) fails, named: it registered one of this run's repositories there."""
    before = _stat(REAL_REPOS)
    home = tmp_path_factory.mktemp("home")
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Hallmark Test\n\temail = test@hallmark.invalid\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HALLMARK_DATA_DIR", str(home / "hallmark-data"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    yield home
    if _stat(REAL_REPOS) != before:
        base = tmp_path_factory.getbasetemp()
        leaked = _leaked_repos(base.parent if base.name.startswith("popen-gw") else base)
        assert not leaked, f"the test registered repos in the person's own {REAL_REPOS}: {leaked}"


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


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

    def run(
        *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None, timeout: float = 60
    ) -> HallResult:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        proc = subprocess.run(
            [str(BIN / "hall"), *args],
            cwd=cwd,
            env=full_env,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
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


# -- the real Claude Code CLI and the scripted model behind it ------------------------------------

CLAUDE_DIR = PROJECT / ".claude-code" / "node_modules" / ".bin"


def find_pinned_claude() -> tuple[Path | None, str]:
    """The Claude Code CLI the tests run: `.claude-code/` (installed by .ci/run), else HALL_TEST_CLAUDE,
    else a `claude` on PATH; with the reason when there is none."""
    from hallmark.core import claude_code

    candidates = [CLAUDE_DIR / "claude"]
    if os.environ.get("HALL_TEST_CLAUDE"):
        candidates.append(Path(os.environ["HALL_TEST_CLAUDE"]))
    import shutil

    on_path = shutil.which("claude")
    if on_path:
        candidates.append(Path(on_path))
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            version = claude_code.parse_version(claude_code.version_text([str(path)]) or "")
            if version is not None and version >= claude_code.MINIMUM:
                return path, ""
    return None, (
        f"the Claude Code CLI is not installed for the tests (npm install --prefix .claude-code "
        f"@anthropic-ai/claude-code@{claude_code.PINNED}; bash .ci/run does it when npm is there)"
    )


@pytest.fixture
def claude_cli(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real `claude` (skips with the reason when absent), first on PATH for this test."""
    path, reason = find_pinned_claude()
    if path is None:
        pytest.skip(reason)
    monkeypatch.setenv("PATH", f"{path.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("HALL_CLAUDE", raising=False)
    return path


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch):
    """model_server({"roles": {"review": [[turn, …]], …}}) -> a running scripted model server; this
    test's environment points Claude Code at it (ANTHROPIC_BASE_URL …); stopped after the test.
    subscription=True signs in the claude.ai way (CLAUDE_CODE_OAUTH_TOKEN), so plan limits come as
    `rate_limit_event` and "You've hit your limit · resets …"."""
    from hallmark.core.modelserver import ModelServer, Script

    started: list[ModelServer] = []

    def start(script: dict | Script | None = None, *, subscription: bool = False) -> ModelServer:
        if not isinstance(script, Script):
            script = Script.from_json(script or {"roles": {}})
        server = ModelServer(script).start()
        started.append(server)
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "1")  # an error answer is retried once, not ten times
        if subscription:
            monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
            monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-scripted-model")
        return server

    yield start
    for server in started:
        server.stop()
