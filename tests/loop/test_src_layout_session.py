"""A session in a src-layout worktree is told how to run the worktree's code: with the package installed
editable from the main checkout (`pip install -e .`, the usual set-up: hynek/structlog's), a bare `pytest`
there imports the MAIN checkout's package. The SessionStart context says so and gives the
`PYTHONPATH=src` route Hallmark's own checks take. The hook stays light: it reads one small file that
init, doctor and the checks keep. A real venv whose site-packages holds the `.pth` setuptools writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import doctor, items, worktree_env
from hallmark.core.loop import daemon
from hallmark.hooks.main import run

TEST = "import unittest\n\nimport pkg\n\n\nclass T(unittest.TestCase):\n    def test_value(self):\n        self.assertEqual(pkg.value(), 1)\n"


@pytest.fixture
def editable(loop_repo, tmp_path, monkeypatch, kit):
    root = loop_repo.root
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("def value():\n    return 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_pkg.py").write_text(TEST)
    kit.write_config(root, gates=["python -m unittest discover -s tests -q"])
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "src layout")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "__editable__.pkg-0.1.pth").write_text(str(root / "src") + "\n")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    worktree_env._PROBE_CACHE.clear()
    return kit.reopen(loop_repo)


def _context(cwd: Path) -> str:
    answer = run("session-start", json.dumps({"cwd": str(cwd), "session_id": "s-1", "source": "startup"}).encode())
    return answer["hookSpecificOutput"]["additionalContext"] if answer else ""


def test_a_session_in_the_worktree_is_told_how_to_test_its_own_code(editable, kit):
    created = items.new(editable, title="Change value")
    doctor.run(editable.root)  # (init and the checks keep the same note)
    text = _context(Path(created["worktree"]))
    assert "a bare `pytest`" in text and "MAIN checkout" in text  # the old context said nothing of it
    assert "PYTHONPATH=src pytest" in text


def test_the_checks_keep_the_note_too(editable, kit):
    created = items.new(editable, title="Change value")
    wt = Path(created["worktree"])
    (wt / "src" / "pkg" / "__init__.py").write_text("def value():\n    return 1  # reworded\n")
    kit.git(wt, "commit", "-q", "-am", "reword")
    items.ready(editable, created["item"])
    daemon.do_checks(editable, items.fold_item(editable, created["item"]))
    assert "PYTHONPATH=src pytest" in _context(wt)


def test_no_hint_without_an_editable_install(loop_repo):
    created = items.new(loop_repo, title="Plain")
    doctor.run(loop_repo.root)
    assert "PYTHONPATH" not in _context(Path(created["worktree"]))
