"""`hall doctor` names the oldest gh Hallmark was tested with, and says when the one on PATH is older."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hallmark.core.delivery import gh


def _fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "gh"
    script.write_text(f"#!/bin/sh\necho 'gh version {version} (2020-01-01)'\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def test_an_older_gh_is_named_as_older_than_the_tested_one(tmp_path, monkeypatch):
    _fake_gh(tmp_path, monkeypatch, "2.10.1")
    ok, detail = gh.doctor_check()
    assert not ok and "2.10.1" in detail and gh.MIN_GH in detail


def test_no_gh_says_what_it_is_for(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, detail = gh.doctor_check()
    assert not ok and "not on PATH" in detail and gh.MIN_GH in detail


@pytest.mark.skipif(shutil.which("gh") is None, reason="gh is not installed (.ci/run installs Debian's)")
def test_the_installed_gh_is_at_least_the_tested_one():
    ok, detail = gh.doctor_check()
    assert ok, detail
