"""The configuration's one source of defaults, its choices, and its one reader (stdlib only).

Two faces read `.hallmark.toml`: the hook path (every tool call: no pydantic) and the rest, which
validate it with the pydantic model in config.py. Both read the file through `read()` here, and
the model takes every default and every choice from the tables below, so the two cannot disagree
(tests/core/test_config.py compares them field by field). Config is always read from the main
checkout, so an item can't loosen its own gates.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAME = ".hallmark.toml"

# the choices of the keys that have a fixed set (config.py's Literal types say the same; a test checks)
CHOICES: dict[str, tuple[str, ...]] = {
    "capture.mode": ("gate", "ask", "off"),
    "capture.push_guard": ("strict", "parse"),
    "merge.mode": ("off", "auto"),
    "merge.update": ("files", "conflicts"),
    "intake.split": ("auto", "off"),
    "library.search": ("builtin", "qmd"),
    "runner.sandbox": ("auto", "require", "off"),
    "notify.terminal": ("bell", "osc9", "osc777", "off"),
}

DEFAULTS: dict[str, Any] = {
    "base": "main",
    "worktree": "git worktree add ../{repo}-{id} -b {branch}",
    "branch": "hm/{id}-{slug}",
    "ship": "git push -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}",
    "update": "git push -q --force-with-lease={branch}:{pr_head} origin {branch} && gh pr edit {pr} --body-file {body_file}",
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
    "worktree_opts": {"copy": [], "setup": ""},
    "merge": {
        "mode": "off",
        "command": "gh pr merge {pr} --squash --match-head-commit {pr_head}",
        "require_ci": True,
        "lit": [],
        "update": "files",
    },
    "delivery": {"watch": True, "interval": "2m"},
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
    "runner": {"claude": "", "timeout": "30m", "sandbox": "auto", "allowed_domains": []},
    "extensions": {},
    "tui": {"keymap": {}, "theme": ""},
    # [notify] lives in <user data dir>/config.toml; the repo's [notify] may only narrow it
    "notify": {
        "enabled": True,
        "channels": [],
        "terminal": "bell",
        "quiet_hours": "",
        "remind": "",
        "remind_count": 2,
        "timeout": "5s",
        "ntfy": {"server": "https://ntfy.sh", "topic": "", "token": ""},
        "telegram": {"api": "https://api.telegram.org", "token": "", "chat_id": ""},
        "slack": {"webhook": ""},
        "route": {},
    },
}


def config_path(main_checkout: Path) -> Path:
    return Path(main_checkout) / CONFIG_NAME


def merge_defaults(data: dict[str, Any], defaults: dict[str, Any] = DEFAULTS) -> dict[str, Any]:
    import copy  # (here: `copy` pulls in weakref, and the hook path reads DEFAULTS without merging)

    merged = copy.deepcopy(defaults)
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_defaults(value, merged[key])
        else:
            merged[key] = value
    return merged


def read(main_checkout: Path) -> dict[str, Any]:
    """The file's own tables, parsed (absent means {}); an unreadable or malformed file raises
    INVALID_CONFIG naming the file and the line, and `hall doctor`."""
    from .bounded_read import CONFIG_LIMIT, Refused, read_bytes
    from .errors import HallError

    path = config_path(main_checkout)
    try:
        text = read_bytes(path, CONFIG_LIMIT).decode("utf-8")  # never a FIFO or /dev/zero (a tracked file)
    except FileNotFoundError:
        return {}
    except Refused as exc:
        raise HallError("INVALID_CONFIG", f"{path} {exc.reason}.", [f"restore {CONFIG_NAME}", "hall doctor"]) from exc
    except OSError as exc:
        raise HallError("INVALID_CONFIG", f"{path}: cannot read ({exc}).", ["hall doctor"]) from exc
    except UnicodeDecodeError as exc:
        raise HallError(
            "INVALID_CONFIG",
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); TOML files are UTF-8.",
            [f"re-save {CONFIG_NAME} as UTF-8", "hall doctor"],
        ) from exc
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else max(1, len(text.splitlines()))
        raise HallError(
            "INVALID_CONFIG", f"{path}:{line}: not valid TOML: {exc}.", [f"edit {CONFIG_NAME}", "hall doctor"]
        ) from exc


def load_raw(main_checkout: Path) -> dict[str, Any]:
    """The configuration with every default filled in, unvalidated (the hook path's view; the rest
    validate through config.load). Raises INVALID_CONFIG as read() does."""
    return merge_defaults(read(main_checkout))


def split_worktree(data: dict[str, Any]) -> dict[str, Any]:
    """TOML's `[worktree]` table and the `worktree` template share a name: the table's `command` is
    the template, the rest (`copy`) goes to `worktree_opts` (config.Config reads it so too)."""
    data = dict(data)
    if isinstance(data.get("worktree"), dict):
        table = dict(data.pop("worktree"))
        template = table.pop("command", None)
        if template is not None:
            data["worktree"] = template
        data["worktree_opts"] = table
    return data


class NewSettings:
    """What `hall new` reads of a configuration (the names config.Config gives them)."""

    __slots__ = ("base", "branch", "worktree", "worktree_copy")

    def __init__(self, base: str, branch: str, worktree: str, worktree_copy: list[str]) -> None:
        self.base = base
        self.branch = branch
        self.worktree = worktree
        self.worktree_copy = worktree_copy


def known_valid_new_settings(main_checkout: Path, state_dir: Path) -> NewSettings | None:
    """`hall new`'s settings without the pydantic model (80 ms of the verb) when this exact file
    passed its full check before (known_valid); None otherwise: then validate through config.load.
    A valid file's strings and lists are what the model holds, defaults filled in the same way."""
    if not known_valid(main_checkout, state_dir):
        return None
    data = merge_defaults(split_worktree(read(main_checkout)))
    copy = data.get("worktree_opts", {}).get("copy")
    base, branch, worktree = data.get("base"), data.get("branch"), data.get("worktree")
    if not (isinstance(base, str) and isinstance(branch, str) and isinstance(worktree, str) and isinstance(copy, list)):
        return None
    return NewSettings(base, branch, worktree, [str(c) for c in copy])


def _fingerprint(main_checkout: Path) -> str:
    import hashlib

    from .bounded_read import CONFIG_LIMIT, read_bytes

    try:
        return hashlib.sha256(read_bytes(config_path(main_checkout), CONFIG_LIMIT)).hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable: {exc}"


def known_valid(main_checkout: Path, state_dir: Path) -> bool:
    """True when this exact .hallmark.toml passed the full (pydantic) check before: read-only
    commands then skip it and stay on the stdlib path. Any edit changes the fingerprint."""
    try:
        from .bounded_read import STATE_LIMIT, read_text

        return read_text(state_dir / "config.valid", STATE_LIMIT) == _fingerprint(main_checkout)
    except OSError:
        return False


def mark_valid(main_checkout: Path, state_dir: Path) -> None:
    """Remember that the config as it is now passed the full check (a cache: losing it costs one check)."""
    with contextlib.suppress(OSError):
        (state_dir / "config.valid").write_text(_fingerprint(main_checkout), encoding="utf-8")
