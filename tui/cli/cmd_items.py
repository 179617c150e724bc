"""Stage 1 commands on items: new, adopt, status, log, ready, propose-ready, pull-back, drop, retry,
ask, answer, inbox."""

from __future__ import annotations

import argparse
import os
from typing import Any

from hallmark.core import config_raw, ids, inbox, items
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo

from . import text
from .framework import add


def _repo():
    return open_repo()


def _id(repo, given: str | None) -> str:
    return items.resolve(repo, given)


def cmd_new(args: argparse.Namespace) -> dict[str, Any]:
    request = " ".join(args.request).strip() or None
    if args.yolo and not args.open:
        raise HallError("USAGE", "--yolo only applies with --open.", ["hall new --open --yolo \"…\""])
    repo = _repo()
    result = items.new(repo, title=args.title, request=request, branch=args.branch, base=args.base)
    if args.open:
        from hallmark.core.open_session import open_session

        try:
            result["opened"] = open_session(repo, result["item"], yolo=args.yolo, prompt=request)
        except HallError as exc:  # the item exists either way: say so, and how to start Claude by hand
            result["opened"] = exc.to_dict()
            result["_exit"] = exc.exit_code
            result["next"] = [f"cd {result['worktree']} && claude", *result.get("next", [])]
    return result


def cmd_adopt(args: argparse.Namespace) -> dict[str, Any]:
    return items.adopt(_repo(), title=args.title, base=args.base)


def cmd_status(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    if args.id:
        result = items.status_one(repo, _id(repo, args.id))
    else:
        here = None if args.all else items.item_for_path(repo, repo.cwd)
        result = items.status_one(repo, here) if here else items.status_all(repo, include_terminal=args.all)
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
    return items.log(repo, item_id, kinds=kinds or None, limit=args.limit)


def cmd_ready(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return items.ready(repo, _id(repo, args.id), note=args.note)


def cmd_propose_ready(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return items.propose_ready(repo, _id(repo, args.id), summary=args.summary, why=args.why, how=args.how, ask=args.ask)


def cmd_pull_back(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return items.pull_back(repo, _id(repo, args.id), reason=args.reason)


def cmd_drop(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    return items.drop(repo, _id(repo, args.id), reason=args.reason, keep_worktree=args.keep_worktree)


def cmd_retry(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    tokens = None
    if args.tokens:
        from hallmark.core.config import parse_tokens

        try:
            tokens = parse_tokens(args.tokens)
        except ValueError as exc:
            raise HallError("USAGE", str(exc), []) from exc
    return items.retry(repo, _id(repo, args.id), reason=args.reason, tokens=tokens)


def cmd_ask(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    item_id = None
    if args.item:
        item_id = _id(repo, args.item)
    else:
        item_id = items.item_for_path(repo, repo.cwd)
    options = [o.strip() for o in (args.options or "").split(",") if o.strip()] or None
    result = items.ask(repo, " ".join(args.question), item_id=item_id, options=options, default=args.default,
                       wait=args.wait, session=args.session or os.environ.get("HALL_SESSION_ID") or None)
    if args.block:
        from hallmark.core.questions import wait_for_answer

        result.update(wait_for_answer(repo, result["qid"], args.wait))
        if result.get("answer") is not None:
            result["next"] = [f"hall status {item_id}"] if item_id else ["hall inbox"]
    return result


def cmd_answer(args: argparse.Namespace) -> dict[str, Any]:
    return items.answer(_repo(), ids.parse_question_id(args.qid), " ".join(args.answer))


def cmd_inbox(args: argparse.Namespace) -> dict[str, Any]:
    repo = _repo()
    if args.notices:
        found = inbox.notices(repo)
        return {"notices": found, "count": len(found), "next": ["hall inbox"]}
    if args.clear or args.dismiss:
        hidden = inbox.dismiss(repo, args.n, clear=args.clear)
        return {"dismissed": [e["key"] for e in hidden], "next": ["hall inbox", "hall inbox --all"]}
    return inbox.report(repo, show_all=args.all)


def register(sub: argparse._SubParsersAction) -> None:
    p = add(sub, "new", cmd_new, "Create an item with its own branch and worktree.", text=text.item)
    p.add_argument("request", nargs="*", help="what to build, in words")
    p.add_argument("--title", help="a short title (defaults to the request)")
    p.add_argument("--branch", help="branch name (default from the `branch` template)")
    p.add_argument("--base", help="base branch (default from config)")
    p.add_argument("--open", action="store_true", help="start Claude Code in the new worktree")
    p.add_argument("--yolo", action="store_true", help="with --open: skip Claude Code's permission prompts")

    p = add(sub, "adopt", cmd_adopt, "Turn the current branch and worktree into an item.", text=text.item)
    p.add_argument("--title")
    p.add_argument("--base")

    p = add(sub, "status", cmd_status, "List items by state, or show one item.", text=text.status)
    p.add_argument("id", nargs="?")
    p.add_argument("--all", action="store_true", help="include closed and dropped items")

    p = add(sub, "log", cmd_log, "Print an item's journal.", text=text.log)
    p.add_argument("id", nargs="?")
    p.add_argument("--kind", action="append", help="only these event kinds (comma-separated)")
    p.add_argument("--limit", type=int, help="only the last N events")
    p.add_argument("--repo-level", action="store_true", help="the repo-level journal instead of an item's")

    p = add(sub, "ready", cmd_ready, "Freeze HEAD and queue the item for checks and review.", text=text.item)
    p.add_argument("id", nargs="?")
    p.add_argument("--note")

    p = add(sub, "propose-ready", cmd_propose_ready, "The agent says the work is done; a person confirms.", text=text.item)
    p.add_argument("id", nargs="?")
    p.add_argument("--summary", required=True)
    p.add_argument("--why")
    p.add_argument("--how")
    p.add_argument("--ask", action="store_true", help="always wait for a person")

    p = add(sub, "pull-back", cmd_pull_back, "Return the item to development.", text=text.item)
    p.add_argument("id", nargs="?")
    p.add_argument("--reason")

    p = add(sub, "drop", cmd_drop, "Abandon the item; the branch and journal stay.", text=text.item)
    p.add_argument("id", nargs="?")
    p.add_argument("--reason", required=True)
    p.add_argument("--keep-worktree", action="store_true")

    p = add(sub, "retry", cmd_retry, "Allow an escalated item one more round, or release a hold.", text=text.item)
    p.add_argument("id", nargs="?")
    p.add_argument("--reason", required=True)
    p.add_argument("--tokens", help="grant the item more tokens (budget holds)")

    p = add(sub, "ask", cmd_ask, "Record a question for the person.")
    p.add_argument("question", nargs="+")
    p.add_argument("--item")
    p.add_argument("--options", help="comma-separated choices")
    p.add_argument("--default", help="what to do if nobody answers within --wait")
    p.add_argument("--wait", help="how long to wait for an answer (30m, 4h)")
    p.add_argument("--session", help="the asking Claude Code session (default: $HALL_SESSION_ID, which Hallmark's "
                   "SessionStart hook and headless runs set), so the answer can resume it")
    p.add_argument("--block", action="store_true", help="block until answered or the wait runs out")

    p = add(sub, "answer", cmd_answer, "Answer a question (Q-12) with text or an option letter.")
    p.add_argument("qid")
    p.add_argument("answer", nargs="+")

    p = add(sub, "inbox", cmd_inbox, "Escalations waiting for you, oldest first.", text=text.inbox)
    p.add_argument("n", nargs="?", type=int, help="an entry number (with --dismiss)")
    p.add_argument("--dismiss", action="store_true")
    p.add_argument("--clear", action="store_true")
    p.add_argument("--all", action="store_true", help="include dismissed entries")
    p.add_argument("--notices", action="store_true", help="what the loop handles on its own")
