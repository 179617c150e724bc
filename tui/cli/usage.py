"""Tokens and list-price cost: usage, budget, cost.

Each command is declared on its handler, with its arguments; its summary is in commands.py."""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.loop.budget_results import BudgetStatus
from hallmark.core.repo import open_repo
from hallmark.core.run_results import CostBreakdown, UsageReport

from .framework import arg, command


def text_usage(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"usage by {result['by']}" + (f" since {result['since'][:10]}" if result.get("since") else ""))
    for col in ("key", "runs", "input", "output", "cache read", "cache write", "cost (list)"):
        table.add_column(col, justify="left" if col == "key" else "right")
    for row in [*result["rows"], dict(result["total"], key="total")]:
        table.add_row(
            str(row["key"]),
            str(row["runs"]),
            f"{row['input_tokens']:,}",
            f"{row['output_tokens']:,}",
            f"{row['cache_read_tokens']:,}",
            f"{row['cache_write_tokens']:,}",
            f"${row['cost_usd']:.2f}",
        )
    return table


@command(
    "usage",
    text=text_usage,
    replies=(UsageReport,),
    args=[
        arg("--by", default="item", choices=["item", "room", "role", "model", "day"]),
        arg("--since", help="a duration (7d, 24h) or a date (2026-11-01)"),
        arg("--item"),
    ],
)
def cmd_usage(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import usage

    repo = open_repo()
    item = items.resolve(repo, args.item) if args.item else None
    found = usage.report(repo, by=args.by, since=args.since, item=item)
    nxt = [*[f"hall usage --by {g}" for g in usage.GROUPINGS if g != found.by][:3], "hall budget"]
    return {**found.to_dict(), "next": nxt}


def text_budget(result: dict[str, Any]) -> Any:
    from rich.table import Table

    def cap(value: Any) -> str:
        return "none" if value is None else f"{value:,}"

    daily = result["daily"]
    table = Table(title=f"budget for {result['day']}" + (" · PAUSED" if daily["paused"] else ""))
    for col in ("level", "used", "cap", "note"):
        table.add_column(col)
    table.add_row(
        "daily total",
        f"{daily['used']:,}",
        cap(daily["limit"]),
        f"granted {daily['granted']:,}" if daily["granted"] else "",
    )
    for role, room in result["rooms"].items():
        note = f"max ${room['max_usd_per_run']:g} a run" if room["max_usd_per_run"] is not None else "no per-run cap"
        table.add_row(
            f"room {role}", f"{room['used']:,}", cap(room["daily"]), note + (" · closed" if room["closed"] else "")
        )
    for entry in result["per_item"]["items"]:
        table.add_row(
            f"item {entry['item']}",
            f"{entry['tokens']:,}",
            cap(entry["allowance"]),
            "held (budget)" if entry["held"] else "",
        )
    return table


@command(
    "budget",
    text=text_budget,
    replies=(BudgetStatus,),
    args=[
        arg("--set", action="append", metavar="KEY=VALUE", help="daily=4M, per_item=800k, review.max_usd=3"),
        arg(
            "--grant",
            nargs="?",
            const="",
            default=None,
            metavar="TOKENS",
            help="let the loop go past the daily cap today (default: another `daily`)",
        ),
    ],
)
def cmd_budget(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.config import parse_tokens
    from hallmark.core.loop import budget

    repo = open_repo()
    result = None
    for assignment in args.set or []:
        result = budget.set_value(repo, assignment)
    if args.grant is not None:
        tokens = None
        if args.grant != "":
            try:
                tokens = parse_tokens(args.grant)
            except ValueError as exc:
                raise HallError("USAGE", str(exc), ["hall budget --grant 2M"]) from exc
        result = budget.grant(repo, tokens)
    found = result or budget.status(repo)
    return {**found.to_dict(), "next": ["hall usage --by role", "hall budget --grant", "hall budget --set daily=4M"]}


@command("cost", replies=(CostBreakdown,), args=[arg("id", nargs="?")])
def cmd_cost(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.waiting import cost_breakdown

    repo = open_repo()
    costs = cost_breakdown(repo, items.resolve(repo, args.id))
    return {**costs.to_dict(), "next": [f"hall status {costs.item}", f"hall trace {costs.item}"]}
