"""Samples of the sweep, takeover, budget, diff and inbox-row results, for tests/cli/test_results.py:
one of each type (every optional key left out)."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import diff_results, inbox_results, results, sweep_results, takeover_results
from hallmark.core.loop import budget_results as budget

ENTRY = inbox_results.InboxEntry(
    kind="ready?",
    item="H-0001",
    since="t",
    text="t: ready?",
    key="ready:H-0001",
    fingerprint="f",
    next=("hall ready 1",),
)
QUESTION = inbox_results.QuestionEntry(
    **{**ENTRY.to_dict(), "kind": "question", "item": None, "key": "Q-1", "next": ("hall answer Q-1 <answer>",)},
    qid="Q-1",
    options=["a", "b"],
    default=None,
)
ROOM = budget.RoomBudget(used=0, daily=None, max_usd_per_run=None, closed=False)
LINE = diff_results.DiffLine.of("+", "x = 1", None, 1)
HUNK = diff_results.Hunk(
    header="@@ -0,0 +1 @@", old_start=0, old_count=0, new_start=1, new_count=1, section="", lines=[LINE], findings=[]
)
FILE = diff_results.FileDiff(
    path="a.py", old_path="", status="untracked", added=1, removed=0, binary=False, hunks=[HUNK], findings=[]
)
DIFF = diff_results.Diff(
    item="H-0001",
    base="main",
    merge_base="abc",
    head="def",
    worktree="/w",
    ignore_whitespace=False,
    files=[FILE],
    added=1,
    removed=0,
    unanchored_findings=[],
)
KEPT = sweep_results.KeptWorktree(item="H-0002", state="dropped", worktree="/w2", why="it is the main checkout")
GONE = sweep_results.RemovedWorktree(item="H-0001", state="closed", worktree="/w", branch="b")

SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    diff_results.DiffLine: lambda: LINE,
    diff_results.Hunk: lambda: HUNK,
    diff_results.FileDiff: lambda: FILE,
    diff_results.FileStat: lambda: DIFF.stat().files[0],
    diff_results.Diff: lambda: DIFF,
    diff_results.DiffStat: DIFF.stat,
    budget.BudgetStatus: lambda: budget.BudgetStatus(
        day="2026-12-01",
        daily=budget.DailyBudget(cap=None, granted=0, limit=None, used=3, cost_usd=0.1, remaining=None, paused=False),
        per_item=budget.PerItemBudget(
            cap=1000, items=(budget.ItemBudget(item="H-0001", tokens=3, allowance=1000, held=False),)
        ),
        rooms=budget.RoomBudgets(review=ROOM, fix=ROOM, intake=ROOM, librarian=ROOM, dev=ROOM),
    ),
    inbox_results.InboxEntry: lambda: ENTRY,
    inbox_results.QuestionEntry: lambda: QUESTION,
    inbox_results.Notice: lambda: inbox_results.Notice(kind="notice", item=None, since=None, text="n"),
    inbox_results.NoticeList: lambda: inbox_results.NoticeList(
        notices=(inbox_results.Notice(kind="stuck", item="H-0001", since="t", text="n"),), count=1
    ),
    inbox_results.InboxDismissed: lambda: inbox_results.InboxDismissed(dismissed=["ready:H-0001"]),
    sweep_results.Swept: lambda: sweep_results.Swept(removed=(GONE,), kept=(KEPT,)),
    sweep_results.SweepPreview: lambda: sweep_results.SweepPreview(would_remove=(GONE,), kept=()),
    takeover_results.Takeover: lambda: takeover_results.Takeover(
        item="H-0001",
        run="r.jsonl",
        session_id="s",
        command=["claude", "--resume", "s"],
        cwd="/w",
        env={"HALL_ITEM": "H-0001"},
        stopped=False,
        lease_released=False,
        pulled_back=False,
        shell="cd /w && claude --resume s",
    ),
}
