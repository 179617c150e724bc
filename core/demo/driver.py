"""`hall demo`: build a throwaway repository and drive it through the real loop with the stand-in.

The demo never touches the person's own registry, daemon or repositories: its data dir is its own,
and only its `.hallmark.toml` names the stand-in (`[runner] claude`). Everything the stand-in does
is a real run (`runs/*.jsonl`, `run_started`/`usage`/`run_ended` with actor "<role> (stand-in)",
model "hallmark-standin", cost 0). What a person would decide (ready, drop, reject a learning) the
demo does on the person's behalf as the actor "you (demo)" (the memory store takes only "you").
The scenes are played here; the base directory and the project they play on are workspace.py's.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallmark.core import items, journal, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

if TYPE_CHECKING:
    from hallmark.core.loop.results import DaemonRun

from . import scenario
from .results import (
    DemoLearning,
    DemoLearnings,
    DemoMerged,
    DemoModelUsage,
    DemoPending,
    DemoPlace,
    DemoRefused,
    DemoRun,
    DemoStory,
    DemoTombstone,
    DemoUsage,
)
from .workspace import (
    PROJECT,
    STANDIN,
    Demo,
    create,
    demo_env,
    init_repo,
    remove,
    set_pace,
    write_project,
    write_script,
)

PERSON = "you (demo)"  # the person's steps, taken by the demo on their behalf
Progress = Callable[[str], None]


def dev_run(repo: Repo, item_id: str, story: scenario.Story) -> None:
    """A headless developer run (the stand-in): it writes the change, runs the tests, commits, and
    proposes the item as ready or asks the person a question, with the real `hall` commands."""
    from hallmark.core.runner import spawn

    view = items.fold_item(repo, item_id)
    prompt = (
        f"# Develop {item_id}: {story.title}\n\n{story.request}\n\n"
        f"Work in {view.worktree} on branch {view.branch}. Commit, run the tests, then "
        f'`hall propose-ready --summary "…"`, or `hall ask` when a decision is the person\'s.\n'
    )
    result = spawn.run(
        repo,
        spawn.RunSpec(
            role="dev", prompt=prompt, cwd=Path(view.worktree), item_id=item_id, permission_mode="acceptEdits"
        ),
    )
    if not result.ok:
        raise HallError(
            "RUN_FAILED",
            f"The demo's stand-in developer run for {item_id} failed: {result.failure}.",
            [f"hall trace {item_id}", "hall demo --keep"],
        )


def advance(repo: Repo, item_id: str, target: str, limit: int = 20) -> states.ItemView:
    """Take the daemon's own steps (checks, review, fix) on one item until it reaches target."""
    from hallmark.core.loop import daemon, leases

    for _ in range(limit):
        view = items.fold_item(repo, item_id)
        if view.state == target or view.state not in daemon.STEPS or view.hold:
            return view
        role, step, _model_role = daemon.STEPS[view.state]
        with leases.held(repo, item_id, role, holder="hall-demo"):
            step(repo, view)
    return items.fold_item(repo, item_id)


def build(demo: Demo, progress: Progress | None = None) -> dict[str, Any]:
    """The scripted part (the stand-in at pace 0): every story reaches its outcome. Returns what the
    memory store said to each proposal."""
    say = progress or (lambda _text: None)
    say(f"writing {PROJECT}, a small Python project with a unittest suite, in {demo.root}")
    write_project(demo)
    init_repo(demo)
    repo = demo.repo()
    say("hall init done; creating six items")
    for story in scenario.STORIES:
        created = items.new(repo, title=story.title, request=story.request, actor=PERSON)
        demo.ids[story.key] = created.item
    write_script(demo, 0.0)
    ids = demo.ids
    working = ("approved", "rejected", "escalated", "question", "dropped")
    say("the stand-in developer works on five of them (" + ", ".join(ids[k] for k in working) + ")")
    with ThreadPoolExecutor(max_workers=3) as pool:  # independent items: their runs may overlap
        for done in [pool.submit(dev_run, demo.repo(), ids[k], scenario.STORY[k]) for k in working]:
            done.result()
    for key in ("approved", "rejected", "escalated"):
        items.ready(repo, ids[key], actor=PERSON)
    items.drop(repo, ids["dropped"], reason=scenario.DROP_REASON, actor=PERSON)
    say("the loop: checks (the real unittest suite), the stand-in reviewer and fixer")
    advance(repo, ids["approved"], states.HALLMARKED)
    advance(repo, ids["rejected"], states.FIXING)
    advance(repo, ids["escalated"], states.ESCALATED)
    say("the librarian (the stand-in) proposes learnings to the memory store")
    learned = propose_learnings(repo, ids)
    return learned


def propose_learnings(repo: Repo, ids: dict[str, str]) -> dict[str, Any]:
    """Two librarian runs through the real memory store; between them the person rejects one."""
    from hallmark.core.memory import api as library
    from hallmark.core.memory import distill

    first = distill.distill(repo, ids["dropped"])
    rejected = []
    for entry in first.proposed:
        learning = library.reject(repo, entry.id, scenario.FLOAT_REJECTION, actor="you")
        rejected.append({"id": learning.id, "pattern": learning.pattern, "reason": learning.reason})
    second = distill.distill(repo, ids["rejected"])
    return {"runs": [first.run, second.run], "rejected_first": rejected, "replies": second}


# -- the live part --------------------------------------------------------------------------------


def run_until_idle(demo: Demo) -> DaemonRun:
    """The daemon's passes in the foreground until no work is left (the scripted demo)."""
    from hallmark.core.loop import daemon

    return daemon.run(until_idle=True, repos=[demo.root])


class Background:
    """The daemon in a child process of its own, on the demo's repository only, while the app is open.

    Not a thread of the app: the loop's work (checks, git, the stand-in's runs) never competes with
    the app's keys for the interpreter, and an error in the loop cannot take the app down. It reads
    the demo's environment (its data dir, the stand-in script) from this process's, and stops on
    the daemon's own stop flag (in that data dir), or at worst with its process group.
    """

    def __init__(self, demo: Demo, interval: float = 1.0) -> None:
        self.demo = demo
        self.interval = interval
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        return self.demo.data_dir / "daemon.log"

    def start(self) -> None:
        self.demo.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hallmark.core.demo.background", str(self.demo.root), str(self.interval)],
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=dict(os.environ),
            )

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, wait_s: float = 30.0, *, end_live_runs: bool = False) -> None:
        """Ask the daemon to stop after its current step (the stand-in's pace drops to 0 first).
        With end_live_runs (the demo is about to be removed), a stand-in run still streaming is
        ended too, so quitting does not wait for it."""
        from hallmark.core.loop import daemon

        if self.proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            set_pace(self.demo, 0.0)
        daemon.stop(wait_s=0.2)  # raises the stop flag: no new pass starts
        if end_live_runs:
            end_runs(self.demo)
        daemon.stop(wait_s=wait_s)
        try:
            self.proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            import signal

            for sig in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, sig)
                try:
                    self.proc.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue


def end_runs(demo: Demo) -> list[str]:
    """Stop the demo's live stand-in runs (their process groups); the runner records them as ended."""
    import signal

    from hallmark.core.runs import live_runs

    ended = []
    repo = demo.repo()
    for item_id in demo.ids.values():
        for run in live_runs(repo.paths, item_id):
            started = [
                e
                for e in items.item_events(repo, item_id)
                if e.get("event") == "run_started" and e.get("run") == run.name and e.get("pid")
            ]
            for event in started[-1:]:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(event["pid"]), signal.SIGTERM)
                    ended.append(run.name)
    return ended


# -- what happened --------------------------------------------------------------------------------


def summary(
    demo: Demo, learned: dict[str, Any] | None, outcomes: dict[str, str], *, kept: bool, journal_lines: int
) -> DemoRun:
    """The journal summary: each item's story, where the scripted part left it and where it is now,
    what the memory store did with each proposal, and the stand-in's usage (zero cost)."""
    from hallmark.core.loop import usage

    repo = demo.repo()
    stories = []
    ok = True
    for story in scenario.STORIES:
        item_id = demo.ids.get(story.key)
        if item_id is None:
            continue
        view = items.fold_item(repo, item_id)
        events = items.item_events(repo, item_id)
        reached = outcomes.get(story.key, "")
        ok = ok and reached == story.outcome
        hallmarked = [e for e in events if e.get("event") == "hallmarked"]
        stories.append(
            DemoStory(
                item=item_id,
                story=story.key,
                title=story.title,
                what=story.words,
                expected=story.outcome,
                outcome=reached,
                state=view.state,
                round=view.round,
                rejects=view.rejects,
                hold=view.hold or None,
                events=len(events),
                actors=sorted({str(e.get("actor")) for e in events}),
                runs=[e.get("run") for e in events if e.get("event") == "run_started"],
                open_questions=view.open_questions,
                hallmark_sha=hallmarked[-1].get("sha") if hallmarked else None,
            )
        )
    report = usage.report(repo, by="model")
    learnings = _learnings(repo, learned)
    ok = ok and bool(learnings.refused) and bool(learnings.tombstone) and bool(learnings.merged)
    return DemoRun(
        demo=DemoPlace(
            base=str(demo.base),
            repo=str(demo.root),
            data_dir=str(demo.data_dir),
            seconds=round(time.monotonic() - demo.started, 1),
            standin=STANDIN,
            model="hallmark-standin (no model ran)",
            kept=kept,
        ),
        ok=ok,
        items=tuple(stories),
        learnings=learnings,
        usage=DemoUsage(
            runs=report.total.runs,
            tokens=report.total.tokens,
            cost_usd=report.total.cost_usd,
            by_model=tuple(
                DemoModelUsage(model=r.key, runs=r.runs, standin_runs=r.standin_runs, cost_usd=r.cost_usd)
                for r in report.rows
            ),
        ),
        journal_lines=journal_lines,
    )


def _learnings(repo: Repo, learned: dict[str, Any] | None) -> DemoLearnings:
    from hallmark.core.memory import api as library

    replies = (learned or {}).get("replies")
    proposed: list[DemoLearning] = []
    merged: list[DemoMerged] = []
    tombstone: list[DemoTombstone] = []
    for entry in replies.proposed if replies is not None else ():
        learning = library.get(repo, entry.id)
        row: dict[str, Any] = {
            "id": learning.id,
            "kind": learning.kind,
            "pattern": learning.pattern,
            "status": learning.status,
            "occurrences": learning.occurrences,
        }
        if entry.previously_rejected:
            tomb = library.tombstone_for(repo, learning.id)
            tombstone.append(
                DemoTombstone(
                    **row,
                    landed_on_tombstone=tomb.id if tomb else None,
                    rejected_because=tomb.reason if tomb else None,
                    reproposed=tomb.reproposed if tomb else None,
                )
            )
        elif entry.merged:
            merged.append(
                DemoMerged(merged_into=learning.id, pattern=learning.pattern, occurrences=learning.occurrences)
            )
        else:
            proposed.append(DemoLearning(**row))
    skipped = replies.skipped if replies is not None else []
    return DemoLearnings(
        proposed=tuple(proposed),
        merged=tuple(merged),
        refused=tuple(DemoRefused(code=s.get("code"), why=s.get("why")) for s in skipped),
        tombstone=tuple(tombstone),
        rejected_earlier=(learned or {}).get("rejected_first", []),
        pending=tuple(
            DemoPending(id=x.id, kind=x.kind, pattern=x.pattern, occurrences=x.occurrences)
            for x in library.pending(repo)
        ),
        librarian_runs=(learned or {}).get("runs", []),
    )


def outcomes_now(demo: Demo) -> dict[str, str]:
    repo = demo.repo()
    return {key: items.fold_item(repo, item_id).state for key, item_id in demo.ids.items()}


def journal_lines(demo: Demo) -> int:
    """How many journal lines the demo wrote (a figure for the summary and the benchmark)."""
    repo = demo.repo()
    total = len(journal.read(repo.paths.repo_journal).events)
    for item_id in demo.ids.values():
        total += len(journal.read(repo.paths.item_journal(item_id)).events)
    return total


def run_script(
    where: str | None = None, *, keep: bool = False, progress: Progress | None = None, daemon_after: bool = True
) -> DemoRun:
    """`hall demo --script`: the scripted part, then the daemon until idle; the summary; cleanup."""
    demo = create(where)
    try:
        with demo_env(demo):
            learned = build(demo, progress)
            outcomes = outcomes_now(demo)
            if daemon_after:
                if progress:
                    progress("the daemon takes over until no work is left")
                run_until_idle(demo)
            result = summary(demo, learned, outcomes, kept=keep, journal_lines=journal_lines(demo))
    except BaseException:
        if not keep:
            remove(demo)
        raise
    if not keep:
        remove(demo)
    return result
