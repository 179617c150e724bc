"""What the run listings, the cost of an item and `hall usage` answer: typed results (core/results.py).

Apart from core/runs.py, which the hook path imports (dataclasses would pull in `inspect`): the
listing imports this when it describes runs.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .results import Result


class RunSummary(Result):
    """One headless run as `hall trace --list` and an item's Runs tab show it (run 1 is the oldest)."""

    file: str
    name: str
    item: str | None
    role: str
    started: str
    duration_ms: int | None
    exit_code: int | None
    tokens: int
    cost_usd: float
    model: str
    outcome: str  # live, ok, died, finished, or "failed: <why>"
    detail: str
    failure: str | None
    live: bool
    lines: int
    session_id: str | None
    cwd: str | None
    run: int  # its number in the listing: 1 = oldest


class RunListing(Result):
    """`hall trace --list`: every run of an item (or of the repository, item null), oldest first."""

    item: str | None
    runs: tuple[RunSummary, ...]


class UsageTotals(Result):
    """Tokens and list-price cost summed over some runs."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    runs: int = 0


class RoundUsage(UsageTotals):
    """One round's usage (round 0: before the first review)."""

    FIRST: ClassVar[tuple[str, ...]] = ("round",)

    round: int


class CostBreakdown(Result):
    """`hall cost`: an item's tokens and list-price cost per run, per round and in total. A run's row
    keeps what its events said (role, model, round, exit code, …), so it stays a dict."""

    item: str
    runs: list[dict[str, Any]]
    rounds: tuple[RoundUsage, ...]
    total: UsageTotals


class UsageSum(Result):
    """Tokens, list-price cost and runs summed over usage events (`hall usage`'s total)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    runs: int
    tokens: int


class UsageRow(UsageSum):
    """One group's usage (an item, room, role, model or day); standin_runs: runs of the demo's
    stand-in, which cost nothing."""

    FIRST: ClassVar[tuple[str, ...]] = ("key",)

    key: str
    standin_runs: int


class UsageReport(Result):
    """`hall usage`: usage grouped by item, room, role, model or day (since: the window's start)."""

    by: str
    since: str | None
    rows: tuple[UsageRow, ...]
    total: UsageSum
