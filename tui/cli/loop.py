"""The review loop: findings, fixed, verdict, verify, next, daemon.

Each command is declared on its handler, with its arguments; its summary is in commands.py."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.loop.findings import FindingsReport
from hallmark.core.loop.results import (
    Claimed,
    DaemonAlreadyRunning,
    DaemonRun,
    DaemonStarted,
    DaemonStatus,
    DaemonStopped,
    FixRecorded,
    NothingToClaim,
    VerdictHallmarked,
    VerdictReturned,
)
from hallmark.core.next_steps import next_for
from hallmark.core.repo import open_repo
from hallmark.core.verify import Verified

from .framework import arg, command, with_next


def _item(repo, given: str | None) -> str:
    if not given and os.environ.get("HALL_ITEM") and items.item_for_path(repo, repo.cwd) is None:
        given = os.environ["HALL_ITEM"]
    return items.resolve(repo, given)


@command(
    "verdict",
    replies=(VerdictHallmarked, VerdictReturned),
    args=[
        arg("id", nargs="?", help="the item (default: the file's `item`, else this worktree's)"),
        arg("--file", required=True, help="a JSON verdict (hall schema verdict)"),
    ],
)
def cmd_verdict(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import review

    repo = open_repo()
    result = review.person_verdict(repo, Path(args.file), args.id)
    return {**result.to_dict(), "next": next_for(result.view)}


def text_findings(result: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [
        Text(
            f"{result['item']} · {result['state']} · round {result['round']} · {result['open']} open finding(s)",
            style="bold",
        )
    ]
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


@command("findings", text=text_findings, replies=(FindingsReport,), args=[arg("id", nargs="?")])
def cmd_findings(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import fix

    repo = open_repo()
    report = fix.findings_report(repo, _item(repo, args.id))
    return {**report.to_dict(), "next": fix.findings_next(report)}


def fixed_next(result: FixRecorded) -> list[str]:
    """After `hall fixed`: follow the resubmitted item, or record more before submitting."""
    if result.submitted:
        return [f"hall status {result.item}", f"hall trace {result.item} --follow"]
    return [f"hall fixed {result.item} <more ids>", f"hall findings {result.item}"]


@command(
    "fixed",
    replies=(FixRecorded,),
    args=[
        arg("ids", nargs="*", help="finding ids (F-1 F-2); an item id may come first"),
        arg("--item"),
        arg("--dispute", action="append", help="a finding you believe is wrong (with --reason)"),
        arg("--reason", action="append", help="why the disputed finding is wrong"),
        arg("--no-submit", action="store_true", help="record only; more commits follow"),
    ],
)
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
        raise HallError(
            "USAGE",
            "Name the findings the commit fixes (F-1 F-2), or --dispute one.",
            ["hall findings", "hall fixed F-1"],
        )
    result = fix.mark_fixed(
        repo, _item(repo, given), ids, list(zip(disputes, reasons, strict=True)), submit=not args.no_submit
    )
    return {**result.to_dict(), "next": fixed_next(result)}


def claim_next(result: Claimed | NothingToClaim) -> list[str]:
    """After `hall next`: look at the claimed item (its findings, when it is being fixed)."""
    if isinstance(result, NothingToClaim):
        return ["hall status --all", "hall inbox"]
    return [f"hall findings {result.item}" if result.state == "fixing" else f"hall status {result.item}"]


@command(
    "next",
    replies=(Claimed, NothingToClaim),
    args=[
        arg("--role", required=True, choices=["assayer", "fixer", "shipper"]),
        arg("--item", help="claim this item only"),
        arg("--holder", help="who holds the lease (default: role@host:pid)"),
        arg("--ttl", type=float, default=900.0, help="lease lifetime in seconds"),
    ],
)
def cmd_next(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import claim

    result = claim.claim(open_repo(), args.role, item=args.item, holder=args.holder, ttl_s=args.ttl)
    return {**result.to_dict(), "next": claim_next(result)}


def text_daemon(result: dict[str, Any]) -> Any:
    """`hall daemon run` has printed its steps already: the summary only."""
    from rich.text import Text

    if "passes" in result:
        return Text(f"{result['passes']} pass(es), {len(result.get('steps', []))} step(s)")
    from .framework import generic_text

    return generic_text(result)


def daemon_reply(result: DaemonStatus) -> dict[str, Any]:
    """`hall daemon status|start|stop`: the status's keys, `next`, then what start or stop adds
    (`already`, `started_pid` and `log`, `stopped`): the order scripts have always read."""
    nxt = ["hall daemon stop"] if result.running else ["hall daemon start", "hall daemon run --until-idle"]
    return with_next(result, nxt, "already", "started_pid", "log", "stopped")


@command(
    "daemon",
    text=text_daemon,
    replies=(DaemonStatus, DaemonAlreadyRunning, DaemonStarted, DaemonStopped, DaemonRun),
    args=[
        arg("action", choices=["start", "stop", "status", "run"]),
        arg("--until-idle", action="store_true", help="run passes in the foreground until no work is left"),
        arg("--interval", type=float, default=10.0, help="seconds between passes"),
        arg("--max-passes", type=int, default=None),
        arg("--repo", action="append", help="only this repo (repeatable; default: every registered repo)"),
    ],
)
def cmd_daemon(args: argparse.Namespace) -> dict[str, Any]:
    """status, start and stop answer a DaemonStatus (or its start/stop variant); run a DaemonRun,
    whose steps stay the dicts each worker answers (why: core/loop/results.DaemonRun)."""
    from hallmark.core.loop import daemon

    action = args.action
    if action == "status":
        daemon.report_heartbeat()
        return daemon_reply(daemon.status())
    if action == "start":
        return daemon_reply(daemon.start())
    if action == "stop":
        return daemon_reply(daemon.stop())
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

    result = daemon.run(
        until_idle=args.until_idle, interval=args.interval, repos=repos, max_passes=args.max_passes, on_step=on_step
    )
    reply: dict[str, Any] = {**result.to_dict(), "next": ["hall status --all", "hall inbox"]}
    blocked = [s for s in result.steps if s.get("step") == "pass" and s.get("outcome") == "error"]
    if blocked:  # a repo the loop could not work in: say so in the exit code, and what to do
        reply["_exit"] = 1
        reply["next"] = list(dict.fromkeys([*blocked[0]["error"].get("next", []), *reply["next"]]))
    return reply


def text_verify(result: dict[str, Any]) -> Any:
    from rich.text import Text

    mark = "✓" if result["journal"] == "checked" else "✓ (note only)"
    return Text(f"{mark} {result['ref']} {result['sha'][:12]}: {result['reason']}", style="green")


def verify_next(result: Verified) -> list[str]:
    """Push what the loop struck; in a clone without the journal, check it where the loop ran."""
    if result.journal == "checked":
        return ["git push", "hall status"]
    return ["hall verify --strict <ref>  (where the loop ran)"]


@command(
    "verify",
    text=text_verify,
    replies=(Verified,),
    args=[
        arg("ref", nargs="?", default="HEAD", help="a commit, branch or tag (default HEAD)"),
        arg(
            "--strict",
            action="store_true",
            help="also require the journal that proves the loop struck it (only where the loop ran)",
        ),
    ],
)
def cmd_verify(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.verify import verify

    result = verify(Path.cwd(), args.ref, strict=args.strict)
    return {**result.to_dict(), "next": verify_next(result)}
