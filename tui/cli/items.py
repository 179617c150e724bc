"""An item's life: new, adopt, status, log, ready, propose-ready, pull-back, drop, retry, diff, sweep.

Each command is declared on its handler, with its arguments; its summary is in commands.py."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from hallmark.core import config_raw, items
from hallmark.core.diff_results import Diff, DiffStat
from hallmark.core.errors import HallError
from hallmark.core.item_results import (
    Adopted,
    AlreadyReady,
    Dropped,
    ItemDetail,
    ItemLog,
    ItemResult,
    NewOpened,
    SessionOpened,
    StatusAll,
)
from hallmark.core.next_steps import next_for
from hallmark.core.repo import open_repo
from hallmark.core.sweep_results import SweepPreview, Swept

from . import text
from .framework import arg, command, with_next


def _repo():
    return open_repo()


def _id(repo, given: str | None) -> str:
    return items.resolve(repo, given)


def reply(result: ItemResult, nxt: list[str] | None = None) -> dict[str, Any]:
    """An item verb's JSON reply: the result's keys, then `next` (by default, what its state allows)."""
    return with_next(result, next_for(result.view) if nxt is None else nxt)


def new_next(result: ItemResult) -> list[str]:
    return [
        f"cd {shlex.quote(result.worktree)}",
        f'hall propose-ready {result.item} --summary "…"',
        f"hall ready {result.item}",
    ]


def ready_next(result: ItemResult) -> list[str]:
    if isinstance(result, AlreadyReady):
        return next_for(result.view)
    i = result.item
    return [f"hall status {i}", f"hall trace {i} --follow", f"hall pull-back {i}"]


DELETE_IGNORED = (
    "also delete the git-ignored files in the worktree that are yours (files Hallmark did not copy in, "
    "copies you edited); without it such a worktree is kept"
)


def drop_next(result: Dropped, root: str) -> list[str]:
    nxt = [f"hall log {result.item}", 'hall new --title "…"']
    if result.stood_in_worktree:
        nxt.insert(0, f"cd {shlex.quote(root)}")  # the directory you stand in is gone
    return nxt


def status_all_reply(result: StatusAll) -> dict[str, Any]:
    """`hall status`: each item with an empty `next`, the reply's `next` after by_state."""
    nxt = ['hall new --title "…"', "hall inbox"] + ([f"hall status {result.items[0].item}"] if result.items else [])
    if result.damaged:
        nxt = ["hall doctor", *nxt]
    reply = with_next(result, nxt, "damaged", "warnings")
    reply["items"] = [{**row, "next": []} for row in reply["items"]]
    return reply


@command(
    "new",
    text=text.item,
    replies=(ItemResult, NewOpened),
    args=[
        arg("request", nargs="*", help="what to build, in words"),
        arg("--title", help="a short title (defaults to the request)"),
        arg("--branch", help="branch name (default from the `branch` template)"),
        arg("--base", help="base branch (default from config)"),
        arg("--issue", type=int, help="a GitHub issue: its title and body are the item's; the PR closes it"),
        arg("--open", action="store_true", help="start Claude Code in the new worktree"),
        arg("--yolo", action="store_true", help="with --open: skip Claude Code's permission prompts"),
    ],
)
def cmd_new(args: argparse.Namespace) -> dict[str, Any]:
    request = " ".join(args.request).strip() or None
    if args.yolo and not args.open:
        raise HallError("USAGE", "--yolo only applies with --open.", ['hall new --open --yolo "…"'])
    repo = _repo()
    if args.issue is not None:
        from hallmark.core.delivery.issues import new_from_issue

        created = new_from_issue(repo, args.issue, base=args.base)
    else:
        created = items.new(repo, title=args.title, request=request, branch=args.branch, base=args.base)
    if not args.open:
        return reply(created, new_next(created))
    from hallmark.core.open_session import open_session

    nxt = new_next(created)
    exit_code = 0
    opened: SessionOpened | dict[str, Any]
    try:
        opened = open_session(repo, created.item, yolo=args.yolo, prompt=request)
    except HallError as exc:  # the item exists either way: say so, and how to start Claude by hand
        opened, exit_code = exc.to_dict(), exc.exit_code
        nxt = [f"cd {created.worktree} && claude", *nxt]
    answer = with_next(NewOpened(**ItemResult.fields_of(created.view), opened=opened), nxt, "opened")
    return {**answer, "_exit": exit_code} if exit_code else answer


@command(
    "adopt",
    text=text.item,
    replies=(Adopted,),
    args=[arg("--title"), arg("--base"), arg("--pr", type=int, help="an open PR: checked out into a new worktree")],
)
def cmd_adopt(args: argparse.Namespace) -> dict[str, Any]:
    if args.pr is not None:
        from hallmark.core.delivery.adopt import adopt_pr

        return reply(adopt_pr(_repo(), args.pr))
    return reply(items.adopt(_repo(), title=args.title, base=args.base))


@command(
    "status",
    text=text.status,
    replies=(StatusAll, ItemDetail),
    args=[
        arg("id", nargs="?"),
        arg("--all", action="store_true", help="include closed and dropped items"),
    ],
)
def cmd_status(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.delivery.status import status_one  # with the delivery block

    repo = _repo()
    if args.id:
        result = reply(status_one(repo, _id(repo, args.id)))
    else:
        here = None if args.all else items.item_for_path(repo, repo.cwd)
        result = (
            reply(status_one(repo, here))
            if here
            else status_all_reply(items.status_all(repo, include_terminal=args.all))
        )
    root, state = repo.paths.main_checkout, repo.state_dir
    if not config_raw.known_valid(root, state):  # checked once per edit of the file: status stays light
        try:
            repo.config  # noqa: B018 - loading it is the check
        except HallError as exc:  # status still reads; the loop and the gates' config do not: say so
            result["warnings"] = [exc.message]
            result["next"] = list(dict.fromkeys([*exc.next, *result.get("next", [])]))
        else:
            config_raw.mark_valid(root, state)
    return result


@command(
    "log",
    text=text.log,
    replies=(ItemLog,),
    args=[
        arg("id", nargs="?"),
        arg("--kind", action="append", help="only these event kinds (comma-separated)"),
        arg("--limit", type=int, help="only the last N events"),
        arg("--repo-level", action="store_true", help="the repo-level journal instead of an item's"),
    ],
)
def cmd_log(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    item_id = None
    if args.id or not args.repo_level:
        try:
            item_id = _id(repo, args.id)
        except HallError as exc:
            if exc.code != "NO_ITEM":
                raise
    kinds = [k for part in (args.kind or []) for k in part.split(",") if k]
    logged = items.log(repo, item_id, kinds=kinds or None, limit=args.limit)
    return {**logged.to_dict(), "next": [f"hall status {item_id}"] if item_id else ["hall status --all"]}


@command("ready", text=text.item, replies=(ItemResult, AlreadyReady), args=[arg("id", nargs="?"), arg("--note")])
def cmd_ready(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    result = items.ready(repo, _id(repo, args.id), note=args.note)
    return reply(result, ready_next(result))


@command(
    "propose-ready",
    text=text.item,
    replies=(ItemResult,),
    args=[
        arg("id", nargs="?"),
        arg("--summary", required=True),
        arg("--why"),
        arg("--how"),
        arg("--ask", action="store_true", help="always wait for a person"),
    ],
)
def cmd_propose_ready(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return reply(
        items.propose_ready(repo, _id(repo, args.id), summary=args.summary, why=args.why, how=args.how, ask=args.ask)
    )


@command("pull-back", text=text.item, replies=(ItemResult,), args=[arg("id", nargs="?"), arg("--reason")])
def cmd_pull_back(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return reply(items.pull_back(repo, _id(repo, args.id), reason=args.reason))


@command(
    "drop",
    text=text.item,
    replies=(Dropped,),
    args=[
        arg("id", nargs="?"),
        arg("--reason", required=True),
        arg("--keep-worktree", action="store_true"),
        arg("--delete-ignored", action="store_true", help=DELETE_IGNORED),
    ],
)
def cmd_drop(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    dropped = items.drop(
        repo,
        _id(repo, args.id),
        reason=args.reason,
        keep_worktree=args.keep_worktree,
        delete_ignored=args.delete_ignored,
    )
    return reply(dropped, drop_next(dropped, str(repo.root)))


@command(
    "retry",
    text=text.item,
    replies=(ItemResult,),
    args=[
        arg("id", nargs="?"),
        arg("--reason", required=True),
        arg("--tokens", help="grant the item more tokens (budget holds)"),
    ],
)
def cmd_retry(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    tokens = None
    if args.tokens:
        from hallmark.core.config import parse_tokens

        try:
            tokens = parse_tokens(args.tokens)
        except ValueError as exc:
            raise HallError("USAGE", str(exc), []) from exc
    return reply(items.retry(repo, _id(repo, args.id), reason=args.reason, tokens=tokens))


def diff_text(result: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table.grid(padding=(0, 2))
    for column in ("path", "added", "removed", "status"):
        table.add_column(justify="right" if column in ("added", "removed") else "left")
    for f in result["files"]:
        table.add_row(
            f["path"], Text(f"+{f['added']}", style="green"), Text(f"-{f['removed']}", style="red"), f["status"]
        )
    head = Text(
        f"{result['item']} against {result['base']} (merge-base {result['merge_base'][:7]}): "
        f"{len(result['files'])} files, +{result['added']} -{result['removed']}",
        style="bold",
    )
    parts: list[Any] = [head, table]
    if result.get("stat_only"):
        return Group(*parts)
    for f in result["files"]:
        parts.append(Text(f"\n{f['path']}", style="bold underline"))
        for finding in f.get("findings", []):
            parts.append(  # noqa: PERF401 - one rich line per finding, in hunk order
                Text(
                    f"  ▲ {finding.get('severity')} [{finding.get('lens')}] line {finding.get('line')}: "
                    f"{finding.get('scenario', '')}",
                    style="yellow",
                )
            )
        for hunk in f["hunks"]:
            parts.append(Text(hunk["header"], style="cyan"))
            anchored: dict[int, list[dict[str, Any]]] = {}
            for finding in hunk.get("findings", []):
                anchored.setdefault(finding["line_index"], []).append(finding)
            for index, line in enumerate(hunk["lines"]):
                style = {"+": "green", "-": "red", "\\": "dim"}.get(line["kind"], "")
                parts.append(Text(f"{line['kind']}{line['text']}", style=style))
                for finding in anchored.get(index, []):
                    parts.append(  # noqa: PERF401 - one rich line per finding, in hunk order
                        Text(
                            f"    ▲ {finding.get('id', '')} {finding.get('severity')} [{finding.get('lens')}]: "
                            f"{finding.get('scenario', '')}",
                            style="bold yellow",
                        )
                    )
    for finding in result.get("unanchored_findings", []):
        parts.append(  # noqa: PERF401 - one rich line per finding, in hunk order
            Text(
                f"▲ {finding.get('file')}:{finding.get('line')} {finding.get('severity')} "
                f"[{finding.get('lens')}]: {finding.get('scenario', '')}",
                style="yellow",
            )
        )
    return Group(*parts)


@command(
    "diff",
    text=diff_text,
    replies=(Diff, DiffStat),
    args=[
        arg("id", nargs="?"),
        arg("--stat", action="store_true", help="only files with added/removed counts"),
        arg("-w", "--ignore-whitespace", action="store_true", help="ignore whitespace changes"),
    ],
)
def cmd_diff(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.diff import item_diff

    repo = _repo()
    item_id = _id(repo, args.id)
    diff = item_diff(repo, item_id, ignore_whitespace=args.ignore_whitespace)
    found = diff.stat() if args.stat else diff
    return {**found.to_dict(), "next": [f"hall findings {item_id}", f"hall ready {item_id}", f"hall status {item_id}"]}


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


def sweep_next(result: Swept | SweepPreview) -> list[str]:
    """After a sweep: sweep for real after a dry run that found some; look at what kept a worktree."""
    found = result.would_remove if isinstance(result, SweepPreview) else result.removed
    nxt = ["hall sweep"] if isinstance(result, SweepPreview) and found else []
    nxt += [f"git -C {k.worktree} status" for k in result.kept if "uncommitted" in k.why][:3]
    nxt += [f"hall sweep {k.item} --delete-ignored" for k in result.kept if "--delete-ignored" in k.why][:3]
    return nxt or ["hall status --all"]


@command(
    "sweep",
    text=sweep_text,
    replies=(Swept, SweepPreview),
    args=[
        arg("ids", nargs="*", help="only these items (default: every closed or dropped one)"),
        arg("--dry-run", action="store_true", help="say what would be removed, remove nothing"),
        arg("--delete-ignored", action="store_true", help=DELETE_IGNORED),
    ],
)
def cmd_sweep(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.ids import parse_item_id
    from hallmark.core.sweep import sweep

    wanted = [parse_item_id(given) for given in args.ids] or None
    result = sweep(_repo(), dry_run=args.dry_run, item_ids=wanted, delete_ignored=args.delete_ignored)
    return {**result.to_dict(), "next": sweep_next(result)}
