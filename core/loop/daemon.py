"""The daemon: passes over every registered repo — watchman, resume, assayer (checks, review), fixer,
shipper, librarian.

Each item is worked by one worker at a time (a lease). A pass first records what the journal owes:
expired question defaults, answers owed to the sessions that asked (resumed headless, once; see
resume.py), runs that died (recorded as failed, so the next step retries them), stuck items. Last,
the librarian distils one closed item (librarian.py). The daily budget pauses the model workers
(checks and shipping go on). Stopping is a flag in the state file (`<user data dir>/daemon.json`),
so it works the same everywhere.
`run(until_idle=True)` runs passes in the foreground until a pass finds no work.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self

from hallmark.core import atomic, clock, items, journal, states
from hallmark.core.delivery import watch as delivery_watch
from hallmark.core.errors import HallError
from hallmark.core.paths import user_data_dir
from hallmark.core.repo import Repo, open_repo
from hallmark.core.runner import lifecycle

from . import bounds, budget, leases, librarian, person_checks, resume, runs
from .daemon_state import HEARTBEAT_STALE_S, liveness, read_state, state_path  # noqa: F401 - re-exported
from .results import DaemonAlreadyRunning, DaemonRun, DaemonStarted, DaemonStatus, DaemonStopped

HEARTBEAT_EVERY_S = 30.0
DEFAULT_INTERVAL_S = 10.0
MAX_IDLE_PASSES = 500  # a guard for --until-idle: a loop that never settles stops here
WORK_STATES = (states.CHECKS, states.REVIEW, states.FIXING, states.HALLMARKED)
# not progress: --until-idle may stop
_NOT_PROGRESS = ("question_defaulted", "error", "resume_paused", "distill_paused", "unsigned")
IDLE_OUTCOMES = frozenset((*_NOT_PROGRESS, "notified", "notify_held", "notify_failed"))


def _update_state(**fields: Any) -> dict[str, Any]:
    path = state_path()
    with journal.locked(path):
        data = atomic.read_json(path, {}) or {}
        data.update(fields)
        atomic.write_json(path, data)
    return data


# -- the steps -------------------------------------------------------------------------------


def hold_after_failed_runs(repo: Repo, item_id: str) -> bool:
    """`max_run_failures` failed runs in a row hold the item for a person (bounds.py)."""
    return bounds.hold_after_failed_runs(repo, item_id)


def do_checks(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    from hallmark.core import worktree_setup

    from . import checks

    try:
        outcome = checks.run_checks(repo, view.id, view.sha, view.worktree)
    except worktree_setup.SetupFailed as failed:  # nobody's change failed: hold, never the fixer
        return worktree_setup.hold(repo, view.id, failed)
    if outcome.passed:
        items.transition(
            repo, view.id, "checks_passed", actor="assayer", sha=view.sha, gates=[r.command for r in outcome.results]
        )
        return {"item": view.id, "outcome": "checks_passed"}
    failures = view.check_failures + 1
    held = failures >= repo.config.max_check_failures
    fields: dict[str, Any] = {
        "sha": view.sha,
        "failed": [r.command for r in outcome.failed],
        "condensed": outcome.condensed,
        "in_a_row": failures,
    }
    if held:
        fields.update(held=True, reason=f"checks failed {failures} times in a row (max_check_failures)")
    items.transition(repo, view.id, "checks_failed", actor="assayer", **fields)
    return {"item": view.id, "outcome": "checks_failed", "held": held}


def do_review(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    from . import review

    return _after_run(repo, view, review.review(repo, view.id))


def _after_run(repo: Repo, view: states.ItemView, result: dict[str, Any]) -> dict[str, Any]:
    if result["outcome"] == "run_failed":
        if result.get("rate_limited"):
            budget.pause_for_plan(repo, result.get("resets_at"))
            result["paused"] = True
        result["held"] = hold_after_failed_runs(repo, view.id)
    return result


def do_fix(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    from . import fix

    return _after_run(repo, view, fix.run_fixer(repo, view.id))


def do_ship(repo: Repo, view: states.ItemView) -> dict[str, Any]:
    from . import ship

    return ship.ship(repo, view.id)


STEPS: dict[str, tuple[str, Callable[[Repo, states.ItemView], dict[str, Any]], str | None]] = {
    states.CHECKS: ("assayer", do_checks, None),
    states.REVIEW: ("assayer", do_review, "review"),
    states.FIXING: ("fixer", do_fix, "fix"),
    states.HALLMARKED: ("shipper", do_ship, None),
}


def watchman(repo: Repo) -> list[str]:
    """Flag stuck items with a notice, once per quiet spell (core/watchman.py's rule and record)."""
    from hallmark.core.watchman import flag_stuck

    return flag_stuck(repo)


def _prune_gate_checkouts(repo: Repo) -> None:
    """The clean checkouts the gates ran in go once their item's worktree is gone (drop, sweep)."""
    from hallmark.core import gate_checkout

    with contextlib.suppress(HallError, OSError):  # housekeeping: never a reason for a pass to fail
        gate_checkout.prune(repo)


def candidates(repo: Repo, role: str | None = None) -> list[states.ItemView]:
    """Items with loop work, oldest in their state first; a role keeps only its states."""
    found = []
    for view in repo.index.items(include_terminal=False):
        if view.state not in STEPS or view.hold:
            continue
        if role and STEPS[view.state][0] != role:
            continue
        found.append(view)
    found.sort(key=lambda v: (v.state_since, v.id))
    return found


StepHook = Callable[[dict[str, Any]], None]


class StepList(list[dict[str, Any]]):
    """The steps of a pass, each handed to the hook the moment it is taken (`hall daemon run` prints
    one line per step as it happens, not all of them when it exits)."""

    def __init__(self, repo_name: str, hook: StepHook | None) -> None:
        super().__init__()
        self.repo_name = repo_name
        self.hook = hook

    def append(self, step: dict[str, Any]) -> None:
        super().append(step)
        if self.hook is not None:
            self.hook(dict(step, repo=self.repo_name))

    def __iadd__(self, steps: Iterable[dict[str, Any]]) -> Self:  # type: ignore[override, misc]  # list's own __iadd__ signature; mypy checks it against __add__'s overloads
        for step in steps:
            self.append(step)
        return self


def step_line(step: dict[str, Any]) -> str:
    """One readable line for a step: when, where, which item, which worker, what came of it."""
    what = step.get("item") or step.get("qid") or "-"
    detail = step.get("failure") or step.get("reason") or ""
    error = step.get("error")
    if isinstance(error, dict):
        detail = f"{error.get('code')}: {error.get('message')}"
    elif error:
        detail = str(error)
    if step.get("held") is True and "held" not in str(step.get("outcome")):
        detail = f"{detail} (held)" if detail else "held"
    text = f"{clock.stamp()[11:19]} {step.get('repo', '')} {what} {step.get('step') or '-'} -> {step.get('outcome')}"
    if detail:
        detail = str(detail).replace("\n", " ")
        if len(detail) > 160:
            detail = detail[:160].rsplit(" ", 1)[0] + " …"
        text += f": {detail}"
    return text


def pass_repo(
    repo: Repo, holder: str, *, log: Callable[[str], None] | None = None, on_step: StepHook | None = None
) -> list[dict[str, Any]]:
    """One pass over one repo; returns the steps it took (each also handed to on_step as it is taken)."""
    from hallmark.core.questions import apply_expired_defaults

    done: list[dict[str, Any]] = StepList(repo.root.name, on_step)
    done.extend(
        {"item": q.get("item"), "outcome": "question_defaulted", "qid": q["qid"]} for q in apply_expired_defaults(repo)
    )
    done += _followup(repo, "resume", lambda: resume.resume_answers(repo, holder), log)
    watchman(repo)
    _prune_gate_checkouts(repo)
    for view in repo.index.items(include_terminal=False):
        recovered = runs.recover_dead(repo, view.id)
        if recovered:
            done.append(
                {
                    "item": view.id,
                    "outcome": "run_recovered",
                    "runs": recovered,
                    "held": hold_after_failed_runs(repo, view.id),
                }
            )
    ttl = max(leases.DEFAULT_TTL_S, _runner_timeout(repo) + 300)
    paused = None
    for view in candidates(repo):
        role, step, model_role = STEPS[view.state]
        if model_role is not None:
            paused = paused or budget.check_plan(repo) or budget.check_daily(repo)
            if paused:
                continue
            block = budget.check_room(repo, model_role) or budget.check_item(repo, view)
            if block:
                if block.level == "per_item":
                    done.append({"item": view.id, "outcome": "held", "hold": "budget", "reason": block.reason})
                continue
        try:
            lease = leases.acquire(repo, view.id, role, holder, ttl_s=ttl)
        except HallError as exc:
            if exc.code == "CLAIMED":
                continue
            raise
        try:
            fresh = items.fold_item(repo, view.id)
            if fresh.state != view.state or fresh.hold:
                continue
            attempt = person_checks.unsigned_step(repo, fresh)
            if attempt:
                done.append({"item": view.id, "outcome": "unsigned", "reason": attempt})
                continue
            if log:
                log(f"{repo.root.name} {view.id}: {role} ({view.state})")
            try:
                result = step(repo, fresh)
            except HallError as exc:
                result = {"item": view.id, "outcome": "error", **exc.to_dict()}
                items.record(repo, view.id, "notice", actor=role, kind="loop_error", text=f"{exc.code}: {exc.message}")
            except Exception as exc:  # noqa: BLE001 - one item's surprise must not stop the loop for the rest
                result = {"item": view.id, "outcome": "error", **HallError("INTERNAL", repr(exc)).to_dict()}
                items.record(repo, view.id, "notice", actor=role, kind="loop_error", text=f"internal error: {exc!r}")
            result["step"] = role
            done.append(result)
        finally:
            leases.release(repo, view.id, lease["holder"])
    done += _followup(repo, "delivery", lambda: delivery_watch.watch(repo), log)
    done += _followup(repo, "librarian", lambda: librarian.distill_closed(repo, holder), log)
    done += _followup(repo, "notify", lambda: _notify(repo), log)
    return list(done)


def _notify(repo: Repo) -> list[dict[str, Any]]:
    """Last in the pass, so what the pass put in the inbox goes out now (core/notify/worker.py)."""
    from hallmark.core.notify.worker import notify_pass

    return notify_pass(repo)


def _followup(
    repo: Repo, worker: str, work: Callable[[], list[dict[str, Any]]], log: Callable[[str], None] | None
) -> list[dict[str, Any]]:
    """Resume and the librarian run beside the item steps: their surprises are a notice, never a stop."""
    try:
        steps = work()
    except Exception as exc:  # noqa: BLE001 - one worker's failure must not stop the pass
        text = f"{exc.code}: {exc.message}" if isinstance(exc, HallError) else f"internal error: {exc!r}"
        items.record(repo, None, "notice", actor=worker, kind="loop_error", text=f"{worker}: {text}")
        return [{"item": None, "outcome": "error", "step": worker, "error": text}]
    if log:
        for step in steps:
            log(f"{repo.root.name} {step.get('item') or step.get('qid') or ''}: {worker} ({step.get('outcome')})")
    return steps


def _runner_timeout(repo: Repo) -> float:
    try:
        return clock.parse_duration(repo.config.runner.timeout)
    except (AttributeError, ValueError):
        return 1800.0


def repo_blocked(repo: Repo, exc: HallError, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A pass that cannot run in this repo: a notice in its journal (once per distinct reason, not
    every pass) and an error step; the daemon goes on with the other repos."""
    text = f"the loop is stopped in this repo: {exc.code}: {exc.message}"
    last = [e for e in repo.index.events(kinds=["notice"]) if e.get("kind") == "loop_blocked"][-1:]
    if not last or last[0].get("text") != text:
        items.record(repo, None, "notice", actor="daemon", kind="loop_blocked", text=text, next=exc.next)
    if log:
        log(f"{repo.root.name}: {text}")
    return {"item": None, "repo": str(repo.root), "step": "pass", "outcome": "error", "error": exc.to_dict()["error"]}


def _open(root: Path) -> Repo | None:
    try:
        return open_repo(root)
    except HallError:
        return None


def run(
    *,
    until_idle: bool = False,
    interval: float = DEFAULT_INTERVAL_S,
    repos: list[Path] | None = None,
    max_passes: int | None = None,
    log: Callable[[str], None] | None = None,
    on_step: StepHook | None = None,
) -> DaemonRun:
    """Run passes until stopped (the flag), or with until_idle until a pass finds no work.

    on_step gets each step the moment it is taken (with its repo's name)."""
    from hallmark.core.setup_repo import registered_repos

    person_checks.require_key("hall daemon run")
    holder = f"daemon@{socket.gethostname()}:{os.getpid()}"
    started = clock.stamp()
    _update_state(
        pid=os.getpid(),
        started=started,
        heartbeat=started,
        stop=False,
        expected=not until_idle,
        host=socket.gethostname(),
        mode="until_idle" if until_idle else "loop",
        passes=0,
    )
    passes, steps = 0, []
    beating = threading.Event()

    def beat() -> None:  # a long review must not look like a dead daemon
        while not beating.wait(HEARTBEAT_EVERY_S):
            _update_state(heartbeat=clock.stamp())

    threading.Thread(target=beat, name="hall-daemon-heartbeat", daemon=True).start()
    old_handlers = lifecycle.stop_on_signals()  # SIGTERM unwinds: every run ends its group and its line
    from hallmark.core.agent_channel_server import daemon_channel

    channel = contextlib.ExitStack()
    if not until_idle:  # a resident daemon serves plain sandboxed sessions' agent verbs (the channel)
        channel.enter_context(daemon_channel(list(repos if repos is not None else registered_repos())))
    try:
        while True:
            if read_state().get("stop"):
                break
            work: list[dict[str, Any]] = []
            for root in repos if repos is not None else registered_repos():
                repo = _open(root)
                if repo is None:
                    continue
                try:
                    work += pass_repo(repo, holder, log=log, on_step=on_step)
                except HallError as exc:  # e.g. a broken .hallmark.toml: that repo waits, the others go on
                    blocked = repo_blocked(repo, exc, log)
                    work.append(blocked)
                    if on_step is not None:
                        on_step(dict(blocked, repo=repo.root.name))
            passes += 1
            steps += work
            _update_state(heartbeat=clock.stamp(), passes=passes, last_work=len(work))
            if until_idle and not [w for w in work if w.get("outcome") not in IDLE_OUTCOMES]:
                break
            if max_passes is not None and passes >= max_passes:
                break
            if until_idle and passes >= MAX_IDLE_PASSES:
                break
            if not until_idle:
                _sleep_unless_stopped(interval)
    finally:
        channel.close()
        lifecycle.restore_signals(old_handlers)
        beating.set()
        _update_state(pid=None, heartbeat=clock.stamp(), stopped=clock.stamp(), expected=False, stop=False)
    return DaemonRun(passes=passes, steps=steps)


def _sleep_unless_stopped(interval: float) -> None:
    end = time.monotonic() + interval
    while time.monotonic() < end:
        if read_state().get("stop"):
            return
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))


def status() -> DaemonStatus:
    data = read_state()
    info = liveness(data)
    return DaemonStatus(
        running=info["running"],
        pid=info["pid"],
        started=data.get("started"),
        heartbeat=data.get("heartbeat"),
        heartbeat_age_s=info["heartbeat_age_s"],
        passes=data.get("passes", 0),
        stop_requested=bool(data.get("stop")),
        stale=info["stale"],
        state_file=str(state_path()),
    )


def report_heartbeat(repos: list[Path] | None = None) -> bool:
    """A daemon that should run but has no heartbeat shows in each repo's inbox (and clears when back)."""
    from hallmark.core.setup_repo import registered_repos

    info = status()
    key = f"daemon:stopped:{read_state().get('started', '')}"
    for root in repos if repos is not None else registered_repos():
        repo = _open(root)
        if repo is None:
            continue
        path = repo.paths.repo_journal
        with journal.locked(path):
            events = [e for e in journal.read(path).events if e.get("key") == key]
            shown = bool(events) and events[-1].get("event") == "inbox_entry"
            if info.stale and not shown:
                journal.append_unlocked(
                    path,
                    journal.make_event(
                        "inbox_entry",
                        None,
                        "watchman",
                        {
                            "kind": "daemon stopped",
                            "key": key,
                            "text": f"The daemon has no heartbeat since {info.heartbeat}.",
                            "for_item": None,
                            "next": ["hall daemon start", "hall daemon status"],
                        },
                    ),
                )
            elif not info.stale and shown:
                journal.append_unlocked(path, journal.make_event("inbox_cleared", None, "watchman", {"key": key}))
    return info.stale


def start(log_path: Path | None = None) -> DaemonAlreadyRunning | DaemonStarted:
    person_checks.require_key("hall daemon start")
    info = status()
    if info.running:
        return DaemonAlreadyRunning(**info.field_values())
    log_path = log_path or (user_data_dir() / "daemon.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from hallmark.core.loop.daemon import main; main()"],
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if read_state().get("pid") == proc.pid:
            break
        time.sleep(0.05)
    return DaemonStarted(**status().field_values(), started_pid=proc.pid, log=str(log_path))


def stop(wait_s: float = 10.0) -> DaemonStopped:
    person_checks.require_key("hall daemon stop")
    info = status()
    if not info.running:
        _update_state(stop=False, expected=False)
        return DaemonStopped(**info.field_values(), stopped=False)
    _update_state(stop=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and status().running:
        time.sleep(0.1)
    after = status()
    return DaemonStopped(**after.field_values(), stopped=not status().running)


def main() -> None:
    """The detached daemon's entry point (`hall daemon start` launches it)."""

    def log(line: str) -> None:
        sys.stdout.write(f"{clock.stamp()} {line}\n")
        sys.stdout.flush()

    def on_step(step: dict[str, Any]) -> None:
        sys.stdout.write(step_line(step) + "\n")
        sys.stdout.flush()

    run(until_idle=False, log=log, on_step=on_step)
