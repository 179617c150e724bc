"""Loop fixtures: a real repo with a local bare remote, `hall init`, the stand-in `claude` first on PATH.

The stand-in (`tests/loop/bin/claude` -> `hall-standin-claude`) writes real-format stream-json and
runs real commands; a scenario file chosen by each test decides its verdicts and fixes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SHIM_DIR = HERE / "bin"

BASE_RULES = "# Rules\n\nBASE-RULE-7731: every public function has a test.\nSee [the style guide](docs/style.md).\n"
STYLE = "# Style\n\nSTYLE-RULE-4410: names explain themselves.\n"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=full).stdout.strip()


@pytest.fixture(autouse=True)
def standin_on_path(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{SHIM_DIR}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HALL_STANDIN_PACE", "0")
    return SHIM_DIR / "claude"


@pytest.fixture
def scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """scenario({"review": [...], "fix": [...]}) writes the stand-in's script and points it there."""

    def write(data: dict) -> Path:
        path = tmp_path / "standin-scenario.json"
        path.write_text(json.dumps(data))
        monkeypatch.setenv("HALL_STANDIN_SCRIPT", str(path))
        return path

    return write


def write_config(root: Path, extra: str = "", gates: list[str] | None = None) -> None:
    gates = gates if gates is not None else ["test ! -e BROKEN", "python3 -c 'import app'"]
    (root / ".hallmark.toml").write_text(
        'base = "main"\n'
        f"gates = {json.dumps(gates)}\n"
        'ship = "git push -q -u origin {branch}"\n'
        "max_rejects = 3\nmax_check_failures = 3\n"
        # the stand-in runs this loop, and the config says so: its hallmarks count only in such a repo
        '[runner]\ntimeout = "60s"\nclaude = "hall-standin-claude"\n' + extra
    )


@pytest.fixture
def loop_repo(git_repo: Path, tmp_path: Path):
    """git_repo with origin (a local bare repo), CLAUDE.md rules on main, hall init and a test config."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo

    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(git_repo, "remote", "add", "origin", str(bare))
    (git_repo / "CLAUDE.md").write_text(BASE_RULES)
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "style.md").write_text(STYLE)
    setup_repo.init(git_repo)
    write_config(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hall init")
    git(git_repo, "push", "-q", "--no-verify", "-u", "origin", "main")
    repo = open_repo(git_repo)
    repo.bare = bare  # type: ignore[attr-defined]
    return repo


def reopen(repo):
    from hallmark.core.repo import open_repo

    fresh = open_repo(repo.root)
    fresh.bare = getattr(repo, "bare", None)  # type: ignore[attr-defined]
    return fresh


@pytest.fixture
def ready_item(loop_repo):
    """make(files, title) -> item id: a new item whose worktree commits `files`, then `ready`."""
    from hallmark.core import items

    def make(files: dict[str, str] | None = None, title: str = "Add mul") -> str:
        created = items.new(loop_repo, title=title)
        item_id, wt = created["item"], Path(created["worktree"])
        for rel, text in (
            files or {"app.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"}
        ).items():
            (wt / rel).parent.mkdir(parents=True, exist_ok=True)
            (wt / rel).write_text(text)
        git(wt, "add", "-A")
        git(wt, "commit", "-q", "-m", title)
        items.ready(loop_repo, item_id)
        return item_id

    return make


def run_loop(repo, **kw):
    from hallmark.core.loop import daemon

    return daemon.run(until_idle=True, repos=[repo.root], **kw)


def events(repo, item_id: str, kind: str | None = None) -> list[dict]:
    from hallmark.core import items

    found = items.item_events(repo, item_id)
    return [e for e in found if kind is None or e.get("event") == kind]


MAJOR = {
    "lens": "correctness",
    "severity": "major",
    "file": "app.py",
    "line": 5,
    "title": "mul ignores overflow",
    "scenario": "mul(10**30, 10**30) is passed to a C API that takes int64 and wraps silently",
}


def reject(summary: str = "changes requested", still_open: list[str] | None = None) -> dict:
    return {"verdict": {"summary": summary, "findings": [MAJOR], "still_open": still_open or []}}


def approve(summary: str = "looks right", still_open: list[str] | None = None) -> dict:
    return {"verdict": {"summary": summary, "findings": [], "still_open": still_open or []}}


@pytest.fixture
def kit():
    """The helpers above, for test modules (importlib mode cannot import a conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        git=git,
        run_loop=run_loop,
        events=events,
        reject=reject,
        approve=approve,
        MAJOR=MAJOR,
        reopen=reopen,
        write_config=write_config,
        BASE_RULES=BASE_RULES,
    )
