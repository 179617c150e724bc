"""Spawn one headless `claude -p` run and stream it, line by line, into the item's run file.

The run file (`runs/<stamp>-<role>.jsonl`) holds Claude's stream-json exactly as it arrives, then
one `hall_run_end` line. The runner holds `<stamp>-<role>.lock` for as long as the run lives, so a
file with no end line whose lock nobody holds is a run that died. The journal gets `run_started`,
`run_ended` and one `usage` event per model (from `modelUsage`, else the top-level `usage`).
What it runs (the role's command line and environment) is built in command.py.
Stdlib plus filelock: no pydantic, no rich.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hallmark.core import journal, runs
from hallmark.core.agent_channel import ENV as CHANNEL_ENV
from hallmark.core.agent_channel_server import Server as AgentVerbServer
from hallmark.core.errors import HallError

from . import lifecycle, limits
from .command import (  # RunSpec is re-exported: its many callers build one to hand to run() here
    ROLE_ACTOR,
    RunSpec,
    allowed_domains,
    build_command,
    claude_command,
    default_timeout,
    is_standin,
    launch_environment,
    role_model,
    sandbox_mode,
)
from .isolation import EDITING_ROLES, ISOLATED_ROLES, confinement_settings
from .usage import STANDIN_MODEL, TOKEN_FIELDS, _int, run_usage, usage_rows  # noqa: F401 - re-exported

ARG_LIMIT = 100_000  # bytes: a longer prompt goes through stdin instead of argv
STANDIN_LABEL = " (stand-in)"  # appended to the actor of a stand-in run: the journal never says a model ran


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
        # a limit or an API error ends `success` with is_error: say what the CLI said, not "with success"
        said = " ".join(str(result.get("result") or "").split())[:200]
        head = f"the run ended with {subtype}" if subtype != "success" else "the run ended in an error"
        return f"{head}: {said}" if said else head
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
    paths_of_run = (run_path, lock_path, stderr_path)
    mode = sandbox_mode(repo)
    if mode != "off" and getattr(repo, "paths", None) is not None:
        from hallmark.core.sandbox_wall import prepare

        prepare(repo.paths)  # what the wall holds in place must exist before the sandbox mounts it
    server = _channel(repo, mode) if spec.role in EDITING_ROLES else None
    try:
        settings = confinement_settings(
            spec.role,
            spec.cwd,
            folder,
            spec.write_dirs,
            isolated=spec.role in ISOLATED_ROLES,
            paths=getattr(repo, "paths", None),
            worktree=_worktree(repo, spec),
            channel=server.spool if server else None,
            sandbox=mode,
            allowed_domains=allowed_domains(repo),
        )
        settings_path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        if not spec.resume and not spec.session_id:
            spec = replace(spec, session_id=str(uuid.uuid4()))
        prompt_in_argv = len(spec.prompt.encode("utf-8")) < ARG_LIMIT and not spec.prompt.startswith("-")
        command = build_command(repo, spec, settings_path, prompt_in_argv=prompt_in_argv)
        standin = is_standin(command)
        if standin:
            actor += STANDIN_LABEL
        else:  # one clear error before anything starts, not gates that silently fail open
            from hallmark.core.claude_code import check_minimum

            check_minimum(claude_command(repo))
        env = launch_environment(repo, spec.item_id, actor)
        if spec.role in ISOLATED_ROLES:
            env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"
        env["HALL_SESSION_ID"] = spec.resume or spec.session_id or ""  # `hall ask` records it: answers resume it
        env["HALL_RUN"] = run_path.name  # the Stop hook leaves this run's usage to the runner
        env.update(spec.extra_env)
        if server is not None:  # the agent's verbs run with the agent's own launch environment
            env[CHANNEL_ENV] = str(server.spool)
            server.env = dict(env)
        return _run_process(repo, spec, command, env, prompt_in_argv, standin, actor, paths_of_run)
    finally:
        if server is not None:
            server.stop()


def _run_process(
    repo: Any,
    spec: RunSpec,
    command: list[str],
    env: dict[str, str],
    prompt_in_argv: bool,
    standin: bool,
    actor: str,
    paths_of_run: tuple[Path, Path, Path],
) -> RunResult:
    """Start the process under its lock and stream it into the run file (see run)."""
    run_path, lock_path, stderr_path = paths_of_run
    lock = lifecycle.RunLock(lock_path)
    lock.acquire(timeout_s=30)
    tracker = _Tracker()
    started = time.monotonic()
    timed_out = False
    exit_code: int | None = None
    jpath = _journal_path(repo, spec.item_id)
    try:
        with (
            open(stderr_path, "wb") as err,
            open(run_path, "ab") as out,
            open(run_path.with_suffix(".times"), "ab") as times,
        ):  # each line's arrival (trace.times_path)
            try:
                proc = lifecycle.popen_guarded(
                    command,
                    cwd=str(spec.cwd),
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    pass_fds=lock.pass_fds,
                    stdin=subprocess.DEVNULL if prompt_in_argv else subprocess.PIPE,
                )
            except OSError as exc:
                failure: str | None = f"cannot start {command[0]}: {exc.strerror or exc}"
                return _finish(repo, spec, run_path, stderr_path, tracker, None, 0, failure, actor, jpath)
            journal.append(
                jpath,
                "run_started",
                item=spec.item_id,
                actor=actor,
                run=run_path.name,
                role=spec.role,
                model=STANDIN_MODEL if standin else (spec.model or role_model(repo, spec.role) or ""),
                cwd=str(spec.cwd),
                pid=proc.pid,
                **({"resume": spec.resume} if spec.resume else {}),
            )
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
                _finish(
                    repo,
                    spec,
                    run_path,
                    stderr_path,
                    tracker,
                    proc.poll(),
                    int((time.monotonic() - started) * 1000),
                    failure,
                    actor,
                    jpath,
                    interrupted=True,
                )
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
        return _finish(
            repo, spec, run_path, stderr_path, tracker, exit_code, duration_ms, failure, actor, jpath, judged=judged
        )
    finally:
        lock.release()


def _channel(repo: Any, mode: str) -> AgentVerbServer | None:
    """The agent-verb channel for an editing run (its sandboxed `hall` records fixes through it), or
    None where the sandbox is off or there is no repository. The readers have no verb to send."""
    paths = getattr(repo, "paths", None)
    if mode == "off" or paths is None:
        return None
    try:
        return AgentVerbServer(paths, {}).start()
    except (HallError, OSError):  # no private spool here: the run goes on; its `hall fixed` says why it cannot
        return None


def _worktree(repo: Any, spec: RunSpec) -> Path | None:
    """The item's worktree (the only checkout an editing run writes), else None."""
    if not spec.item_id:
        return None
    from hallmark.core import items

    try:
        found = items.fold_item(repo, spec.item_id).worktree
    except Exception:  # noqa: BLE001 - no such item (a bare test): the run's own directory
        return None
    return Path(found) if found and Path(found).is_dir() else None


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


def _finish(
    repo: Any,
    spec: RunSpec,
    run_path: Path,
    stderr_path: Path,
    tracker: _Tracker,
    exit_code: int | None,
    duration_ms: int,
    failure: str | None,
    actor: str,
    jpath: Path,
    *,
    judged: bool = False,
    interrupted: bool = False,
) -> RunResult:
    runs.append_end(
        run_path,
        runs.end_record(
            spec.role, spec.item_id, exit_code=exit_code, duration_ms=duration_ms, failure=failure, cwd=str(spec.cwd)
        ),
    )
    try:
        if stderr_path.stat().st_size == 0:
            stderr_path.unlink()
    except OSError:
        pass
    rows = run_usage(repo, tracker, resumed=bool(spec.resume))
    limit = limits.limit_of(tracker.result, tracker.facts, _tail(stderr_path)) if failure else None
    limited, resets = limit is not None, limit.resets_at if limit else None
    result = tracker.result or {}
    turns = _int(result.get("num_turns"))
    for row in rows:
        journal.append(
            jpath,
            "usage",
            item=spec.item_id,
            actor=actor,
            run=run_path.name,
            role=spec.role,
            model=row["model"],
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
            cache_read_tokens=row["cache_read_tokens"],
            cache_write_tokens=row["cache_write_tokens"],
            turns=turns,
            duration_ms=_int(result.get("duration_ms")) or duration_ms,
            cost_usd=row["cost_usd"],
            standin=row["standin"],
            session=tracker.session_id,
        )
    extra: dict[str, Any] = {"rate_limited": True, "resets_at": resets, "limit": limit.kind} if limit else {}
    if judged:
        extra["judged"] = True
    if interrupted:
        extra["interrupted"] = True  # the loop stopped, not the item's failure
    journal.append(
        jpath,
        "run_ended",
        item=spec.item_id,
        actor=actor,
        run=run_path.name,
        role=spec.role,
        exit_code=exit_code,
        duration_ms=duration_ms,
        failed=failure,
        session=tracker.session_id,
        **extra,
    )
    return RunResult(
        path=run_path,
        role=spec.role,
        item_id=spec.item_id,
        cwd=str(spec.cwd),
        exit_code=exit_code,
        duration_ms=duration_ms,
        failure=failure,
        result=tracker.result,
        structured_output=(tracker.result or {}).get("structured_output"),
        usage=rows,
        model=tracker.model,
        session_id=tracker.session_id,
        rate_limited=limited,
        resets_at=resets,
    )
