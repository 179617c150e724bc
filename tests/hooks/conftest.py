"""Fixtures for the hook tests; the repo builder and process runner are shared with tests/gates."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "gates"))

from gatehelp import GateRepo, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> GateRepo:
    """A real repo after hall init and hall new (one per test: the hooks write to it)."""
    return make_repo(tmp_path)


@pytest.fixture(scope="module")
def shared_repo(tmp_path_factory: pytest.TempPathFactory) -> GateRepo:
    return make_repo(tmp_path_factory.mktemp("hooks"))
