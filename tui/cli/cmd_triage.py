"""Triage commands: `hall diff`, `hall takeover`, `hall sweep`, `hall waiting`, `hall cost`."""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core import items
from hallmark.core.repo import open_repo

from .framework import add


def _repo_and_id(given: str | None):
    repo = open_repo()
    return repo, items.resolve(repo, given)


def cmd_diff(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.diff import item_diff

    repo, item_id = _repo_and_id(args.id)
    diff = item_diff(repo, item_id, ignore_whitespace=args.ignore_whitespace)
    data = diff.stat() if args.stat else diff.to_dict()
    data["stat_only"] = bool(args.stat)
    if not args.stat:
        data["unanchored_findings"] = data.pop("findings")
    data["next"] = [f"hall findings {item_id}", f"hall ready {item_id}", f"hall status {item_id}"]
    return data


def cmd_takeover(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.takeover import run_command, takeover

    repo, item_id = _repo_and_id(args.id)
    run: int | str | None = args.run
    if isinstance(run, str) and run.lstrip("-").isdigit():
        run = int(run)
    result = takeover(repo, item_id, run)
    if args.print:
        result["ran"] = False
        return result
    code = run_command(result)
    result["ran"] = True
    result["exit_code"] = code
    return result


def cmd_sweep(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.sweep import sweep

    return sweep(open_repo(), dry_run=args.dry_run)


def cmd_waiting(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import waiting

    repo = open_repo()
    data = waiting.summary(repo)
    data["next"] = [f"hall status {i}" for i in data["waiting"][:3]] or ["hall status --all"]
    return data


def cmd_cost(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.waiting import cost_breakdown

    repo, item_id = _repo_and_id(args.id)
    return cost_breakdown(repo, item_id)


# -- text on a TTY -------------------------------------------------------------------------------


def diff_text(result: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table.grid(padding=(0, 2))
    for column in ("path", "added", "removed", "status"):
        table.add_column(justify="right" if column in ("added", "removed") else "left")
    for f in result["files"]:
        table.add_row(f["path"], Text(f"+{f['added']}", style="green"), Text(f"-{f['removed']}", style="red"), f["status"])
    head = Text(f"{result['item']} against {result['base']} (merge-base {result['merge_base'][:7]}): "
                f"{len(result['files'])} files, +{result['added']} -{result['removed']}", style="bold")
    parts: list[Any] = [head, table]
    if result.get("stat_only"):
        return Group(*parts)
    for f in result["files"]:
        parts.append(Text(f"\n{f['path']}", style="bold underline"))
        for finding in f.get("findings", []):
            parts.append(Text(f"  ▲ {finding.get('severity')} [{finding.get('lens')}] line {finding.get('line')}: "
                              f"{finding.get('scenario', '')}", style="yellow"))
        for hunk in f["hunks"]:
            parts.append(Text(hunk["header"], style="cyan"))
            anchored: dict[int, list[dict[str, Any]]] = {}
            for finding in hunk.get("findings", []):
                anchored.setdefault(finding["line_index"], []).append(finding)
            for index, line in enumerate(hunk["lines"]):
                style = {"+": "green", "-": "red", "\\": "dim"}.get(line["kind"], "")
                parts.append(Text(f"{line['kind']}{line['text']}", style=style))
                for finding in anchored.get(index, []):
                    parts.append(Text(f"    ▲ {finding.get('id', '')} {finding.get('severity')} [{finding.get('lens')}]: "
                                      f"{finding.get('scenario', '')}", style="bold yellow"))
    for finding in result.get("unanchored_findings", []):
        parts.append(Text(f"▲ {finding.get('file')}:{finding.get('line')} {finding.get('severity')} "
                          f"[{finding.get('lens')}]: {finding.get('scenario', '')}", style="yellow"))
    return Group(*parts)


def sweep_text(result: dict[str, Any]) -> Any:
    from rich.text import Text

    out = Text()
    gone = result.get("removed", result.get("would_remove", []))
    verb = "would remove" if result.get("dry_run") else "removed"
    for row in gone:
        out.append(f"{verb} {row['item']} ({row['state']}): {row['worktree']}\n", style="green")
    for row in result.get("kept", []):
        out.append(f"kept {row['item']} ({row['state']}): {row['worktree']}: {row['why']}\n", style="yellow")
    if not gone and not result.get("kept"):
        out.append("nothing to sweep\n")
    return out


def register(sub: argparse._SubParsersAction) -> None:
    p = add(sub, "diff", cmd_diff, "An item's change against the merge-base with its base branch.", text=diff_text)
    p.add_argument("id", nargs="?")
    p.add_argument("--stat", action="store_true", help="only files with added/removed counts")
    p.add_argument("-w", "--ignore-whitespace", action="store_true", help="ignore whitespace changes")

    p = add(sub, "takeover", cmd_takeover, "Take an item over: stop its run and resume the session by hand.")
    p.add_argument("id")
    p.add_argument("--run", help="run number (1 = oldest, -1 = latest) or run file name (default: the latest)")
    p.add_argument("--print", action="store_true", help="only print the command; run nothing")

    p = add(sub, "sweep", cmd_sweep, "Remove the worktrees of closed and dropped items.", text=sweep_text)
    p.add_argument("--dry-run", action="store_true", help="say what would be removed, remove nothing")

    add(sub, "waiting", cmd_waiting, "What each item waits on, and which wait for you (oldest first).")

    p = add(sub, "cost", cmd_cost, "Tokens and list-price cost of an item, per run and per round.")
    p.add_argument("id", nargs="?")
