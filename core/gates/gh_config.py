"""gh's own configuration, read for the push gate: where config.yml lives and its `aliases:` map
(`gh alias set`), so `gh <alias>` is judged by what it expands to. Plain text reading, no YAML library:
the hook stays light. Loaded only when a command names a gh alias that is not a gh built-in.
"""

from __future__ import annotations

import os
from pathlib import Path


def gh_config_file(env: dict[str, str]) -> Path | None:
    """gh's config.yml: $GH_CONFIG_DIR, else $XDG_CONFIG_HOME/gh, else %AppData%/GitHub CLI, else ~/.config/gh."""
    if env.get("GH_CONFIG_DIR"):
        return Path(env["GH_CONFIG_DIR"]) / "config.yml"
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "gh" / "config.yml"
    if os.name == "nt" and env.get("AppData"):
        return Path(env["AppData"]) / "GitHub CLI" / "config.yml"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "gh" / "config.yml" if home else None


def read_gh_aliases(env: dict[str, str]) -> dict[str, str]:
    """The `aliases:` map of gh's config.yml (the flat `name: expansion` lines gh writes), without a
    YAML library: the hook stays light. Unreadable or absent: no aliases."""
    path = gh_config_file(env)
    try:
        text = path.read_text(encoding="utf-8") if path else ""
    except (OSError, UnicodeDecodeError):
        return {}
    aliases: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            inside = line.split("#", 1)[0].strip() == "aliases:"
            continue
        if not inside or ":" not in line:
            continue
        key, _, value = line.strip().partition(":")
        key, value = _yaml_scalar(key), _yaml_scalar(value.strip())
        if key and value:
            aliases[key] = value
    return aliases


def _yaml_scalar(text: str) -> str:
    """A plain, 'single' or "double" quoted YAML scalar (what gh writes for alias names and bodies)."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            import json

            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    return text.split(" #", 1)[0].strip()
