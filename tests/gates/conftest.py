"""Fixtures for the gate tests (helpers live in gatehelp.py, importable from test modules)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from gatehelp import GateRepo, make_repo


@pytest.fixture(scope="module")
def gate_repo(tmp_path_factory: pytest.TempPathFactory) -> GateRepo:
    """A real repo after hall init and hall new, built once per module."""
    return make_repo(tmp_path_factory.mktemp("gates"))


@pytest.fixture
def env_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GateRepo:
    """A fresh repo (hall init, hall new) whose home, git identity and data dir are this process's too."""
    made = make_repo(tmp_path)
    for key, value in made.env.items():
        monkeypatch.setenv(key, value)
    return made
