"""`hall setup claude`: staged, validated, swapped in one symlink; a failure keeps the old one."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from hallmark.core import plugin_install
from hallmark.core.errors import HallError


def config_dir() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def test_dry_run_changes_nothing(hall, tmp_path):
    result = hall("setup", "claude", "--dry-run", cwd=tmp_path)
    assert result.code == 0, result.stdout
    data = result.json
    assert data["dry_run"] is True and data["would_register"] is True
    assert "plugin/hooks/hooks.json" in data["files"] and "plugin/skills/hallmark/SKILL.md" in data["files"]
    assert not config_dir().exists() or not any(config_dir().iterdir())
    assert not Path(data["release"]).exists()


def test_install_writes_the_absolute_hook_path_and_registers_once(hall, tmp_path, git_repo):
    settings = config_dir() / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"theme": "dark", "enabledPlugins": {"other@x": True}}))
    first = hall("setup", "claude", cwd=tmp_path)
    assert first.code == 0, first.stdout
    current = config_dir() / "hallmark" / "current"
    assert current.is_symlink()
    hooks = json.loads((current / "plugin" / "hooks" / "hooks.json").read_text())
    commands = [h["command"] for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    binary = str(Path(sys.executable).parent / "hall-hook")
    assert commands and all(c.startswith(binary + " ") for c in commands)
    matchers = {g.get("matcher") for g in hooks["hooks"]["PreToolUse"]}
    assert matchers == {"Bash", "Edit|Write|MultiEdit|NotebookEdit"}
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and data["enabledPlugins"] == {"other@x": True, "hallmark@hallmark-local": True}
    assert data["extraKnownMarketplaces"]["hallmark-local"]["source"] == {"source": "directory", "path": str(current)}
    market = json.loads((current / ".claude-plugin" / "marketplace.json").read_text())
    assert market["plugins"][0]["name"] == "hallmark"
    for name in ("error.json", "event.json", "config.json", "hallmark-note.json"):
        json.loads((current / "plugin" / "schemas" / name).read_text())
    assert plugin_install.installed_status()["ok"]
    second = hall("setup", "claude", cwd=tmp_path)
    assert second.json["settings_changed"] is False
    assert os.path.realpath(current) == second.json["release"]
    doctor = hall("doctor", cwd=git_repo)
    hooks_check = next(c for c in doctor.json["checks"] if c["check"] == "hooks")
    assert hooks_check["ok"], hooks_check


def test_a_failed_install_leaves_the_previous_one_active(monkeypatch, tmp_path):
    plugin_install.install()
    current = config_dir() / "hallmark" / "current"
    before = os.path.realpath(current)
    broken = tmp_path / "plugin"
    shutil.copytree(plugin_install.package_plugin_dir(), broken)
    (broken / "hooks" / "hooks.json").write_text("{not json")
    monkeypatch.setattr(plugin_install, "package_plugin_dir", lambda: broken)  # a damaged package on disk
    with pytest.raises(HallError) as err:
        plugin_install.install()
    assert "unchanged" in err.value.message
    assert os.path.realpath(current) == before
    assert len(list((config_dir() / "hallmark" / "releases").iterdir())) == 1
    assert plugin_install.installed_status()["ok"]


def test_an_unreadable_settings_file_is_not_overwritten(tmp_path):
    settings = config_dir() / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ broken")
    with pytest.raises(HallError):
        plugin_install.install()
    assert settings.read_text() == "{ broken"
    assert not (config_dir() / "hallmark" / "current").exists()


def test_status_without_an_install():
    status = plugin_install.installed_status()
    assert status["ok"] is False and "not installed" in status["detail"]


def test_the_committed_schemas_match_the_models():
    base = plugin_install.package_plugin_dir() / "schemas"
    for name, schema in plugin_install.schemas().items():
        assert json.loads((base / name).read_text()) == json.loads(json.dumps(schema)), (
            f"plugin/schemas/{name} is stale: run python -m hallmark.core.plugin_install"
        )


def test_the_package_hooks_json_names_hall_hook_for_every_event():
    data = json.loads((plugin_install.package_plugin_dir() / "hooks" / "hooks.json").read_text())
    events = {h["command"].split()[1] for groups in data["hooks"].values() for g in groups for h in g["hooks"]}
    assert {"session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "stop", "notification"} <= events
