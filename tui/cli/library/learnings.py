"""`hall library` on learnings themselves: propose one, list, show and search them, the person's
decisions (accept, reject, skip, retire, undo, the drain), briefings, reconciling promoted text,
their history and the audit log. Each subcommand is declared on its handler with its arguments and
summary; each calls one verb in hallmark.core.memory and returns a dict with `next`.
"""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.memory.store import KINDS, SOURCES
from hallmark.core.repo import current_actor, open_repo
from hallmark.tui.cli import text
from hallmark.tui.cli.framework import Group, arg


def _repo():
    return open_repo()


def _summary(learning) -> dict[str, Any]:
    return {
        "id": learning.id,
        "kind": learning.kind,
        "status": learning.status,
        "pattern": learning.pattern,
        "occurrences": learning.occurrences,
        "skip_count": learning.skip_count,
        "paths": learning.paths,
        "retire_proposed": bool(learning.retire_proposal),
        "updated": learning.updated,
        "recorded": learning.recorded,
        "valid_from": learning.valid_since,
        "valid_until": learning.valid_until,
    }


def _learning_reply(learning, next_: list[str], **extra: Any) -> dict[str, Any]:
    return {"learning": learning.to_dict(), "id": learning.id, "status": learning.status, **extra, "next": next_}


def _details(pairs: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise HallError("USAGE", f"--detail takes KEY=VALUE, got {pair!r}", ["hall library propose --help"])
        key = key.strip()
        if key in ("steps", "key_points"):
            out.setdefault(key, []).append(value)
        else:
            out[key] = value
    return out


learning_commands = Group("library")  # joined with the other parts in __init__.py


@learning_commands.command(
    "propose",
    "Propose a learning (or add an occurrence to the one it repeats).",
    args=[
        arg("--kind", required=True, choices=KINDS),
        arg("--pattern", required=True, help="one idea, in words"),
        arg("--rationale"),
        arg("--quote", help="verbatim evidence"),
        arg("--source", default="user_statement", choices=SOURCES),
        arg("--item"),
        arg("--session"),
        arg("--file", help="the file a correction was about"),
        arg("--paths", nargs="+", metavar="GLOB"),
        arg(
            "--detail",
            action="append",
            metavar="KEY=VALUE",
            help="per-kind details: name, hook_event, hook_matcher, action, steps, key_points…",
        ),
        arg("--valid-from", dest="valid_from", metavar="DATE", help="it holds from (default: when accepted)"),
        arg("--valid-until", dest="valid_until", metavar="DATE", help="it holds until"),
        arg("--supersedes", metavar="ID", help="the learning this one replaces once accepted"),
    ],
)
def cmd_propose(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    evidence = None
    if args.quote:
        evidence = {
            "source": args.source,
            "quote": args.quote,
            "item": args.item,
            "session": args.session,
            "file": args.file,
        }
    reply = api.propose(
        _repo(),
        kind=args.kind,
        pattern=args.pattern,
        rationale=args.rationale or "",
        evidence=evidence,
        paths=args.paths,
        item=args.item,
        actor=current_actor(),
        details=_details(args.detail),
        valid_from=args.valid_from,
        valid_until=args.valid_until,
        supersedes=args.supersedes,
    )
    lid = reply["id"]
    if reply.get("previously_rejected"):
        reply["message"] = (
            f"This pattern was rejected before ({reply['tombstone']['reason']}); the occurrence "
            f"was added to its tombstone {lid}, not offered as new."
        )
        reply["next"] = [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    elif reply.get("previously_retired"):
        reply["message"] = (
            f"This pattern was accepted once and then retired; the occurrence was added to {lid}. "
            "Reopen it if it is true again."
        )
        reply["next"] = [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    else:
        reply["next"] = [f"hall library show {lid}", "hall library review"]
    return reply


@learning_commands.command(
    "list",
    "List learnings.",
    text=text.learnings,
    args=[
        arg("--status", choices=["proposed", "skipped", "accepted", "promoted", "rejected", "retired"]),
        arg("--kind", choices=KINDS),
        arg("--pending", action="store_true", help="what the next drain offers"),
        arg("--as-of", dest="as_of", metavar="DATE", help="what was believed then (the versions recorded by then)"),
    ],
)
def cmd_list(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    if args.pending:
        items = api.pending(repo)
    else:
        items = api.list_learnings(repo, status=args.status, kind=args.kind, as_of=args.as_of)
    summaries = [_summary(x) for x in items]
    reply: dict[str, Any] = {
        "learnings": summaries,
        "count": len(items),
        "project": api.project_of(repo),
        "next": ["hall library review", "hall library show <id>"],
    }
    if args.as_of:
        from hallmark.core.memory.reading import as_of_stamp

        stamp = as_of_stamp(args.as_of) or ""  # a given --as-of always reads as a stamp (or is refused)
        reply["as_of"] = stamp
        for entry, learning in zip(summaries, items, strict=True):
            entry["held_then"] = learning.status in ("accepted", "promoted") and learning.valid_at(stamp)
    return reply


@learning_commands.command(
    "show",
    "Show one learning, where accepting it writes, and its tombstone.",
    args=[
        arg("id"),
        arg("--as-of", dest="as_of", metavar="DATE", help="the version recorded by then"),
    ],
)
def cmd_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    if args.as_of:
        from hallmark.core.memory.reading import as_of_stamp

        then = api.get(repo, args.id, as_of=args.as_of)
        stamp = as_of_stamp(args.as_of) or ""  # a given --as-of always reads as a stamp (or is refused)
        return _learning_reply(
            then,
            [f"hall library show {then.id}", f"hall library history {then.id}"],
            as_of=stamp,
            held_then=then.status in ("accepted", "promoted") and then.valid_at(stamp),
        )
    learning = api.get(repo, args.id)
    reply = _learning_reply(
        learning,
        _next_for(learning),
        preview=api.preview(repo, learning.id),
        tombstone=api.tombstone_for(repo, learning.id),
        versions=len(api.history(repo, learning.id)),
    )
    auto = api.automation_confirmation(learning) if learning.status in ("proposed", "skipped") else None
    if auto:
        reply["automation"] = {**(reply["preview"].get("automation") or {})}
        reply["next"] = [
            f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
            *[n for n in reply["next"] if not n.startswith(f"hall library accept {learning.id}")],
        ]
    return reply


def _next_for(learning) -> list[str]:
    from hallmark.core.memory import api

    lid = learning.id
    auto = api.automation_confirmation(learning) if learning.status in ("proposed", "skipped") else None
    if auto:
        return [
            f"hall library show {lid}",
            f"hall library accept {lid} --confirm-automation {auto['confirm']}",
            f"hall library skip {lid}",
            f"hall library reject {lid} --reason '…'",
        ]
    if learning.status in ("proposed", "skipped") or learning.retire_proposal:
        return [f"hall library accept {lid}", f"hall library skip {lid}", f"hall library reject {lid} --reason '…'"]
    if learning.status in ("accepted", "promoted"):
        return [f"hall library retire {lid} --reason '…'", f"hall library history {lid}"]
    return [f"hall library review --reopen {lid}", f"hall library history {lid}"]


@learning_commands.command(
    "accept",
    "Approve a learning (a person only); promotes it where its kind has a home.",
    args=[
        arg("id"),
        arg("--pattern", help="accept with this edited text"),
        arg("--no-promote", action="store_true", help="keep it in the library only"),
        arg(
            "--confirm-automation",
            dest="confirm_automation",
            metavar="TOKEN",
            help="an automation's own confirmation: the token `hall library show` prints with its command",
        ),
        arg("--valid-from", dest="valid_from", metavar="DATE", help="it holds from (default: now)"),
        arg("--valid-until", dest="valid_until", metavar="DATE", help="it holds until"),
    ],
)
def cmd_accept(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.accept(
        _repo(),
        args.id,
        actor=current_actor(),
        pattern=args.pattern,
        promote_it=not args.no_promote,
        confirm_automation=args.confirm_automation,
        valid_from=args.valid_from,
        valid_until=args.valid_until,
    )
    return _learning_reply(
        learning, [*_next_for(learning), "hall library review"], promoted_to=(learning.promotion or {}).get("path")
    )


@learning_commands.command(
    "reject",
    "Decline a learning: it becomes a tombstone with the reason.",
    args=[arg("id"), arg("--reason", required=True)],
)
def cmd_reject(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.reject(_repo(), args.id, args.reason, actor=current_actor())
    return _learning_reply(learning, ["hall library review", f"hall library undo {learning.id}"])


@learning_commands.command("skip", "Not now: offered again at the next drain.", args=[arg("id")])
def cmd_skip(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.skip(_repo(), args.id, actor=current_actor())
    return _learning_reply(learning, ["hall library review"], skip_count=learning.skip_count)


@learning_commands.command(
    "retire",
    "Take an accepted learning out of use, removing its promoted block or file.",
    args=[
        arg("id"),
        arg("--reason", required=True),
        arg("--valid-until", dest="valid_until", metavar="DATE", help="when it stopped holding (default: now)"),
    ],
)
def cmd_retire(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.retire(_repo(), args.id, args.reason, actor=current_actor(), valid_until=args.valid_until)
    kept = (learning.details.get("kept_edits") or [None])[-1]
    # this retirement kept an edit when its entry names the version just written (a store from before
    # versions were recorded compares the stamps, which two clock readings can split)
    ours = kept and (
        kept.get("version") == learning.version if "version" in kept else kept.get("t") == learning.updated
    )
    extra = {"kept": kept} if ours else {}
    if extra:
        extra["message"] = f"Your edit of the promoted text was kept at {kept['at']}: {kept['why']}."
    return _learning_reply(learning, [f"hall library review --reopen {learning.id}", "hall library list"], **extra)


@learning_commands.command(
    "undo", "Revert the last decision on a learning (and the promotion it caused).", args=[arg("id")]
)
def cmd_undo(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.undo(_repo(), args.id, actor=current_actor())
    return _learning_reply(learning, _next_for(learning))


@learning_commands.command(
    "review",
    "The drain: the pending queue, or decide one (--accept/--skip/--reject/--reopen).",
    text=text.learnings,
    args=[
        arg("--accept", metavar="ID"),
        arg("--skip", metavar="ID"),
        arg("--reject", metavar="ID"),
        arg("--reopen", metavar="ID", help="the only way back from a rejection or a retirement"),
        arg("--reason"),
        arg(
            "--confirm-automation",
            dest="confirm_automation",
            metavar="TOKEN",
            help="with --accept on an automation: its own confirmation token",
        ),
    ],
)
def cmd_review(args: argparse.Namespace) -> dict[str, Any]:
    """The drain from the command line: with no flag, the queue with where each would be written."""
    from hallmark.core.memory import api

    repo = _repo()
    actor = current_actor()
    if args.reopen:
        learning = api.reopen(repo, args.reopen, actor=actor, reason=args.reason or "")
        return _learning_reply(learning, _next_for(learning))
    if args.accept:
        learning = api.accept(repo, args.accept, actor=actor, confirm_automation=args.confirm_automation)
        return _learning_reply(learning, ["hall library review"])
    if args.reject:
        if not args.reason:
            raise HallError("USAGE", "--reject needs --reason", ["hall library review --reject ID --reason '…'"])
        learning = api.reject(repo, args.reject, args.reason, actor=actor)
        return _learning_reply(learning, ["hall library review"])
    if args.skip:
        learning = api.skip(repo, args.skip, actor=actor)
        return _learning_reply(learning, ["hall library review"])
    api.propose_retirements(repo, actor="librarian")  # unused for retire_after: offered, never removed
    queue = api.pending(repo)
    entries = []
    for learning in queue:
        entry = _summary(learning)
        entry.update(
            rationale=learning.rationale,
            evidence=learning.evidence,
            where=api.preview(repo, learning.id),
            retire_reason=(learning.retire_proposal or {}).get("reason"),
        )
        auto = api.automation_confirmation(learning) if not learning.retire_proposal else None
        if auto:  # the exact command and file, and its own confirmation: never accepted in bulk
            entry["automation"] = {
                "file": ".claude/settings.local.json",
                "event": auto["event"],
                "matcher": auto["matcher"],
                "command": auto["command"],
                "confirm": auto["confirm"],
                "accept": f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
            }
        entries.append(entry)
    first = queue[0] if queue else None
    return {
        "pending": entries,
        "count": len(entries),
        "last_drain": api.last_drain_summary(repo),
        "next": (_next_for(first) if first else ["hall library list"]),
    }


@learning_commands.command(
    "search",
    "Full-text search of accepted learnings (SQLite FTS5).",
    text=text.learnings,
    args=[
        arg("words", nargs="+"),
        arg("--limit", type=int, default=20),
    ],
)
def cmd_search(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api
    from hallmark.core.memory.search_index import SearchIndex

    repo = _repo()
    store = api.store_of(repo)
    index = SearchIndex(store)
    index.catch_up()
    found = index.search(api.project_of(repo), " ".join(args.words), limit=args.limit)
    if not found:
        found = index.search(api.project_of(repo), " ".join(args.words), limit=args.limit, mode="OR")
    return {
        "query": " ".join(args.words),
        "learnings": [_summary(x) for x in found],
        "count": len(found),
        "searched": "accepted learnings only",
        "next": ["hall library show <id>"],
    }


@learning_commands.command(
    "briefing",
    "Accepted learnings for changed paths, within the effort's token cap.",
    text=text.briefing,
    args=[
        arg("--paths", nargs="+", metavar="GLOB"),
        arg("--effort", choices=["low", "medium", "high"], default="high"),
        arg("--query"),
        arg("--as-of", dest="as_of", metavar="DATE", help="the briefing as it would have been then"),
    ],
)
def cmd_briefing(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import briefing

    result = briefing.build_or_degraded(
        lambda: briefing.build(
            _repo().paths, changed=args.paths or [], effort=args.effort, query=args.query or "", as_of=args.as_of
        )
    )
    if result["memory_restored"]:
        result["next"] = ["hall library search <words>", "hall library list"]
    return result


@learning_commands.command(
    "reconcile",
    "Find promoted blocks/files edited or deleted by hand; update, retire or restore.",
    args=[
        arg("--update", action="append", metavar="ID", help="adopt the hand edit as the learning's text"),
        arg("--retire", action="append", metavar="ID"),
        arg("--restore", action="append", metavar="ID", help="write the learning's text back"),
    ],
)
def cmd_reconcile(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    result = api.reconcile(
        _repo(), update=args.update, retire_ids=args.retire, restore=args.restore, actor=current_actor()
    )
    nxt = []
    for entry in result["drift"]:
        nxt += [f"hall library reconcile --{offer} {entry['id']}" for offer in entry["offers"]]
    result["next"] = nxt or ["hall library list --status promoted"]
    return result


@learning_commands.command("history", "Every version of a learning and its audit lines.", args=[arg("id")])
def cmd_history(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    versions = api.history(repo, args.id)
    return {
        "id": versions[-1].id if versions else args.id,
        "versions": [v.to_dict() for v in versions],
        "audit": api.audit_log(repo, args.id),
        "next": [f"hall library show {args.id}"],
    }


@learning_commands.command(
    "audit",
    "The append-only audit log (--verify replays it against the files).",
    args=[
        arg("id", nargs="?"),
        arg("--verify", action="store_true"),
        arg("--limit", type=int, default=0),
    ],
)
def cmd_audit(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    lines = api.audit_log(repo, args.id)
    reply: dict[str, Any] = {"audit": lines[-args.limit :] if args.limit else lines, "count": len(lines)}
    if args.verify:
        problems = api.verify_audit(repo)
        reply["verified"] = not problems
        reply["problems"] = problems
        if problems:
            reply["_exit"] = 1
    reply["next"] = ["hall library audit --verify", "hall library history <id>"]
    return reply
