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
from hallmark.core.repo import open_repo

from .framework import arg, command


def _item(repo, given: str | None) -> str:
    if not given and os.environ.get("HALL_ITEM") and items.item_for_path(repo, repo.cwd) is None:
        given = os.environ["HALL_ITEM"]
    return items.resolve(repo, given)


@command(
    "verdict",
    args=[
        arg("id", nargs="?", help="the item (default: the file's `item`, else this worktree's)"),
        arg("--file", required=True, help="a JSON verdict (hall schema verdict)"),
    ],
)
def cmd_verdict(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import review

    repo = open_repo()
    return review.person_verdict(repo, Path(args.file), args.id)


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


@command(
    "fixed",
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
    return fix.mark_fixed(
        repo, _item(repo, given), ids, list(zip(disputes, reasons, strict=True)), submit=not args.no_submit
    )


@command(
    "next",
    args=[
        arg("--role", required=True, choices=["assayer", "fixer", "shipper"]),
        arg("--item", help="claim this item only"),
        arg("--holder", help="who holds the lease (default: role@host:pid)"),
        arg("--ttl", type=float, default=900.0, help="lease lifetime in seconds"),
    ],
)
def cmd_next(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.loop import daemon, leases

    repo = open_repo()
    found = daemon.candidates(repo, args.role)
    if args.item:
        wanted = items.resolve(repo, args.item)
        found = [v for v in found if v.id == wanted]
        if not found:
            view = items.fold_item(repo, wanted)
            raise HallError(
                "WRONG_STATE",
                f"{wanted} is {view.state}{' (held)' if view.hold else ''}: no {args.role} work there.",
                items.next_for(view),
            )
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
        work = {
            "checks": "run the gates",
            "review": "review the frozen commit",
            "fixing": "fix the open findings",
            "hallmarked": "rebase and ship",
        }[view.state]
        return {
            "item": view.id,
            "state": view.state,
            "role": args.role,
            "work": work,
            "sha": view.sha,
            "worktree": view.worktree,
            "lease": lease,
            "next": [f"hall findings {view.id}" if view.state == "fixing" else f"hall status {view.id}"],
        }
    if claimed_by:
        raise HallError(
            "CLAIMED",
            f"Every {args.role} item is claimed by another worker: {', '.join(claimed_by)}.",
            ["hall daemon status", "try again later"],
        )
    return {"item": None, "role": args.role, "work": None, "next": ["hall status --all", "hall inbox"]}


def text_daemon(result: dict[str, Any]) -> Any:
    """`hall daemon run` has printed its steps already: the summary only."""
    from rich.text import Text

    if "passes" in result:
        return Text(f"{result['passes']} pass(es), {len(result.get('steps', []))} step(s)")
    from .framework import generic_text

    return generic_text(result)


@command(
    "daemon",
    text=text_daemon,
    args=[
        arg("action", choices=["start", "stop", "status", "run"]),
        arg("--until-idle", action="store_true", help="run passes in the foreground until no work is left"),
        arg("--interval", type=float, default=10.0, help="seconds between passes"),
        arg("--max-passes", type=int, default=None),
        arg("--repo", action="append", help="only this repo (repeatable; default: every registered repo)"),
    ],
)
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

    result = daemon.run(
        until_idle=args.until_idle, interval=args.interval, repos=repos, max_passes=args.max_passes, on_step=on_step
    )
    blocked = [s for s in result["steps"] if s.get("step") == "pass" and s.get("outcome") == "error"]
    if blocked:  # a repo the loop could not work in: say so in the exit code, and what to do
        result["_exit"] = 1
        result["next"] = list(dict.fromkeys([*blocked[0]["error"].get("next", []), *result["next"]]))
    return result


def text_verify(result: dict[str, Any]) -> Any:
    from rich.text import Text

    mark = "✓" if result["journal"] == "checked" else "✓ (note only)"
    return Text(f"{mark} {result['ref']} {result['sha'][:12]}: {result['reason']}", style="green")


@command(
    "verify",
    text=text_verify,
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

    return verify(Path.cwd(), args.ref, strict=args.strict)
