"""The review loop's commands: verdict, findings, fixed, next, usage, budget, daemon."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo

from . import cmd_meta
from .framework import add


def _item(repo, given: str | None) -> str:
    if not given and os.environ.get("HALL_ITEM") and items.item_for_path(repo, repo.cwd) is None:
        given = os.environ["HALL_ITEM"]
    return items.resolve(repo, given)


def cmd_verdict(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import review

    repo = open_repo()
    return review.person_verdict(repo, Path(args.file), args.id)


def cmd_findings(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import fix

    repo = open_repo()
    return fix.findings_report(repo, _item(repo, args.id))


def cmd_fixed(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import fix

    repo = open_repo()
    ids = list(args.ids)
    given = args.item
    if ids and ids[0].upper().startswith("H-"):
        given = given or ids.pop(0)
    disputes = list(args.dispute or [])
    reasons = list(args.reason or [])
    if len(reasons) != len(disputes):
        raise HallError("USAGE", "Each --dispute needs its own --reason.", ['hall fixed --dispute F-2 --reason "…"'])
    if not ids and not disputes:
        raise HallError("USAGE", "Name the findings the commit fixes (F-1 F-2), or --dispute one.",
                        ["hall findings", "hall fixed F-1"])
    return fix.mark_fixed(repo, _item(repo, given), ids, list(zip(disputes, reasons, strict=True)),
                          submit=not args.no_submit)


def cmd_next(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import daemon, leases

    repo = open_repo()
    found = daemon.candidates(repo, args.role)
    if args.item:
        wanted = items.resolve(repo, args.item)
        found = [v for v in found if v.id == wanted]
        if not found:
            view = items.fold_item(repo, wanted)
            raise HallError("WRONG_STATE", f"{wanted} is {view.state}{' (held)' if view.hold else ''}: no "
                                           f"{args.role} work there.", items.next_for(view))
    holder = args.holder or leases.default_holder(args.role)
    claimed_by: list[str] = []
    for view in found:
        try:
            # an agent's shell ends with each command: its lease lives by its lifetime (--ttl), not a pid
            lease = leases.acquire(repo, view.id, args.role, holder, ttl_s=args.ttl, pid=0)
        except HallError as exc:
            if exc.code != "CLAIMED":
                raise
            claimed_by.append(view.id)
            continue
        work = {"checks": "run the gates", "review": "review the frozen commit", "fixing": "fix the open findings",
                "hallmarked": "rebase and ship"}[view.state]
        return {"item": view.id, "state": view.state, "role": args.role, "work": work, "sha": view.sha,
                "worktree": view.worktree, "lease": lease,
                "next": [f"hall findings {view.id}" if view.state == "fixing" else f"hall status {view.id}"]}
    if claimed_by:
        raise HallError("CLAIMED", f"Every {args.role} item is claimed by another worker: {', '.join(claimed_by)}.",
                        ["hall daemon status", "try again later"])
    return {"item": None, "role": args.role, "work": None, "next": ["hall status --all", "hall inbox"]}


def cmd_usage(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import usage

    repo = open_repo()
    item = items.resolve(repo, args.item) if args.item else None
    return usage.report(repo, by=args.by, since=args.since, item=item)


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
    return result or budget.status(repo)


def cmd_daemon(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import daemon

    action = args.action
    if action == "status":
        daemon.report_heartbeat()
        return daemon.status()
    if action == "start":
        return daemon.start()
    if action == "stop":
        return daemon.stop()
    repos = [Path(os.path.realpath(p)) for p in args.repo] if args.repo else None
    if repos:
        for root in repos:
            open_repo(root)  # NOT_INITIALIZED early, with its next steps
    as_json = getattr(args, "as_json", True)

    def on_step(step: dict[str, Any]) -> None:
        """One line per step as it happens: readable on a terminal, a JSON line otherwise."""
        if as_json:
            line = json.dumps(dict(step, event="step"), ensure_ascii=False, default=str)
        else:
            line = daemon.step_line(step)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    result = daemon.run(until_idle=args.until_idle, interval=args.interval, repos=repos,
                        max_passes=args.max_passes, on_step=on_step)
    blocked = [s for s in result["steps"] if s.get("step") == "pass" and s.get("outcome") == "error"]
    if blocked:  # a repo the loop could not work in: say so in the exit code, and what to do
        result["_exit"] = 1
        result["next"] = list(dict.fromkeys([*blocked[0]["error"].get("next", []), *result["next"]]))
    return result


def text_daemon(result: dict[str, Any]) -> Any:
    """`hall daemon run` has printed its steps already: the summary only."""
    from rich.text import Text

    if "passes" in result:
        return Text(f"{result['passes']} pass(es), {len(result.get('steps', []))} step(s)")
    from .framework import generic_text

    return generic_text(result)


def cmd_verify(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.verify import verify

    return verify(Path.cwd(), args.ref, strict=args.strict)


def text_verify(result: dict[str, Any]) -> Any:
    from rich.text import Text

    mark = "✓" if result["journal"] == "checked" else "✓ (note only)"
    return Text(f"{mark} {result['ref']} {result['sha'][:12]}: {result['reason']}", style="green")


# -- readable text on a TTY (JSON stays the API) ------------------------------------------------


def text_findings(result: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [Text(f"{result['item']} · {result['state']} · round {result['round']} · "
                             f"{result['open']} open finding(s)", style="bold")]
    if result["findings"]:
        table = Table()
        for col in ("id", "status", "severity", "lens", "where", "scenario"):
            table.add_column(col)
        for f in result["findings"]:
            where = f"{f['file']}:{f['line']}" if f.get("line") is not None else str(f.get("file"))
            table.add_row(f["id"], f["status"], f["severity"], f["lens"], where, Text(f["scenario"]))
        parts.append(table)
    for check in result["failing_checks"]:
        parts.append(Text(f"✗ {check['command']} exited {check['exit_code']}", style="red"))
        parts.append(Text(str(check.get("output") or "")))
    return Group(*parts)


def text_usage(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"usage by {result['by']}" + (f" since {result['since'][:10]}" if result.get("since") else ""))
    for col in ("key", "runs", "input", "output", "cache read", "cache write", "cost (list)"):
        table.add_column(col, justify="left" if col == "key" else "right")
    for row in [*result["rows"], dict(result["total"], key="total")]:
        table.add_row(str(row["key"]), str(row["runs"]), f"{row['input_tokens']:,}", f"{row['output_tokens']:,}",
                      f"{row['cache_read_tokens']:,}", f"{row['cache_write_tokens']:,}", f"${row['cost_usd']:.2f}")
    return table


def text_budget(result: dict[str, Any]) -> Any:
    from rich.table import Table

    def cap(value: Any) -> str:
        return "none" if value is None else f"{value:,}"

    daily = result["daily"]
    table = Table(title=f"budget for {result['day']}" + (" · PAUSED" if daily["paused"] else ""))
    for col in ("level", "used", "cap", "note"):
        table.add_column(col)
    table.add_row("daily total", f"{daily['used']:,}", cap(daily["limit"]),
                  f"granted {daily['granted']:,}" if daily["granted"] else "")
    for role, room in result["rooms"].items():
        note = f"max ${room['max_usd_per_run']:g} a run" if room["max_usd_per_run"] is not None else "no per-run cap"
        table.add_row(f"room {role}", f"{room['used']:,}", cap(room["daily"]), note + (" · closed" if room["closed"] else ""))
    for entry in result["per_item"]["items"]:
        table.add_row(f"item {entry['item']}", f"{entry['tokens']:,}", cap(entry["allowance"]),
                      "held (budget)" if entry["held"] else "")
    return table


def register(sub: argparse._SubParsersAction) -> None:
    from hallmark.core.loop import verdict

    cmd_meta.SCHEMAS["verdict"] = verdict.schema

    p = add(sub, "verdict", cmd_verdict, "Record a person's schema-checked verdict (a human override; refused to agents).")
    p.add_argument("id", nargs="?", help="the item (default: the file's `item`, else this worktree's)")
    p.add_argument("--file", required=True, help="a JSON verdict (hall schema verdict)")

    p = add(sub, "verify", cmd_verify, "Does a commit carry a valid hallmark? (exit 5 when not; for CI and reviewers)",
            text=text_verify)
    p.add_argument("ref", nargs="?", default="HEAD", help="a commit, branch or tag (default HEAD)")
    p.add_argument("--strict", action="store_true",
                   help="also require the journal that proves the loop struck it (only where the loop ran)")

    p = add(sub, "findings", cmd_findings, "Open findings and failing checks of an item.", text=text_findings)
    p.add_argument("id", nargs="?")

    p = add(sub, "fixed", cmd_fixed, "Record what the commit fixes (and disputes), then resubmit to checks.")
    p.add_argument("ids", nargs="*", help="finding ids (F-1 F-2); an item id may come first")
    p.add_argument("--item")
    p.add_argument("--dispute", action="append", help="a finding you believe is wrong (with --reason)")
    p.add_argument("--reason", action="append", help="why the disputed finding is wrong")
    p.add_argument("--no-submit", action="store_true", help="record only; more commits follow")

    p = add(sub, "next", cmd_next, "Claim the next item for a role, with a lease (CLAIMED, exit 7, when taken).")
    p.add_argument("--role", required=True, choices=["assayer", "fixer", "shipper"])
    p.add_argument("--item", help="claim this item only")
    p.add_argument("--holder", help="who holds the lease (default: role@host:pid)")
    p.add_argument("--ttl", type=float, default=900.0, help="lease lifetime in seconds")

    p = add(sub, "usage", cmd_usage, "Tokens and list-price cost of every model run.", text=text_usage)
    p.add_argument("--by", default="item", choices=["item", "room", "role", "model", "day"])
    p.add_argument("--since", help="a duration (7d, 24h) or a date (2026-11-01)")
    p.add_argument("--item")

    p = add(sub, "budget", cmd_budget, "The budget caps and today's spend; --set a cap, --grant past the daily cap.",
            text=text_budget)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="daily=4M, per_item=800k, review.max_usd=3")
    p.add_argument("--grant", nargs="?", const="", default=None, metavar="TOKENS",
                   help="let the loop go past the daily cap today (default: another `daily`)")

    p = add(sub, "daemon", cmd_daemon, "The review loop over every registered repo: start, stop, status, run "
            "(run prints one line per step as it happens: readable on a terminal, JSON lines otherwise, the "
            "summary last).", text=text_daemon)
    p.add_argument("action", choices=["start", "stop", "status", "run"])
    p.add_argument("--until-idle", action="store_true", help="run passes in the foreground until no work is left")
    p.add_argument("--interval", type=float, default=10.0, help="seconds between passes")
    p.add_argument("--max-passes", type=int, default=None)
    p.add_argument("--repo", action="append", help="only this repo (repeatable; default: every registered repo)")
