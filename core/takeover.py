"""Take an item over from the loop: stop its live run, release the lease, and resume the session by hand.

The session id comes from the run's stream; the command is `claude --resume <id>` run in the directory
the run ran in, with the item's launch environment. The item is pulled back to development (reason
"taken over") and stays there until the person says `hall ready` again.
"""

from __future__ import annotations

import os
import shlex
import signal
import time
from pathlib import Path
from typing import Any

from . import items, runs, states
from .errors import HallError
from .launch_env import launch_env
from .runs import lock_is_held
from .takeover_results import Takeover

STOP_WAIT_S = 5.0


def claude_command() -> list[str]:
    """The Claude Code executable: HALL_CLAUDE (may carry arguments) or `claude`."""
    override = os.environ.get("HALL_CLAUDE", "").strip()
    return shlex.split(override) if override else ["claude"]


def stream_info(path: Path) -> dict[str, Any]:
    """session_id, cwd and whether it ended, from a run's stream: its last run's (trace.run_info),
    else the last session id any run in the file had (a last run that died before its init)."""
    from .runner.trace import iter_records, run_info

    try:
        info = dict(run_info(path))
        if info.get("session_id"):
            return info
    except Exception:  # noqa: BLE001 - an unreadable last run: fall back to any session id in the file
        pass
    info = {"session_id": None, "cwd": None, "ended": False}
    try:
        for _, line in iter_records(path):
            if line.get("type") == runs.END_TYPE:
                info["ended"] = True
                info["cwd"] = line.get("cwd") or info["cwd"]
                continue
            if line.get("session_id"):
                if line.get("session_id") != info["session_id"]:
                    info["ended"] = False
                info["session_id"] = line["session_id"]
            if line.get("type") == "system" and line.get("subtype") == "init" and line.get("cwd"):
                info["cwd"] = line["cwd"]
    except OSError:
        pass
    return info


def pick_run(repo: Any, item_id: str, run: int | str | None) -> Path:
    """Run N (1 = oldest, -1 = latest), a run file name, or by default the latest run with a session."""
    files = runs.list_runs(repo.paths, item_id)
    if not files:
        raise HallError(
            "NO_RUN", f"{item_id} has no runs to take over.", [f"hall trace {item_id}", f"hall status {item_id}"]
        )
    if run is None:
        for found in reversed(files):
            if stream_info(found.path).get("session_id"):
                return found.path
        raise HallError(
            "NO_SESSION", f"None of {item_id}'s runs has a session id in its stream yet.", [f"hall trace {item_id}"]
        )
    picked = runs.pick(files, run)
    if picked is not None:
        return picked.path
    if isinstance(run, str) and not run.lstrip("-").isdigit():
        raise HallError("NO_RUN", f"{item_id} has no run {run!r}.", [f"hall trace {item_id}"])
    raise HallError(
        "NO_RUN", f"{item_id} has {len(files)} run(s); there is no run {int(run)}.", [f"hall trace {item_id}"]
    )


def _run_pid(repo: Any, item_id: str, run_path: Path) -> int | None:
    """The live run's process id: `<stem>.pid` beside the stream, else the `run_started` event's pid."""
    pid_file = run_path.with_suffix(".pid")
    try:
        return int(pid_file.read_text().strip())
    except (OSError, ValueError):
        pass
    for event in reversed(items.item_events(repo, item_id)):
        if event.get("event") == "run_started" and event.get("run") == run_path.name and event.get("pid"):
            try:
                return int(event["pid"])
            except (TypeError, ValueError):
                return None
    return None


def stop_run(repo: Any, item_id: str, run_path: Path) -> bool:
    """Stop a live run (SIGTERM its process group, then SIGKILL); True when it was live and is stopped."""
    lock = run_path.with_suffix(".lock")
    if not lock_is_held(lock):
        return False
    pid = _run_pid(repo, item_id, run_path)
    if pid is None:
        raise HallError(
            "RUN_LIVE",
            f"{run_path.name} is still running and its process id is unknown; stop it first.",
            [f"hall trace {item_id} --follow"],
        )
    for sig in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
        _signal(pid, sig)
        deadline = time.monotonic() + STOP_WAIT_S
        while time.monotonic() < deadline:
            if not lock_is_held(lock):
                return True
            time.sleep(0.05)
    return not lock_is_held(lock)


def _signal(pid: int, sig: int) -> None:
    """Signal the run's process group when it has its own (never ours), else the process alone."""
    try:
        if hasattr(os, "killpg") and os.getpgid(pid) != os.getpgid(0):
            os.killpg(os.getpgid(pid), sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def release_lease(repo: Any, item_id: str) -> bool:
    """Release the loop's lease on the item; True when one was released."""
    from .loop import leases

    return bool(leases.release(repo, item_id))


def takeover(repo: Any, item_id: str, run: int | str | None = None, *, actor: str | None = None) -> Takeover:
    """Stop the run, release the lease, record `taken_over`, pull the item back; return how to resume."""
    view = items.fold_item(repo, item_id)
    run_path = pick_run(repo, item_id, run)
    info = stream_info(run_path)
    session_id = info.get("session_id")
    if not session_id:
        raise HallError("NO_SESSION", f"{run_path.name} has no session id in its stream.", [f"hall trace {item_id}"])
    cwd = info.get("cwd") or _started_cwd(repo, item_id, run_path) or view.worktree
    if not cwd or not Path(cwd).is_dir():
        raise HallError(
            "WRONG_STATE",
            f"The directory {run_path.name} ran in ({cwd or 'unknown'}) is gone.",
            [f"hall status {item_id}"],
        )
    stopped = stop_run(repo, item_id, run_path)
    released = release_lease(repo, item_id)
    items.record(
        repo,
        item_id,
        "taken_over",
        actor=actor,
        run=run_path.name,
        session_id=session_id,
        cwd=str(cwd),
        stopped=stopped,
        lease_released=released,
    )
    pulled = False
    if not view.terminal and view.state != states.DEVELOPMENT:
        items.pull_back(repo, item_id, reason="taken over", actor=actor)
        pulled = True
    from .sandbox_profile import session_args  # the same wall as the run had, where it can run

    worktree = Path(view.worktree) if view.worktree and Path(view.worktree).is_dir() else None
    sandbox_args, _sandbox = session_args(repo.paths, worktree=worktree, cwd=Path(cwd))
    command = [*claude_command(), *sandbox_args, "--resume", str(session_id)]
    env = launch_env(repo, item_id)
    return Takeover(
        item=item_id,
        run=run_path.name,
        session_id=session_id,
        command=command,
        cwd=str(cwd),
        env=env,
        stopped=stopped,
        lease_released=released,
        pulled_back=pulled,
        shell=f"cd {shlex.quote(str(cwd))} && "
        + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        + " "
        + shlex.join(command),
    )


def _started_cwd(repo: Any, item_id: str, run_path: Path) -> str | None:
    for event in reversed(items.item_events(repo, item_id)):
        if event.get("event") == "run_started" and event.get("run") == run_path.name:
            return event.get("cwd")
    return None


def run_command(result: Takeover) -> int:
    """Run the resume command in the foreground, inheriting the terminal, serving the session's
    agent verbs (the channel) while it runs; returns its exit code."""

    from .agent_channel import ENV as CHANNEL_ENV
    from .agent_channel_server import serving
    from .paths import discover

    env = dict(os.environ)
    env.update(result.env)
    paths = discover(Path(result.cwd), required=False)
    if paths is None or "--settings" not in result.command:
        return _call(result.command, result.cwd, env)
    from .repo import open_repo
    from .sandbox_profile import session_file

    view = items.fold_item(open_repo(Path(paths.main_checkout)), result.item)
    worktree = Path(view.worktree) if view.worktree and Path(view.worktree).is_dir() else None
    settings = Path(result.command[result.command.index("--settings") + 1])
    with serving(paths, env) as server:
        session_file(paths, worktree=worktree, cwd=Path(result.cwd), channel=server.spool, name=settings.name)
        env[CHANNEL_ENV] = str(server.spool)
        server.env = dict(env)
        return _call(result.command, result.cwd, env)


def _call(command: list[str], cwd: str, env: dict[str, str]) -> int:
    import subprocess

    try:
        return subprocess.call(command, cwd=cwd, env=env)
    except FileNotFoundError as exc:
        raise HallError(
            "COMMAND_FAILED",
            f"{command[0]} is not installed or not on PATH.",
            ["install Claude Code", "set HALL_CLAUDE"],
        ) from exc
