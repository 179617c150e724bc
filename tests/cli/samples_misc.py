"""Samples of the sweep, takeover, budget, diff and inbox-row results, for tests/cli/test_results.py:
one of each type (every optional key left out)."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results, sweep_results, takeover_results

KEPT = sweep_results.KeptWorktree(item="H-0002", state="dropped", worktree="/w2", why="it is the main checkout")
GONE = sweep_results.RemovedWorktree(item="H-0001", state="closed", worktree="/w", branch="b")

SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
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
