"""`hall new` reads a known-valid configuration without the pydantic model (80 ms of the verb), and
reads exactly what the model would give it. Real files, the real `hall`; nothing mocked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import config_raw
from hallmark.core.config import load

CONFIGS = [
    "",
    'base = "develop"\n',
    'branch = "work/{id}"\nworktree = "git worktree add ../wt-{id} -b {branch}"\n',
    '[worktree]\ncopy = [".env", "local/settings.json"]\n',
    '[worktree]\ncommand = "git worktree add ../x-{id} -b {branch}"\ncopy = [".env"]\n',
    'worktree = "git worktree add ../y-{id} -b {branch}"\n[capture]\nmode = "ask"\n',
]


@pytest.mark.parametrize("text", CONFIGS, ids=[f"config-{n}" for n in range(len(CONFIGS))])
def test_the_light_settings_are_the_models(tmp_path: Path, text: str):
    state = tmp_path / "state"
    state.mkdir()
    (tmp_path / config_raw.CONFIG_NAME).write_text(text)
    assert config_raw.known_valid_new_settings(tmp_path, state) is None  # not known valid yet: the model decides
    model = load(tmp_path)
    config_raw.mark_valid(tmp_path, state)
    light = config_raw.known_valid_new_settings(tmp_path, state)
    assert light is not None
    assert (light.base, light.branch, light.worktree, light.worktree_copy) == (
        model.base,
        model.branch,
        model.worktree,
        model.worktree_copy,
    )
    (tmp_path / config_raw.CONFIG_NAME).write_text(text + "\n# edited\n")
    assert config_raw.known_valid_new_settings(tmp_path, state) is None  # any edit: checked again


NEW = """
import io, contextlib, json, sys
from hallmark.tui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["new", "--title", sys.argv[1]])
print(json.dumps({"code": code, "reply": out.getvalue(), "pydantic": "pydantic" in sys.modules}))
"""


def test_hall_new_imports_no_pydantic_once_the_config_is_known_valid(hall_repo):
    def new(title: str) -> dict:
        proc = subprocess.run(
            [sys.executable, "-c", NEW, title], cwd=hall_repo.root, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout)

    first = new("first")  # hall init validated the file already; a repo without that validates here
    second = new("second")
    assert first["code"] == second["code"] == 0
    assert second["pydantic"] is False
    assert json.loads(second["reply"])["branch"].startswith("hm/")
