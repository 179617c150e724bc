"""The sandbox wall in the user's settings and for the sessions Hallmark opens.

The hook gate reads commands and git's pre-push hook reads pushes; neither stops an agent that holds
the person's keys and finds a way neither sees. Claude Code's sandbox is enforced by the operating
system (bubblewrap on Linux, Seatbelt on macOS) for every Bash command and its children. What the
wall allows is decided in one place, core/sandbox_wall.py, for every agent process; this module
writes it where Claude Code reads it: `hall setup claude --sandbox` into the user's settings for
every registered repo (plain `claude` sessions; `--dry-run` shows it), and `session_file` into a
`--settings` file for `hall new --open` and `hall takeover --run`, confined to the item's worktree.

`hall` runs inside the sandbox like any command (no `excludedCommands`): the agent verbs that write
Hallmark's state go through the agent-verb channel (core/agent_channel.py), served by the process
that opened the session, or by the daemon for plain sessions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import atomic
from .errors import HallError
from .paths import RepoPaths, discover, user_data_dir
from .sandbox_wall import CREDENTIAL_ENV, CREDENTIAL_PATHS, Scope, block, file_rules, git_rules, own_paths, prepare
from .setup_results import SandboxProfile

__all__ = ["CREDENTIAL_ENV", "CREDENTIAL_PATHS", "prepare", "profile", "session_args", "session_file"]
STATE_FILE = "sandbox-profile.json"  # in the user data dir: what Hallmark wrote into the user settings


def repo_rules(paths: RepoPaths) -> dict[str, list[str]]:
    """allowWrite and denyWrite for plain sessions in one repository's checkouts (any worktree)."""
    from .sandbox_wall import checkout_rules

    allow, deny = git_rules(paths, None)
    return {"allowWrite": allow, "denyWrite": deny + checkout_rules(paths, None)}


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def profile(repos: list[RepoPaths], *, fail_if_unavailable: bool = True) -> dict[str, Any]:
    """The `sandbox` settings block for plain sessions in these repositories (no item known yet:
    each session writes its own directory, the commits' git entries, and the channel)."""
    from .agent_channel_server import DAEMON_SPOOL, channel_root_path

    allow: list[str] = []
    deny: list[str] = []
    for paths in repos:
        rules = repo_rules(paths)
        allow += rules["allowWrite"]
        deny += rules["denyWrite"]
    deny += own_paths()
    first = repos[0] if repos else None
    box = block(Scope(paths=first, cwd=Path(first.main_checkout), editing=True)) if first else block_without_repo()
    box["filesystem"]["allowWrite"] = _unique([*allow, _rule(channel_root_path() / DAEMON_SPOOL)])
    box["filesystem"]["denyWrite"] = _unique(deny)
    box["failIfUnavailable"] = bool(fail_if_unavailable)
    return box


def _rule(path: Path) -> str:
    from .sandbox_wall import rule_path

    return rule_path(path)


def block_without_repo() -> dict[str, Any]:
    """The block when no repository is registered yet: credentials, keys and Hallmark's own files."""
    from .sandbox_wall import deny_read

    return {
        "enabled": True,
        "autoAllowBashIfSandboxed": True,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": [], "allowUnixSockets": [], "allowLocalBinding": False},
        "filesystem": {"allowWrite": [], "denyWrite": own_paths(), "denyRead": deny_read()},
        "credentials": {"envVars": [{"name": name, "mode": "deny"} for name in CREDENTIAL_ENV]},
    }


# -- can it run here? ------------------------------------------------------------------------------


def availability() -> dict[str, Any]:
    """Whether Claude Code's sandbox can run on this machine, and what is missing when it cannot."""
    if sys.platform == "darwin":
        found = shutil.which("sandbox-exec")
        return {
            "ok": bool(found),
            "platform": "macos",
            "missing": [] if found else ["sandbox-exec"],
            "detail": "Seatbelt (sandbox-exec) is available" if found else "sandbox-exec is missing",
        }
    if not sys.platform.startswith("linux"):
        return {
            "ok": False,
            "platform": sys.platform,
            "missing": [],
            "detail": "Claude Code's sandbox runs on macOS, Linux and WSL2 only",
        }
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        names = {"bwrap": "bubblewrap", "socat": "socat"}
        return {
            "ok": False,
            "platform": "linux",
            "missing": [names[m] for m in missing],
            "detail": f"{' and '.join(names[m] for m in missing)} not installed",
            "fix": f"apt-get install {' '.join(names[m] for m in missing)} (or your distribution's packages)",
        }
    try:
        proc = subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-user", "--unshare-net", "--", "true"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return {"ok": False, "platform": "linux", "missing": [], "detail": f"bubblewrap cannot start: {exc}"}
    if proc.returncode != 0:
        return {
            "ok": False,
            "platform": "linux",
            "missing": [],
            "detail": "bubblewrap cannot make a sandbox here (no unprivileged user namespaces?): "
            + (proc.stderr.strip()[-200:] or f"exit {proc.returncode}"),
        }
    return {
        "ok": True,
        "platform": "linux",
        "missing": [],
        "detail": "bubblewrap and socat are installed and bubblewrap can make a sandbox here",
    }


# -- writing it ------------------------------------------------------------------------------------


def _repos(start: Path | None) -> list[RepoPaths]:
    from .setup_repo import registered_repos

    found: list[RepoPaths] = []
    roots = ([start] if start else []) + list(registered_repos())
    for root in roots:
        paths = discover(root, required=False) if Path(root).is_dir() else None
        if paths is not None and paths.initialized and paths not in found:
            found.append(paths)
    return found


def _dict_at(block: dict[str, Any], key: str) -> dict[str, Any]:
    value = block.get(key)
    return value if isinstance(value, dict) else {}


def _merge(current: dict[str, Any], ours: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """The person's sandbox block with Hallmark's entries replaced (theirs kept): lists are unions."""
    merged = dict(current)
    for key, value in ours.items():
        if isinstance(value, dict):
            merged[key] = _merge(_dict_at(current, key), value, _dict_at(previous, key))
        elif isinstance(value, list):
            before = got if isinstance(got := previous.get(key), list) else []
            kept = [v for v in (current.get(key) or []) if v not in before and v not in value]
            merged[key] = kept + value
        else:
            merged[key] = value
    for key, was in previous.items():  # what an older Hallmark wrote and this one no longer does
        if key in ours or key not in merged:
            continue
        if isinstance(was, list) and isinstance(merged[key], list):
            kept = [v for v in merged[key] if v not in was]  # `excludedCommands: ["hall"]`: no longer
            if kept:
                merged[key] = kept
            else:
                del merged[key]
        elif merged[key] == was:
            del merged[key]
    return merged


def install(start: Path | None = None, *, dry_run: bool = False) -> SandboxProfile:
    """`hall setup claude --sandbox`: the profile in the user's Claude Code settings, for every
    registered Hallmark repo (and the one here)."""
    from .plugin_install import settings_path

    repos = _repos(start)
    available = availability()
    block = profile(repos, fail_if_unavailable=bool(available["ok"]))
    path = settings_path()
    try:
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError) as exc:
        raise HallError(
            "COMMAND_FAILED",
            f"{path} is not valid JSON ({exc}); the sandbox profile was not written.",
            [f"fix {path}", "hall setup claude --sandbox --dry-run"],
        ) from exc
    if not isinstance(current, dict):
        raise HallError("COMMAND_FAILED", f"{path} does not hold a JSON object.", [f"fix {path}"])
    state = user_data_dir() / STATE_FILE
    previous = (atomic.read_json(state, {}) or {}).get("sandbox") or {}
    merged = dict(current)
    merged["sandbox"] = _merge(_dict_at(current, "sandbox"), block, previous)
    changed = merged != current
    if not dry_run:
        for paths in repos:
            prepare(paths)
    if changed and not dry_run:
        atomic.write_text(path, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
        atomic.write_json(state, {"sandbox": block, "settings": str(path)})
    warning = None
    if not available["ok"]:
        warning = (
            f"the sandbox cannot run here ({available['detail']}): Claude Code would run commands "
            "unsandboxed; failIfUnavailable is left off so sessions still work"
        )
    return SandboxProfile(
        settings=str(path),
        sandbox=block,
        repos=[str(p.main_checkout) for p in repos],
        changed=changed,
        dry_run=dry_run,
        available=available,
        warning=warning,
    )


def session_file(
    paths: RepoPaths,
    *,
    worktree: Path | None = None,
    cwd: Path | None = None,
    channel: Path | None = None,
    name: str = "claude-settings.json",
) -> Path:
    """The wall for one session, for `claude --settings` (in the state dir, which no agent can
    write): writes only in `worktree`, the channel's spool through which its `hall` records."""
    domains, require = _runner_wall(paths)
    scope = Scope(
        paths=paths,
        cwd=Path(cwd or worktree or paths.main_checkout),
        worktree=worktree,
        editing=True,
        channel=channel,
        allowed_domains=domains,
        fail_if_unavailable=require,
    )
    path = paths.state_dir / "sandbox" / name
    prepare(paths)
    rules = file_rules(scope)
    settings = {
        "sandbox": block(scope),
        # the file tools as the commands: no credential store or key read, no edit outside the worktree
        # unless the person says so at the prompt (Read and Edit elsewhere ask, as Claude Code does)
        "permissions": {"deny": rules["deny"] if worktree is not None else [r for r in rules["deny"] if "(" in r]},
        "env": {name: "" for name in CREDENTIAL_ENV},
    }
    atomic.write_json(path, settings)
    return path


def _runner_wall(paths: RepoPaths) -> tuple[list[str], bool]:
    """(`[runner] allowed_domains`, whether `[runner] sandbox = "require"`)."""
    from .config import load

    try:
        runner = load(paths.main_checkout).runner
    except Exception:  # noqa: BLE001 - an unreadable config: no hosts, and the sandbox where it runs
        return [], False
    return list(runner.allowed_domains), runner.sandbox == "require"


def _required(paths: RepoPaths) -> bool:
    """`require`: a session where the sandbox cannot start gets the wall anyway, with
    failIfUnavailable, so Claude Code refuses to run its commands rather than run them bare."""
    return _runner_wall(paths)[1]


def session_args(
    paths: RepoPaths, *, worktree: Path | None = None, cwd: Path | None = None, channel: Path | None = None
) -> tuple[list[str], dict[str, Any]]:
    """(`--settings <file>` for a session Hallmark opens, what was decided): empty where it cannot run."""
    available = availability()
    if not available["ok"] and not _required(paths):  # `auto`: Claude Code would only warn; nothing to pass
        return [], {"enabled": False, "detail": available["detail"]}
    name = f"claude-settings-{Path(worktree).name}.json" if worktree else "claude-settings.json"
    path = session_file(paths, worktree=worktree, cwd=cwd, channel=channel, name=name)
    if not available["ok"]:
        return ["--settings", str(path)], {"enabled": False, "settings": str(path), "detail": available["detail"]}
    return ["--settings", str(path)], {"enabled": True, "settings": str(path)}


def status() -> dict[str, Any]:
    """For `hall doctor`: can the sandbox run here, and is Hallmark's profile in the user's settings?"""
    from .plugin_install import settings_path

    available = availability()
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    sandbox = data.get("sandbox") if isinstance(data, dict) else None
    fs = sandbox.get("filesystem") if isinstance(sandbox, dict) else None
    installed = (
        isinstance(sandbox, dict)
        and sandbox.get("enabled") is True
        and isinstance(fs, dict)
        and _rule(user_data_dir()) in (fs.get("denyWrite") or [])
    )
    return {"available": available, "installed": installed}
