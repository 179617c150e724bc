"""The package layout the design card asks for, and the light import path of read commands."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def _pyproject() -> dict:
    return tomllib.loads((PROJECT / "pyproject.toml").read_text())


def test_the_top_level_folders_and_their_import_names():
    for folder in ("tui", "core", "hooks", "plugin", "themes", "tests"):
        assert (PROJECT / folder).is_dir(), folder
    assert (PROJECT / "pyproject.toml").is_file() and (PROJECT / "README.md").is_file()
    mapping = _pyproject()["tool"]["setuptools"]["package-dir"]
    assert mapping == {"hallmark.core": "core", "hallmark.tui": "tui", "hallmark.hooks": "hooks",
                       "hallmark.themes": "themes", "hallmark.plugin": "plugin"}
    packages = _pyproject()["tool"]["setuptools"]["packages"]
    assert all(p.startswith("hallmark.") for p in packages)  # never a bare `core` or `tui`


def test_every_python_package_folder_is_shipped():
    packages = set(_pyproject()["tool"]["setuptools"]["packages"])
    for top, name in (("core", "hallmark.core"), ("tui", "hallmark.tui"), ("hooks", "hallmark.hooks")):
        for init in (PROJECT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(PROJECT / top)
            dotted = ".".join([name, *rel.parts]) if rel.parts else name
            if "__pycache__" in rel.parts or "__snapshots__" in rel.parts:
                continue
            assert dotted in packages, f"{dotted} has an __init__.py but is missing from pyproject packages"


def test_console_scripts_and_an_exact_textual_pin():
    project = _pyproject()["project"]
    assert project["scripts"]["hall"] == "hallmark.tui.cli:entry"
    assert project["scripts"]["hall-hook"].startswith("hallmark.hooks.")
    textual = [d for d in project["dependencies"] if d.startswith("textual")]
    assert len(textual) == 1 and "==" in textual[0]


def test_read_commands_import_no_heavy_library(hall_repo):
    """status, log and inbox on a pipe stay on the stdlib path: no rich, pydantic or textual."""
    code = ("import sys, io, contextlib\n"
            "from hallmark.tui.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    codes = [main(['status']), main(['status', '--all']), main(['log']), main(['inbox'])]\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'pydantic', 'textual', 'git'})\n"
            "print(__import__('json').dumps({'codes': codes, 'heavy': heavy}))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=hall_repo.root, capture_output=True, text=True,
                         timeout=60)
    result = json.loads(out.stdout)
    assert result == {"codes": [0, 0, 0, 0], "heavy": []}
