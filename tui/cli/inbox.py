"""What waits for a person: ask, answer, inbox, waiting.

Each command is declared on its handler, with its arguments; its summary is in commands.py."""

from __future__ import annotations

import argparse
import os
from typing import Any

from hallmark.core import ids, inbox, items, questions
from hallmark.core.inbox_results import InboxDismissed, NoticeList
from hallmark.core.item_results import Answered, Asked, AskedAndWaited, InboxReport, WaitingSummary
from hallmark.core.repo import open_repo

from . import text
from .framework import arg, command, with_next


@command(
    "ask",
    replies=(Asked, AskedAndWaited),
    args=[
        arg("question", nargs="+"),
        arg("--item"),
        arg("--options", help="comma-separated choices"),
        arg("--default", help="what to do if nobody answers within --wait"),
        arg("--wait", help="how long to wait for an answer (30m, 4h)"),
        arg(
            "--session",
            help="the asking Claude Code session (default: $HALL_SESSION_ID, which Hallmark's "
            "SessionStart hook and headless runs set), so the answer can resume it",
        ),
        arg("--block", action="store_true", help="block until answered or the wait runs out"),
    ],
)
def cmd_ask(args: argparse.Namespace) -> dict[str, Any]:
    repo = open_repo()
    item_id = items.resolve(repo, args.item) if args.item else items.item_for_path(repo, repo.cwd)
    options = [o.strip() for o in (args.options or "").split(",") if o.strip()] or None
    asked = questions.ask(
        repo,
        " ".join(args.question),
        item_id=item_id,
        options=options,
        default=args.default,
        wait=args.wait,
        session=args.session or os.environ.get("HALL_SESSION_ID") or None,
    )
    waiting_next = [f"hall answer {asked.qid} <answer>", "hall inbox"]
    if not args.block:
        return {**asked.to_dict(), "next": waiting_next}
    waited = questions.wait_for_answer(repo, asked, args.wait)
    answered = waited.answer is not None
    nxt = ([f"hall status {item_id}"] if item_id else ["hall inbox"]) if answered else waiting_next
    # the question's keys, `next`, then the answer's: where they have always been
    return with_next(waited, nxt, "answer", "answered_by", "defaulted", "delivered_here")


@command("answer", replies=(Answered,), args=[arg("qid"), arg("answer", nargs="+")])
def cmd_answer(args: argparse.Namespace) -> dict[str, Any]:
    answered = questions.answer(open_repo(), ids.parse_question_id(args.qid), " ".join(args.answer))
    return {**answered.to_dict(), "next": ["hall inbox"] + ([f"hall status {answered.item}"] if answered.item else [])}


@command(
    "inbox",
    text=text.inbox,
    replies=(InboxReport, NoticeList, InboxDismissed),
    args=[
        arg("n", nargs="?", type=int, help="an entry number (with --dismiss)"),
        arg("--dismiss", action="store_true"),
        arg("--clear", action="store_true"),
        arg("--all", action="store_true", help="include dismissed entries"),
        arg("--notices", action="store_true", help="what the loop handles on its own"),
    ],
)
def cmd_inbox(args: argparse.Namespace) -> dict[str, Any]:
    repo = open_repo()
    if args.notices:
        found = tuple(inbox.notices(repo))
        return {**NoticeList(notices=found, count=len(found)).to_dict(), "next": ["hall inbox"]}
    if args.clear or args.dismiss:
        hidden = inbox.dismiss(repo, args.n, clear=args.clear)
        dismissed = InboxDismissed(dismissed=[e.key for e in hidden])
        return {**dismissed.to_dict(), "next": ["hall inbox", "hall inbox --all"]}
    report = inbox.report(repo, show_all=args.all)
    nxt = [n for e in report.entries[:3] for n in e.next[:1]] or ["hall status --all"]
    return {**report.to_dict(), "next": nxt}


@command("waiting", replies=(WaitingSummary,))
def cmd_waiting(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import waiting

    found = waiting.summary(open_repo())
    return {**found.to_dict(), "next": [f"hall status {i}" for i in found.waiting[:3]] or ["hall status --all"]}
