"""Spawn one headless `claude -p` run and stream it, line by line, into the item's run file.

The run file (`runs/<stamp>-<role>.jsonl`) holds Claude's stream-json exactly as it arrives, then
one `hall_run_end` line. The runner holds `<stamp>-<role>.lock` for as long as the run lives, so a
file with no end line whose lock nobody holds is a run that died. The journal gets `run_started`,
`run_ended` and one `usage` event per model (from `modelUsage`, else the top-level `usage`).
Stdlib plus filelock: no pydantic, no rich.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import clock, journal, runs
from ..errors import HallError
from . import lifecycle, limits
from .isolation import ISOLATED_ROLES, REMOVE_ENV, confinement_settings, isolation_args
from .usage import STANDIN_MODEL, TOKEN_FIELDS, _int, run_usage, usage_rows  # noqa: F401 - re-exported

# the plugin's agents (plugin/agents/); a dev run (and intake) is a plain Claude Code session
ROLE_AGENT = {"review": "principal-engineer", "fix": "fixer", "librarian": "librarian"}
ROLE_ACTOR = {"review": "assayer", "fix": "fixer", "intake": "intake", "librarian": "librarian", "dev": "dev",
              "ship": "shipper"}
DEFAULT_MAX_USD = {"review": 6.0, "fix": 2.0, "intake": 0.10, "librarian": 0.20, "dev": 2.0}
ROLE_MODEL_KEY = {"review": "review_model", "fix": "fix_model", "intake": "intake_model",
                  "librarian": "librarian_model"}
ARG_LIMIT = 100_000  # bytes: a longer prompt goes through stdin instead of argv
STANDIN_COMMANDS = ("hall-standin-claude", "hallmark.core.runner.standin")
STANDIN_LABEL = " (stand-in)"  # appended to the actor of a stand-in run: the journal never says a model ran


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
    extra_env: dict[str, str] = field(default_factory=dict)
    validate: Callable[[Any], str | None] | None = None  # checks structured_output; returns a failure
    resume: str | None = None  # a session id: `claude -p --resume <id> <prompt>` continues that session
    session_id: str | None = None  # a fresh run's own id (`--session-id`); None: one is made up
    judge_effect: Callable[[], str | None] | None = None  # after a clean run: what it failed to do, or None


@dataclass
class RunResult:
    path: Path
    role: str
    item_id: str | None
    cwd: str
    exit_code: int | None
    duration_ms: int
    failure: str | None
    result: dict[str, Any] | None = None
    structured_output: Any = None
    usage: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""
    session_id: str = ""
    rate_limited: bool = False
    resets_at: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def name(self) -> str:
        return self.path.name


# -- where and what ---------------------------------------------------------------------------


def plugin_dir() -> Path:
    """The plugin shipped in the package (agents, skills, schemas)."""
    from .. import __file__ as core_init

    return Path(core_init).resolve().parent.parent / "plugin"


def claude_command(repo: Any) -> list[str]:
    """HALL_CLAUDE, else `[runner] claude`, else `claude` on PATH."""
    for source, value in (("HALL_CLAUDE", os.environ.get("HALL_CLAUDE", "")),
                          ("[runner] claude", _config_claude(repo))):
        if value and value.strip():
            words = shlex.split(value)
            if shutil.which(words[0]) is None and not Path(words[0]).is_file():
                raise HallError("RUN_FAILED", f"{source} names {words[0]!r}, which is not an executable.",
                                ["hall doctor", "edit [runner] claude in .hallmark.toml"])
            return words
    found = shutil.which("claude")
    if found is None:
        raise HallError("RUN_FAILED", "The Claude Code CLI `claude` is not on PATH.",
                        ["install Claude Code", "set [runner] claude in .hallmark.toml", "hall doctor"])
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
    from ..launch_env import launch_env

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
    if spec.json_schema is not None:  # Claude Code accepts draft-07 only
        from ..draft7 import to_draft7

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
    if spec.allowed_tools:
        args += ["--allowedTools", ",".join(spec.allowed_tools)]
    with contextlib.suppress(AttributeError):
        args += list(repo.config.claude_args)
    return args


def _run_plugin_dir(repo: Any) -> Path:
    """The rendered plugin copy (absolute hall-hook) under the state dir; the package's own when
    there is no state dir (a bare Repo in tests)."""
    from .plugin_copy import headless_plugin

    state_dir = getattr(repo, "state_dir", None)
    return headless_plugin(Path(state_dir)) if state_dir else plugin_dir()


def _sandbox_mode(repo: Any) -> str:
    try:
        return str(repo.config.runner.sandbox)
    except AttributeError:
        return "auto"


# -- the run ----------------------------------------------------------------------------------


class _Tracker:
    """What the stream says so far: the model, the session and the last result line."""

    def __init__(self) -> None:
        self.model = ""
        self.session_id = ""
        self.result: dict[str, Any] | None = None
        self.facts = limits.StreamFacts()

    def see(self, raw: bytes) -> None:
        try:
            record = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return
        if not isinstance(record, dict):
            return
        kind = record.get("type")
        if kind == "system" and record.get("subtype") == "init":
            self.model = str(record.get("model") or self.model)
            self.session_id = str(record.get("session_id") or self.session_id)
        elif kind == "result":
            self.result = record
            self.session_id = str(record.get("session_id") or self.session_id)
        else:
            self.facts.see(record)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    lifecycle.kill_group(proc)


def _journal_path(repo: Any, item_id: str | None) -> Path:
    return repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal


def judge(spec: RunSpec, exit_code: int | None, timed_out: bool, tracker: _Tracker, stderr_tail: str) -> str | None:
    """Why the run failed, or None."""
    timeout = spec.timeout_s
    if timed_out:
        return f"timed out after {timeout:g} s" if timeout else "timed out"
    result = tracker.result
    if result is None:
        detail = f" (exit code {exit_code}{': ' + stderr_tail if stderr_tail else ''})" if exit_code else ""
        return f"the stream has no result line{detail}"
    subtype = result.get("subtype", "success")
    if subtype != "success" or result.get("is_error"):
        return f"the run ended with {subtype}"
    if exit_code not in (0, None):
        return f"claude exited with code {exit_code}{': ' + stderr_tail if stderr_tail else ''}"
    if spec.json_schema is not None:
        if result.get("structured_output") is None:
            return "the result has no structured_output"
        if spec.validate is not None:
            problem = spec.validate(result["structured_output"])
            if problem:
                return f"the structured_output is invalid: {problem}"
    return None


def run(repo: Any, spec: RunSpec) -> RunResult:
    """Run claude once for spec.role, streaming into the run file; never raises on a failed run.

    The process runs under the guard in a session of its own (lifecycle.py): a timeout or a
    stopping loop ends its whole group, and so does a loop that dies without a word. One
    `run_ended` per run: when the run itself went well, `spec.judge_effect` says whether it did
    its job (the fixer's commit), and that judgement is the run's failure.
    """
    spec.timeout_s = spec.timeout_s if spec.timeout_s is not None else default_timeout(repo)
    folder = runs.runs_dir(repo.paths, spec.item_id)
    base = runs.new_base(folder, spec.role)
    run_path, lock_path = base.with_suffix(".jsonl"), base.with_suffix(".lock")
    stderr_path, prompt_path = base.with_suffix(".stderr"), base.with_suffix(".prompt.md")
    settings_path = base.with_suffix(".settings.json")
    actor = ROLE_ACTOR.get(spec.role, spec.role)
    prompt_path.write_text(spec.prompt, encoding="utf-8")
    settings = confinement_settings(spec.role, spec.cwd, folder, spec.write_dirs,
                                    isolated=spec.role in ISOLATED_ROLES, git_dir=_git_dir(repo),
                                    sandbox=_sandbox_mode(repo))
    settings_path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    if not spec.resume and not spec.session_id:
        spec = replace(spec, session_id=str(uuid.uuid4()))
    prompt_in_argv = len(spec.prompt.encode("utf-8")) < ARG_LIMIT and not spec.prompt.startswith("-")
    command = build_command(repo, spec, settings_path, prompt_in_argv=prompt_in_argv)
    standin = is_standin(command)
    if standin:
        actor += STANDIN_LABEL
    else:  # one clear error before anything starts, not gates that silently fail open
        from ..claude_code import check_minimum

        check_minimum(claude_command(repo))
    env = launch_environment(repo, spec.item_id, actor)
    if spec.role in ISOLATED_ROLES:
        env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"
    env["HALL_SESSION_ID"] = spec.resume or spec.session_id or ""  # `hall ask` records it: answers resume it
    env["HALL_RUN"] = run_path.name  # the Stop hook leaves this run's usage to the runner
    env.update(spec.extra_env)
    lock = lifecycle.RunLock(lock_path)
    lock.acquire(timeout_s=30)
    tracker = _Tracker()
    started = time.monotonic()
    timed_out = False
    exit_code: int | None = None
    jpath = _journal_path(repo, spec.item_id)
    try:
        with open(stderr_path, "wb") as err, open(run_path, "ab") as out, \
                open(run_path.with_suffix(".times"), "ab") as times:  # each line's arrival (trace.times_path)
            try:
                proc = lifecycle.popen_guarded(command, cwd=str(spec.cwd), env=env, stdout=subprocess.PIPE,
                                               stderr=err, pass_fds=lock.pass_fds,
                                               stdin=subprocess.DEVNULL if prompt_in_argv else subprocess.PIPE)
            except OSError as exc:
                failure: str | None = f"cannot start {command[0]}: {exc.strerror or exc}"
                return _finish(repo, spec, run_path, stderr_path, tracker, None, 0, failure, actor, jpath)
            journal.append(jpath, "run_started", item=spec.item_id, actor=actor, run=run_path.name,
                           role=spec.role, model=STANDIN_MODEL if standin else (spec.model or role_model(repo, spec.role) or ""),
                           cwd=str(spec.cwd),
                           pid=proc.pid, **({"resume": spec.resume} if spec.resume else {}))
            if not prompt_in_argv:
                threading.Thread(target=_feed, args=(proc, spec.prompt), daemon=True).start()

            def on_timeout() -> None:
                nonlocal timed_out
                timed_out = True
                _kill_group(proc)

            timer = threading.Timer(spec.timeout_s, on_timeout) if spec.timeout_s else None
            if timer:
                timer.daemon = True
                timer.start()
            assert proc.stdout is not None
            try:
                for raw in proc.stdout:
                    line = raw if raw.endswith(b"\n") else raw + b"\n"
                    out.write(line)
                    out.flush()
                    times.write(b"%d %d\n" % (out.tell(), int(time.time() * 1000)))
                    times.flush()
                    tracker.see(raw)
                exit_code = proc.wait()
            except BaseException as exc:  # Ctrl-C or a crash here: never leave claude running alone
                _kill_group(proc)
                out.flush()
                failure = f"interrupted: the runner stopped ({type(exc).__name__})"
                _finish(repo, spec, run_path, stderr_path, tracker, proc.poll(),
                        int((time.monotonic() - started) * 1000), failure, actor, jpath, interrupted=True)
                raise
            finally:
                if timer:
                    timer.cancel()
        duration_ms = int((time.monotonic() - started) * 1000)
        failure = judge(spec, exit_code, timed_out, tracker, _tail(stderr_path))
        judged = False
        if failure is None and spec.judge_effect is not None:
            failure = spec.judge_effect()
            judged = failure is not None
        return _finish(repo, spec, run_path, stderr_path, tracker, exit_code, duration_ms, failure, actor, jpath,
                       judged=judged)
    finally:
        lock.release()


def _git_dir(repo: Any) -> Path | None:
    try:
        return Path(repo.paths.common_dir)
    except AttributeError:
        return None


def _feed(proc: subprocess.Popen[bytes], prompt: str) -> None:
    try:
        assert proc.stdin is not None
        proc.stdin.write(prompt.encode("utf-8"))
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass


def _tail(path: Path, limit: int = 400) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return text[-limit:]


def _finish(repo: Any, spec: RunSpec, run_path: Path, stderr_path: Path, tracker: _Tracker, exit_code: int | None,
            duration_ms: int, failure: str | None, actor: str, jpath: Path, *, judged: bool = False,
            interrupted: bool = False) -> RunResult:
    runs.append_end(run_path, runs.end_record(spec.role, spec.item_id, exit_code=exit_code, duration_ms=duration_ms,
                                              failure=failure, cwd=str(spec.cwd)))
    try:
        if stderr_path.stat().st_size == 0:
            stderr_path.unlink()
    except OSError:
        pass
    rows = run_usage(repo, tracker)
    limit = limits.limit_of(tracker.result, tracker.facts, _tail(stderr_path)) if failure else None
    limited, resets = limit is not None, limit.resets_at if limit else None
    result = tracker.result or {}
    turns = _int(result.get("num_turns"))
    for row in rows:
        journal.append(jpath, "usage", item=spec.item_id, actor=actor, run=run_path.name, role=spec.role,
                       model=row["model"], input_tokens=row["input_tokens"], output_tokens=row["output_tokens"],
                       cache_read_tokens=row["cache_read_tokens"], cache_write_tokens=row["cache_write_tokens"],
                       turns=turns, duration_ms=_int(result.get("duration_ms")) or duration_ms,
                       cost_usd=row["cost_usd"], standin=row["standin"], session=tracker.session_id)
    extra: dict[str, Any] = {"rate_limited": True, "resets_at": resets, "limit": limit.kind} if limit else {}
    if judged:
        extra["judged"] = True
    if interrupted:
        extra["interrupted"] = True  # the loop stopped, not the item's failure
    journal.append(jpath, "run_ended", item=spec.item_id, actor=actor, run=run_path.name, role=spec.role,
                   exit_code=exit_code, duration_ms=duration_ms, failed=failure, session=tracker.session_id, **extra)
    return RunResult(path=run_path, role=spec.role, item_id=spec.item_id, cwd=str(spec.cwd), exit_code=exit_code,
                     duration_ms=duration_ms, failure=failure, result=tracker.result,
                     structured_output=(tracker.result or {}).get("structured_output"), usage=rows,
                     model=tracker.model, session_id=tracker.session_id, rate_limited=limited, resets_at=resets)
