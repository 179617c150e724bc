"""Samples of the item, inbox, findings, run and usage results, for tests/cli/test_results.py:
one of each type, built from a real folded view (every optional key left out)."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import item_results, results, run_results
from hallmark.core.loop import findings
from hallmark.core.states import ItemView

VIEW = ItemView("H-0001", title="t", state="development", branch="b", worktree="/w", base="main")
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    item_results.ItemResult: lambda: item_results.ItemResult.of(VIEW),
    item_results.Adopted: lambda: item_results.Adopted.adopting(VIEW, True),
    item_results.AlreadyReady: lambda: item_results.AlreadyReady.again(VIEW),
    item_results.Dropped: lambda: item_results.Dropped.dropping(VIEW, False, "kept", False),
    item_results.ItemDetail: lambda: item_results.ItemDetail.detail(VIEW),
    item_results.StatusAll: lambda: item_results.StatusAll(
        items=(item_results.ItemResult.of(VIEW),), counts={"development": 1}, by_state={"development": ["H-0001"]}
    ),
    item_results.ItemLog: lambda: item_results.ItemLog(item="H-0001", events=[]),
    item_results.Asked: lambda: item_results.Asked(
        qid="Q-1", item=None, question="q", options=[], default=None, wait=None
    ),
    item_results.AskedAndWaited: lambda: item_results.AskedAndWaited(
        qid="Q-1",
        item=None,
        question="q",
        options=[],
        default=None,
        wait="1s",
        answer=None,
        answered_by=None,
        defaulted=False,
    ),
    item_results.NewOpened: lambda: item_results.NewOpened(
        **item_results.ItemResult.fields_of(VIEW),
        opened=item_results.SessionOpened(
            item="H-0001", command=["claude"], cwd="/w", env={}, yolo=False, sandbox={"enabled": False}, exit_code=0
        ),
    ),
    item_results.Answered: lambda: item_results.Answered(qid="Q-1", item=None, answer="a"),
    item_results.InboxReport: lambda: item_results.InboxReport(entries=(), count=0),
    item_results.WaitingSummary: lambda: item_results.WaitingSummary(items=(), waiting=[], waiting_count=0),
    run_results.UsageReport: lambda: run_results.UsageReport(
        by="item",
        since=None,
        rows=(
            run_results.UsageRow(
                key="H-0001",
                input_tokens=1,
                output_tokens=1,
                cache_read_tokens=0,
                cache_write_tokens=0,
                cost_usd=0.1,
                runs=1,
                tokens=2,
                standin_runs=0,
            ),
        ),
        total=run_results.UsageSum(
            input_tokens=1,
            output_tokens=1,
            cache_read_tokens=0,
            cache_write_tokens=0,
            cost_usd=0.1,
            runs=1,
            tokens=2,
        ),
    ),
    findings.FindingsReport: lambda: findings.FindingsReport(
        item="H-0001",
        state="fixing",
        round=1,
        open=1,
        failing_checks=[],
        view=VIEW,
        findings=(
            findings.Finding(
                id="F-1",
                lens="correctness",
                severity="major",
                file="a.py",
                line=3,
                title="t",
                scenario="s",
                suggestion=None,
                status="open",
                round=1,
                sha="abc",
                raised_by="assayer",
                human_override=False,
                confirmed=False,
                fixed_in=None,
                dispute=None,
            ),
        ),
    ),
    run_results.RunListing: lambda: run_results.RunListing(item=None, runs=(_run(),)),
    run_results.CostBreakdown: lambda: run_results.CostBreakdown(
        item="H-0001",
        runs=[],
        rounds=(
            run_results.RoundUsage(
                round=1,
                input_tokens=1,
                output_tokens=2,
                cache_read_tokens=0,
                cache_write_tokens=0,
                tokens=3,
                cost_usd=0.5,
                runs=1,
            ),
        ),
        total=run_results.UsageTotals(tokens=3, cost_usd=0.5, runs=1),
    ),
}


def _run() -> run_results.RunSummary:
    return run_results.RunSummary(
        file="/r/x.jsonl",
        name="x.jsonl",
        item=None,
        role="review",
        started="t",
        duration_ms=None,
        exit_code=None,
        tokens=0,
        cost_usd=0.0,
        model="",
        outcome="live",
        detail="",
        failure=None,
        live=True,
        lines=1,
        session_id=None,
        cwd=None,
        run=1,
    )
