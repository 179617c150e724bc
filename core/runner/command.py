"""What a role's headless run is launched with: the role's agent, actor, budget and model, and
the `claude -p` command line and process environment built from them and the repository's config.
Split from spawn.py, which runs that command and streams it into the run file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hallmark.core import clock
from hallmark.core.errors import HallError
from hallmark.core.sandbox_wall import confine_tools

from .isolation import REMOVE_ENV, isolation_args

# the plugin's agents (plugin/agents/); a dev run (and intake) is a plain Claude Code session
ROLE_AGENT = {"review": "principal-engineer", "fix": "fixer", "librarian": "librarian"}
ROLE_ACTOR = {
    "review": "assayer",
    "fix": "fixer",
    "intake": "intake",
    "librarian": "librarian",
    "dev": "dev",
    "ship": "shipper",
}
DEFAULT_MAX_USD = {"review": 6.0, "fix": 2.0, "intake": 0.10, "librarian": 0.20, "dev": 2.0}
ROLE_MODEL_KEY = {
    "review": "review_model",
    "fix": "fix_model",
    "intake": "intake_model",
    "librarian": "librarian_model",
}
STANDIN_COMMANDS = ("hall-standin-claude", "hallmark.core.runner.standin")


def is_standin(command: list[str]) -> bool:
    """True when the command runs Hallmark's stand-in model rather than Claude."""
    return any(Path(word).name in STANDIN_COMMANDS for word in command[:4])


@dataclass
class RunSpec:
    """What to run: the role decides the agent, the actor, the budget and the isolation."""

    role: str
    prompt: str
    cwd: Path
    item_id: str | None = None
    json_schema: dict[str, Any] | None = None
    max_budget_usd: float | None = None  # None: the role's configured cap
    model: str | None = None  # None: the role's configured model
    timeout_s: float | None = None  # None: [runner] timeout
    allowed_tools: list[str] = field(default_factory=list)
    permission_mode: str | None = None
    write_dirs: list[Path] = field(default_factory=list)
    add_dirs: list[Path] = field(default_factory=list)  # `--add-dir`: more folders the file tools work in
    extra_env: dict[str, str] = field(default_factory=dict)
    validate: Callable[[Any], str | None] | None = None  # checks structured_output; returns a failure
    resume: str | None = None  # a session id: `claude -p --resume <id> <prompt>` continues that session
    session_id: str | None = None  # a fresh run's own id (`--session-id`); None: one is made up
    judge_effect: Callable[[], str | None] | None = None  # after a clean run: what it failed to do, or None


def plugin_dir() -> Path:
    """The plugin shipped in the package (agents, skills, schemas)."""
    from hallmark.core import __file__ as core_init

    return Path(core_init).resolve().parent.parent / "plugin"


def claude_command(repo: Any) -> list[str]:
    """HALL_CLAUDE, else `[runner] claude`, else `claude` on PATH."""
    for source, value in (
        ("HALL_CLAUDE", os.environ.get("HALL_CLAUDE", "")),
        ("[runner] claude", _config_claude(repo)),
    ):
        if value and value.strip():
            words = shlex.split(value)
            if shutil.which(words[0]) is None and not Path(words[0]).is_file():
                raise HallError(
                    "RUN_FAILED",
                    f"{source} names {words[0]!r}, which is not an executable.",
                    ["hall doctor", "edit [runner] claude in .hallmark.toml"],
                )
            return words
    found = shutil.which("claude")
    if found is None:
        raise HallError(
            "RUN_FAILED",
            "The Claude Code CLI `claude` is not on PATH.",
            ["install Claude Code", "set [runner] claude in .hallmark.toml", "hall doctor"],
        )
    return [found]


def _config_claude(repo: Any) -> str:
    try:
        return repo.config.runner.claude
    except AttributeError:
        return ""


def role_max_usd(repo: Any, role: str) -> float | None:
    """`[budget.<role>] max_usd` ("none" turns the cap off), else the role's default."""
    try:
        room = repo.config.budget.room(role)
        value = room.max_usd
    except AttributeError:
        value = None
    if value is None:
        return DEFAULT_MAX_USD.get(role)
    if isinstance(value, str) and value.strip().lower() in ("none", "off", ""):
        return None
    return float(value)


def role_model(repo: Any, role: str) -> str | None:
    key = ROLE_MODEL_KEY.get(role)
    try:
        return getattr(repo.config.budget, key) if key else None
    except AttributeError:
        return None


def default_timeout(repo: Any) -> float:
    try:
        return clock.parse_duration(repo.config.runner.timeout)
    except (AttributeError, ValueError):
        return 1800.0


def launch_environment(repo: Any, item_id: str | None, actor: str) -> dict[str, str]:
    """The process environment: ours, plus launch_env (HALL_ITEM, project name), plus HALL_ACTOR."""
    env = dict(os.environ)
    for name in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"):
        env.pop(name, None)  # a run started from inside a session is still a fresh headless run
    from hallmark.core.launch_env import launch_env

    env.update(launch_env(repo, item_id))
    for name in REMOVE_ENV:
        env.pop(name, None)
    env["HALL_ACTOR"] = actor
    if item_id:
        env["HALL_ITEM"] = item_id
    return env


def build_command(repo: Any, spec: RunSpec, settings_path: Path, *, prompt_in_argv: bool) -> list[str]:
    """`claude -p … --output-format stream-json --verbose` with every flag the role needs."""
    args = [*claude_command(repo), "-p"]
    if spec.resume:  # the session keeps its own agent and model
        args += ["--resume", spec.resume]
    if prompt_in_argv:  # first, so no variadic flag (--allowedTools) can swallow it
        args.append(spec.prompt)
    if spec.session_id and not spec.resume:  # known before it starts: `hall ask` inside names it (HALL_SESSION_ID)
        args += ["--session-id", spec.session_id]
    args += ["--output-format", "stream-json", "--verbose"]
    agent = None if spec.resume else ROLE_AGENT.get(spec.role)
    if agent:
        args += ["--agent", f"hallmark:{agent}"]
    args += ["--plugin-dir", str(_run_plugin_dir(repo))]
    for folder in spec.add_dirs:  # after the prompt: the variadic --add-dir cannot swallow it
        args += ["--add-dir", str(folder)]
    if spec.json_schema is not None:  # Claude Code accepts draft-07 only
        from hallmark.core.draft7 import to_draft7

        args += ["--json-schema", json.dumps(to_draft7(spec.json_schema), separators=(",", ":"))]
    cap = spec.max_budget_usd if spec.max_budget_usd is not None else role_max_usd(repo, spec.role)
    if cap is not None:
        args += ["--max-budget-usd", f"{cap:g}"]
    model = spec.model or role_model(repo, spec.role)
    if model:
        args += ["--model", model]
    args += isolation_args(spec.role)
    args += ["--settings", str(settings_path)]
    if spec.permission_mode:
        args += ["--permission-mode", spec.permission_mode]
    tools = confine_tools(spec.allowed_tools)  # the file tools get the wall's scoped rules only
    if tools:
        args += ["--allowedTools", ",".join(tools)]
    with contextlib.suppress(AttributeError):
        args += list(repo.config.claude_args)
    return args


def _run_plugin_dir(repo: Any) -> Path:
    """The rendered plugin copy (absolute hall-hook) under the state dir; the package's own when
    there is no state dir (a bare Repo in tests)."""
    from .plugin_copy import headless_plugin

    state_dir = getattr(repo, "state_dir", None)
    return headless_plugin(Path(state_dir)) if state_dir else plugin_dir()


def sandbox_mode(repo: Any) -> str:
    """`[runner] sandbox`, else "auto"."""
    try:
        return str(repo.config.runner.sandbox)
    except AttributeError:
        return "auto"


def allowed_domains(repo: Any) -> list[str]:
    """`[runner] allowed_domains`: the hosts a run's sandboxed commands may reach (none by default)."""
    try:
        return [str(d) for d in repo.config.runner.allowed_domains]
    except AttributeError:
        return []
