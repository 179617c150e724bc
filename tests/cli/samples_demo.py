"""Samples of `hall demo`'s results, for tests/cli/test_results.py (the real reply is checked by
tests/demo/test_script.py, which runs the whole scripted demo)."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results
from hallmark.core.demo import results as demo

STORY = demo.DemoStory(
    item="H-0001",
    story="approved",
    title="t",
    what="w",
    expected="hallmarked",
    outcome="hallmarked",
    state="closed",
    round=1,
    rejects=0,
    hold=None,
    events=9,
    actors=["you (demo)"],
    runs=[],
    open_questions=[],
)
LEARNINGS = demo.DemoLearnings(
    proposed=(demo.DemoLearning(id="L-1", kind="pattern", pattern="p", status="proposed", occurrences=1),),
    merged=(demo.DemoMerged(merged_into="L-1", pattern="p", occurrences=2),),
    refused=(demo.DemoRefused(code="SECRET_REFUSED", why="a GitHub token"),),
    tombstone=(
        demo.DemoTombstone(
            id="L-2",
            kind="pattern",
            pattern="q",
            status="rejected",
            occurrences=2,
            landed_on_tombstone="L-2",
            rejected_because="no",
            reproposed=1,
        ),
    ),
    rejected_earlier=[],
    pending=(demo.DemoPending(id="L-1", kind="pattern", pattern="p", occurrences=2),),
    librarian_runs=[],
)
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    demo.DemoRun: lambda: demo.DemoRun(
        demo=demo.DemoPlace(
            base="/tmp/d",
            repo="/tmp/d/repo",
            data_dir="/tmp/d/data",
            seconds=1.5,
            standin="hall-standin-claude",
            model="hallmark-standin (no model ran)",
            kept=False,
        ),
        ok=True,
        items=(STORY,),
        learnings=LEARNINGS,
        usage=demo.DemoUsage(
            runs=1,
            tokens=0,
            cost_usd=0.0,
            by_model=(demo.DemoModelUsage(model="hallmark-standin", runs=1, standin_runs=1, cost_usd=0.0),),
        ),
        journal_lines=40,
    ),
    demo.DemoKept: lambda: demo.DemoKept(demo="/tmp/d", repo="/tmp/d/repo"),
    demo.DemoRemoved: lambda: demo.DemoRemoved(demo="/tmp/d"),
}
