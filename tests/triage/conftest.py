"""Triage fixtures: a stand-in `claude` that records how it was started, and item helpers."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

STANDIN = '''#!{python}
"""Stand-in for the `claude` executable: records argv, cwd and the environment it was started with."""
import json, os, sys
record = os.environ.get("STANDIN_RECORD")
entry = {{"argv": sys.argv[1:], "cwd": os.getcwd(),
          "env": {{k: os.environ.get(k) for k in ("HALL_ITEM", "AGENTMEMORY_PROJECT_NAME", "HALL_ACTOR")}}}}
with open(record, "a") as fh:
    fh.write(json.dumps(entry) + "\\n")
sys.exit(int(os.environ.get("STANDIN_EXIT", "0")))
'''


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def standin_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A `claude` on PATH that appends {argv, cwd, env} to a record file; returns a reader of the records.

    The runner's `claude --version` probe (the minimum-version check) is left out of what it returns."""
    bin_dir = tmp_path / "standin-bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(STANDIN.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    record = tmp_path / "standin-record.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_RECORD", str(record))

    def read() -> list[dict]:
        if not record.exists():
            return []
        calls = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
        return [call for call in calls if call.get("argv") != ["--version"]]

    return read


@pytest.fixture
def new_item(hall_repo):
    """Create an item in-process; returns (item_id, worktree Path)."""
    from hallmark.core import items

    def make(title: str = "change things") -> tuple[str, Path]:
        result = items.new(hall_repo, title=title)
        return result["item"], Path(result["worktree"])

    return make


def _commit_all(cwd: Path, message: str = "work") -> str:
    git(cwd, "add", "-A")
    git(cwd, "commit", "-q", "-m", message)
    return git(cwd, "rev-parse", "HEAD")


@pytest.fixture
def commit_all():
    """commit_all(cwd, message) -> the new HEAD sha (everything in the checkout, untracked included)."""
    return _commit_all
