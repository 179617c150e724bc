"""`hall doctor`'s Claude Code checks, confirmed through Claude Code itself.

- `claude code`: the CLI is installed and at least the minimum version (core/claude_code.py).
- `plugin`: `claude plugin list --json` lists hallmark@hallmark-local, enabled, at the version of the
  release `hall setup claude` staged last (an older one means Claude Code still runs the old copy).
- `hook command`: the hall-hook named in the hooks.json Claude Code reads exists and runs (a moved
  or recreated venv breaks it; the gates then block every tool call, the rest fail open).
- `session` and `sandbox`: one real `claude -p` session against a scripted model on loopback (no
  network, no cost), in an empty folder: its init line must list the hallmark plugin, and with
  `sandbox.failIfUnavailable` Claude Code says whether its sandbox can start here.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from . import claude_code
from .doctor_check import check as _check
from .plugin_install import PLUGIN, PLUGIN_ID, _current_release, hooks_problems, install_root
from .setup_results import Check

PROBE_TIMEOUT_S = 60.0


def checks(sandbox_mode: str = "auto", *, probe: bool = True) -> list[Check]:
    """Every Claude Code check, in order; the later ones only when the CLI is there."""
    import shutil

    found = shutil.which("claude")
    if not found:
        return [
            _check(
                "claude code",
                False,
                "`claude` is not on PATH: sessions have no gates and the loop cannot review",
                f"npm install -g @anthropic-ai/claude-code@{claude_code.PINNED}, then hall setup claude",
                optional=True,
            )
        ]
    text = claude_code.version_text([found]) or ""
    version = claude_code.parse_version(text)
    if version is None:
        return [
            _check(
                "claude code",
                True,
                f"{found} is not Claude Code ({text or 'no --version'}); Claude Code checks skipped",
                optional=True,
            )
        ]
    shown = ".".join(map(str, version))
    ok = version >= claude_code.MINIMUM
    out = [
        _check(
            "claude code",
            ok,
            f"{found} {shown}"
            + (
                ""
                if ok
                else f", older than {claude_code.minimum_text()}: "
                "gate hooks that cannot start would let tool calls through (no onFailure)"
            ),
            f"claude update (or npm install -g @anthropic-ai/claude-code@{claude_code.PINNED})",
        )
    ]
    out += plugin_checks([found])
    if probe:
        out += probe_checks([found], sandbox_mode)
    return out


def plugin_checks(claude: list[str]) -> list[Check]:
    from .plugin_cli import listed

    entry = listed(claude, PLUGIN_ID)
    current = _current_release(install_root())
    staged = _staged_version(current)
    if entry is None:
        how = (
            "it is registered in settings.json only (Claude Code loads it, but cannot list it)"
            if current
            else "it is not installed"
        )
        return [_check("plugin", False, f"`claude plugin list` does not list {PLUGIN_ID}: {how}", "hall setup claude")]
    problems = []
    if not entry.get("enabled", False):
        problems.append("it is disabled")
    if staged and entry.get("version") != staged:
        problems.append(f"Claude Code has {entry.get('version')}, hall setup claude staged {staged}")
    plugin_check = _check(
        "plugin",
        not problems,
        "; ".join(problems) or f"{PLUGIN_ID} {entry.get('version')} listed and enabled by Claude Code",
        f"hall setup claude (or claude plugin enable {PLUGIN_ID})",
    )
    folder = Path(str(entry.get("readFromFolder") or entry.get("installPath") or ""))
    hooks_file = folder / "hooks" / "hooks.json"
    try:
        hook_problems = hooks_problems(json.loads(hooks_file.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        hook_problems = [f"{hooks_file} cannot be read: {exc}"]
    hook_check = _check(
        "hook command",
        not hook_problems,
        "; ".join(hook_problems[:3]) or f"the hooks Claude Code runs ({hooks_file}) start hall-hook",
        "hall setup claude (from the venv hall now runs in: the hooks name its hall-hook)",
    )
    return [plugin_check, hook_check]


def _staged_version(current: Path | None) -> str | None:
    if current is None:
        return None
    try:
        return json.loads((current / "plugin" / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))[
            "version"
        ]
    except (OSError, ValueError, KeyError):
        return None


def probe_checks(claude: list[str], sandbox_mode: str = "auto") -> list[Check]:
    """One real session against the scripted model: does it load the plugin, can the sandbox start?"""
    from .modelserver import ModelServer, Script

    with tempfile.TemporaryDirectory(prefix="hall-doctor-") as folder:
        settings = Path(folder) / "probe-settings.json"
        settings.write_text(json.dumps({"sandbox": {"enabled": True, "failIfUnavailable": True}}), encoding="utf-8")
        work = Path(folder) / "work"
        work.mkdir()
        with ModelServer(Script(default_text="ok")) as server:
            env = dict(os.environ, **server.env())
            for name in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_OAUTH_TOKEN"):
                env.pop(name, None)
            results: list[tuple[int | None, str, str]] = []
            for extra in ([], ["--settings", str(settings)]):
                try:
                    proc = subprocess.run(
                        [
                            *claude,
                            "-p",
                            "ok",
                            "--output-format",
                            "stream-json",
                            "--verbose",
                            "--no-session-persistence",
                            *extra,
                        ],
                        cwd=work,
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=PROBE_TIMEOUT_S,
                        stdin=subprocess.DEVNULL,
                    )
                    results.append((proc.returncode, proc.stdout, proc.stderr))
                except (OSError, subprocess.TimeoutExpired) as exc:
                    results.append((None, "", str(exc)))
    plain, boxed = results
    init = _init_line(plain[1])
    plugins = [str(p.get("name")) for p in (init or {}).get("plugins") or [] if isinstance(p, dict)]
    if init is None:
        session = _check(
            "session",
            False,
            f"a probe `claude -p` session did not start: {plain[2].strip()[-300:]}",
            "hall doctor again; run claude -p yourself to see its error",
        )
    else:
        session = _check(
            "session",
            PLUGIN in plugins,
            f"a real session lists the plugins {', '.join(plugins) or 'none'}",
            "hall setup claude, then restart Claude Code",
        )
    boxed_init = _init_line(boxed[1])
    if boxed_init is not None:
        sandbox = _check("sandbox", True, "Claude Code's sandbox starts here (headless runs' commands are confined)")
    else:
        reason = " ".join(boxed[2].split())[:300] or "the probe session did not start"
        unsandboxed = ' — [runner] sandbox = "auto": headless runs go unsandboxed with a warning'
        sandbox = _check(
            "sandbox",
            False,
            f"Claude Code's sandbox cannot run here: {reason}"
            + (unsandboxed if sandbox_mode == "auto" else "")
            + ". Without it an agent holds your keys and can write Hallmark's record: the hook gate and"
            " git's pre-push hook are then a courtesy, not a wall",
            'install bubblewrap and socat (Linux), or set [runner] sandbox = "off" to run headless '
            "commands under permission rules only",
            optional=sandbox_mode != "require",
        )
    return [session, sandbox]


def _init_line(stdout: str) -> dict[str, Any] | None:
    for line in stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "system" and record.get("subtype") == "init":
            return record
    return None


__all__ = ["checks", "plugin_checks", "probe_checks"]
