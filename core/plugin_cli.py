"""The documented install route: `claude plugin marketplace add`, `plugin install`, `plugin update`.

Confirmed with the real CLI 2.1.332 in a temporary CLAUDE_CONFIG_DIR: `marketplace add <dir>` on the
staged release's `current` link registers `hallmark-local` (in the user's settings), `plugin install
hallmark@hallmark-local --scope user` installs it, `plugin list --json` then lists it with its
`version` and the folder it is read from, and after a new release `plugin update` moves it to the
new version (without it, `version` stays the old one while `folderVersion` is the new one). All of
them work offline. Stdlib only.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .errors import HallError

TIMEOUT_S = 120.0


def run_claude(claude: list[str], *args: str) -> dict[str, Any]:
    """One `claude plugin …` command: its argv, exit code and output (never raises on a failure)."""
    argv = [*claude, *args]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        code, out = proc.returncode, (proc.stdout + proc.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        code, out = None, str(exc)
    return {"argv": argv, "exit_code": code, "output": out[-2000:]}


def _json(step: dict[str, Any]) -> Any:
    if step["exit_code"] != 0:
        return None
    text = step["output"]
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    try:
        return json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        return None


def listed(claude: list[str], plugin_id: str) -> dict[str, Any] | None:
    """What `claude plugin list --json` says of the plugin, or None when it does not list it."""
    for entry in _json(run_claude(claude, "plugin", "list", "--json")) or []:
        if isinstance(entry, dict) and entry.get("id") == plugin_id:
            return entry
    return None


def marketplace(claude: list[str], name: str) -> dict[str, Any] | None:
    for entry in _json(run_claude(claude, "plugin", "marketplace", "list", "--json")) or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def plan(claude: list[str], market_dir: Path, market_name: str, plugin_id: str) -> list[list[str]]:
    """The `claude plugin …` commands that bring Claude Code to the release at market_dir."""
    steps: list[list[str]] = []
    known = marketplace(claude, market_name)
    if known is None or Path(str(known.get("path") or "")) != market_dir:
        if known is not None:
            steps.append(["plugin", "marketplace", "remove", market_name])
        steps.append(["plugin", "marketplace", "add", str(market_dir)])
    if listed(claude, plugin_id) is None or (steps and steps[0][2] == "remove"):
        steps.append(["plugin", "install", plugin_id, "--scope", "user"])
    else:
        steps.append(["plugin", "update", plugin_id, "--scope", "user"])
    return steps


def apply(claude: list[str], steps: list[list[str]], plugin_id: str, version: str) -> list[dict[str, Any]]:
    """Run the steps, then confirm with `plugin list` that Claude Code has this version."""
    done = []
    for args in steps:
        step = run_claude(claude, *args)
        done.append(step)
        if step["exit_code"] != 0:
            raise HallError(
                "COMMAND_FAILED",
                f"`claude {' '.join(args)}` failed (exit {step['exit_code']}): {step['output'][-500:]}",
                ["hall doctor", "hall setup claude"],
            )
    entry = listed(claude, plugin_id)
    if entry is None or entry.get("version") != version:
        found = entry.get("version") if entry else "nothing"
        raise HallError(
            "COMMAND_FAILED",
            f"after installing, `claude plugin list` shows {found} for {plugin_id}, not {version}",
            ["hall doctor", "hall setup claude"],
        )
    return done
