"""The package layout the design card asks for (what each entry point imports: tests/test_import_hygiene.py)."""

from __future__ import annotations

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
    assert mapping == {
        "hallmark.core": "core",
        "hallmark.tui": "tui",
        "hallmark.hooks": "hooks",
        "hallmark.themes": "themes",
        "hallmark.plugin": "plugin",
    }
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
