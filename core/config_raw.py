"""The configuration's defaults and a stdlib-only loader, for the hook path.

The pydantic model in config.py validates the same data for every other face. Config is
always read from the main checkout, so an item can't loosen its own gates.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

CONFIG_NAME = ".hallmark.toml"

DEFAULTS: dict[str, Any] = {
    "base": "main",
    "worktree": "git worktree add ../{repo}-{id} -b {branch}",
    "branch": "hm/{id}-{slug}",
    "ship": "git push -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}",
    "review_comment": "gh pr comment {pr} --body-file {review_file}",
    "gates": [],
    "gates_no_cache": [],
    "dev_commands": [],
    "fixer": "claude -p",
    "claude_args": [],
    "max_rejects": 3,
    "max_check_failures": 3,
    "max_run_failures": 2,
    "max_runs_per_round": 8,
    "stuck_after": "30m",
    "lenses": "all",
    "rules": ["CLAUDE.md", "AGENTS.md"],
    "auto_ready": False,
    "capture": {
        "mode": "gate",
        "free": ["docs/", "*.md"],
        "push_guard": "strict",
        "push_allow": [],
    },
    "worktree_opts": {},
    "merge": {
        "mode": "off",
        "command": "gh pr merge {pr} --squash --match-head-commit {pr_head}",
        "require_ci": True,
        "lit": [],
        "update": "files",
    },
    "intake": {"split": "auto", "max_parts": 4},
    "budget": {
        "daily": "4M",
        "per_item": "800k",
        "review_model": "opus",
        "fix_model": "sonnet",
        "intake_model": "haiku",
        "librarian_model": "haiku",
    },
    "library": {
        "search": "builtin",
        "briefing_limit": "6k",
        "auto_accept": [],
        "retire_after": "90d",
    },
    "runner": {"claude": "", "timeout": "30m", "sandbox": "auto"},
    "extensions": {},
    "tui": {"keymap": {}, "theme": ""},
}


def config_path(main_checkout: Path) -> Path:
    return Path(main_checkout) / CONFIG_NAME


def merge_defaults(data: dict[str, Any], defaults: dict[str, Any] = DEFAULTS) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_defaults(value, merged[key])
        else:
            merged[key] = value
    return merged


def load_raw(main_checkout: Path) -> dict[str, Any]:
    """Parse .hallmark.toml (absent means all defaults). Raises tomllib.TOMLDecodeError/OSError."""
    path = config_path(main_checkout)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return copy.deepcopy(DEFAULTS)
    return merge_defaults(tomllib.loads(text))


def _fingerprint(main_checkout: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(config_path(main_checkout).read_bytes()).hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable: {exc}"


def known_valid(main_checkout: Path, state_dir: Path) -> bool:
    """True when this exact .hallmark.toml passed the full (pydantic) check before: read-only
    commands then skip it and stay on the stdlib path. Any edit changes the fingerprint."""
    try:
        return (state_dir / "config.valid").read_text(encoding="utf-8") == _fingerprint(main_checkout)
    except OSError:
        return False


def mark_valid(main_checkout: Path, state_dir: Path) -> None:
    """Remember that the config as it is now passed the full check (a cache: losing it costs one check)."""
    try:
        (state_dir / "config.valid").write_text(_fingerprint(main_checkout), encoding="utf-8")
    except OSError:
        pass
