"""The user's own settings for the terminal app: `[tui]` in `<user data dir>/config.toml`.

The repo's `.hallmark.toml` may carry a `[tui]` table too; the user's file wins key by key.
Only the app reads and writes this file, so a bad file is reported and never fatal.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hallmark.core import atomic
from hallmark.core.paths import user_data_dir

DEFAULT_THEME = "hallmark-dark"


def user_config_path() -> Path:
    return user_data_dir() / "config.toml"


@dataclass
class TuiSettings:
    theme: str = ""
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _read(path: Path) -> tuple[dict[str, Any], str]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), ""
    except FileNotFoundError:
        return {}, ""
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, f"{path}: {exc}"


def _tui_table(data: dict[str, Any], where: Path, problems: list[str]) -> tuple[str, dict[str, str]]:
    table = data.get("tui", {})
    if not isinstance(table, dict):
        problems.append(f"{where}: [tui] must be a table")
        return "", {}
    theme = table.get("theme", "")
    keymap_raw = table.get("keymap", {}) or {}
    if not isinstance(theme, str):
        problems.append(f"{where}: tui.theme must be a string")
        theme = ""
    keymap: dict[str, str] = {}
    if isinstance(keymap_raw, dict):
        for key, value in keymap_raw.items():
            if isinstance(value, str) and value.strip():
                keymap[str(key)] = value.strip()
            else:
                problems.append(f'{where}: tui.keymap.{key} must be a key string like "x" or "ctrl+d"')
    else:
        problems.append(f'{where}: tui.keymap must be a table of binding id = "keys"')
    return theme, keymap


def load(repo_root: Path | None = None) -> TuiSettings:
    """Repo `[tui]` first, then the user's file on top."""
    settings = TuiSettings()
    sources = []
    if repo_root is not None:
        sources.append(Path(repo_root) / ".hallmark.toml")
    sources.append(user_config_path())
    for path in sources:
        data, problem = _read(path)
        if problem:
            settings.problems.append(problem)
            continue
        theme, keymap = _tui_table(data, path, settings.problems)
        if theme:
            settings.theme = theme
        settings.keymap.update(keymap)
    return settings


def save_theme(name: str) -> Path:
    """Persist the chosen theme in the user's config, keeping everything else in the file."""
    import tomli_w

    path = user_config_path()
    data, problem = _read(path)
    if problem:
        raise OSError(f"not rewriting an unreadable config: {problem}")
    table = data.setdefault("tui", {})
    if not isinstance(table, dict):
        raise OSError(f"{path}: [tui] is not a table")
    table["theme"] = name
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, tomli_w.dumps(data))
    return path
