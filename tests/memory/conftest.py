"""Fixtures for the memory store: a real initialised repo with a committed project identity."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(hall_repo):
    """hall_repo: `hall init` ran and its .agentmemory-project is committed."""
    assert (hall_repo.root / ".agentmemory-project").is_file()
    return hall_repo


def files_under(root: Path) -> dict[str, bytes]:
    """Every file below root (relative path -> bytes), for 'nothing else changed' assertions."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
