"""`hall new --open [--yolo]`: start Claude Code in an item's worktree, with the hallmark skill.

`--yolo` becomes `--dangerously-skip-permissions` here, at the process boundary, and nowhere else:
it is never written to config, and Hallmark's gates and approvals (hooks, `hall ready`) stay in force.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from . import items
from .agent_channel import ENV as CHANNEL_ENV
from .errors import HallError
from .item_results import SessionOpened, SessionPlan
from .launch_env import launch_env
from .takeover import claude_command

YOLO_FLAG = "--dangerously-skip-permissions"


def plugin_dir() -> Path:
    """The hallmark plugin shipped in the package (it carries the hallmark skill and hooks)."""
    import hallmark.plugin

    candidates = [Path(p) for p in hallmark.plugin.__path__ if Path(p).is_dir()]
    for path in candidates:
        if (path / ".claude-plugin" / "plugin.json").is_file():
            return path
    return candidates[0]


def _plugin_installed() -> bool:
    from .plugin_install import installed_status

    try:
        return bool(installed_status().get("ok"))
    except Exception:  # noqa: BLE001 - an unreadable settings file: load the plugin explicitly instead
        return False


def open_command(
    repo: Any, item_id: str, *, yolo: bool = False, prompt: str | None = None, channel: Path | None = None
) -> SessionPlan:
    """The command, directory and environment that start Claude Code on the item (nothing runs).
    `channel` is the agent-verb spool the session's sandboxed `hall` records through."""
    view = items.fold_item(repo, item_id)
    if not view.worktree or not Path(view.worktree).is_dir():
        raise HallError(
            "WRONG_STATE", f"{item_id} has no worktree at {view.worktree or '(none)'}.", [f"hall status {item_id}"]
        )
    command = claude_command()
    if not _plugin_installed():
        command += ["--plugin-dir", str(plugin_dir())]
    if yolo:
        command.append(YOLO_FLAG)
    from .sandbox_profile import session_args  # the sandbox wall, where it can run here

    sandbox_args, sandbox = session_args(repo.paths, worktree=Path(view.worktree), channel=channel)
    command += sandbox_args
    if prompt:
        command.append(prompt)
    env = launch_env(repo, item_id)
    if channel is not None and sandbox.get("enabled"):
        env[CHANNEL_ENV] = str(channel)
    return SessionPlan(item=item_id, command=command, cwd=view.worktree, env=env, yolo=yolo, sandbox=sandbox)


def open_session(repo: Any, item_id: str, *, yolo: bool = False, prompt: str | None = None) -> SessionOpened:
    """Start Claude Code in the foreground in the item's worktree, serving its agent verbs (the
    channel) for as long as it runs; returns when it exits."""
    from .agent_channel_server import serving

    env = dict(os.environ)
    with serving(repo.paths, env) as server:
        plan = open_command(repo, item_id, yolo=yolo, prompt=prompt, channel=server.spool)
        env.update(plan.env)
        server.env = dict(env)
        code = _call(plan.command, plan.cwd, env)
    return SessionOpened(**plan.field_values(), exit_code=code)


def _call(command: list[str], cwd: str, env: dict[str, str]) -> int:
    try:
        return subprocess.call(command, cwd=cwd, env=env)
    except FileNotFoundError as exc:
        raise HallError(
            "COMMAND_FAILED",
            f"{command[0]} is not installed or not on PATH.",
            ["install Claude Code", "set HALL_CLAUDE to its path"],
        ) from exc
