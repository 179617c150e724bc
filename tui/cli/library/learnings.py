"""`hall library` on learnings themselves: propose one, list, show and search them, the person's
decisions (accept, reject, skip, retire, undo, the drain), briefings, reconciling promoted text,
their history and the audit log. Each subcommand is declared on its handler with its arguments and
summary; each calls the verbs of hallmark.core.memory, gets a typed result
(core/memory/results.py) and answers `{**result.to_dict(), "next": [...]}`.
"""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.memory import results as lib
from hallmark.core.memory.store import KINDS, SOURCES
from hallmark.core.repo import current_actor, open_repo
from hallmark.tui.cli import text
from hallmark.tui.cli.framework import Group, arg, with_next


def _repo():
    return open_repo()


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
    replies=(lib.Proposed,),
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
    return with_next(reply, propose_next(reply))


def propose_next(result: lib.Proposed) -> list[str]:
    """Landing on a rejection or a retirement: only reopening brings it back."""
    lid = result.id
    if result.previously_rejected or result.previously_retired:
        return [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    return [f"hall library show {lid}", "hall library review"]


@learning_commands.command(
    "list",
    "List learnings.",
    text=text.learnings,
    replies=(lib.LearningList, lib.LearningListThen),
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
    project = api.project_of(repo)
    result: lib.LearningList | lib.LearningListThen
    if args.as_of:
        from hallmark.core.memory.reading import as_of_stamp

        stamp = as_of_stamp(args.as_of) or ""  # a given --as-of always reads as a stamp (or is refused)
        rows = tuple(lib.HeldRow(**lib.LearningRow.fields_of(x), held_then=_held(x, stamp)) for x in items)
        result = lib.LearningListThen(learnings=rows, count=len(items), project=project, as_of=stamp)
    else:
        result = lib.LearningList(
            learnings=tuple(lib.LearningRow.of(x) for x in items), count=len(items), project=project
        )
    return with_next(result, ["hall library review", "hall library show <id>"], "as_of")


def _held(learning, stamp: str) -> bool:
    return learning.status in ("accepted", "promoted") and learning.valid_at(stamp)


@learning_commands.command(
    "show",
    "Show one learning, where accepting it writes, and its tombstone.",
    replies=(lib.LearningShown, lib.LearningThen),
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
        shown_then = lib.LearningThen.of(then, as_of=stamp, held_then=_held(then, stamp))
        return with_next(shown_then, [f"hall library show {then.id}", f"hall library history {then.id}"])
    learning = api.get(repo, args.id)
    preview = api.preview(repo, learning.id)
    nxt = _next_for(learning)
    auto = api.automation_confirmation(learning) if learning.status in ("proposed", "skipped") else None
    if auto:
        nxt = [
            f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
            *[n for n in nxt if not n.startswith(f"hall library accept {learning.id}")],
        ]
    shown = lib.LearningShown.of(
        learning,
        preview=preview,
        tombstone=api.tombstone_for(repo, learning.id),
        versions=len(api.history(repo, learning.id)),
        automation={**(preview.automation or {})} if auto else None,
    )
    return with_next(shown, nxt, "automation")


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
    replies=(lib.Accepted,),
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
    accepted = lib.Accepted.of(learning, promoted_to=(learning.promotion or {}).get("path"))
    return with_next(accepted, [*_next_for(learning), "hall library review"])


@learning_commands.command(
    "reject",
    "Decline a learning: it becomes a tombstone with the reason.",
    replies=(lib.LearningReply,),
    args=[arg("id"), arg("--reason", required=True)],
)
def cmd_reject(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.reject(_repo(), args.id, args.reason, actor=current_actor())
    return with_next(lib.LearningReply.of(learning), ["hall library review", f"hall library undo {learning.id}"])


@learning_commands.command(
    "skip", "Not now: offered again at the next drain.", replies=(lib.Skipped,), args=[arg("id")]
)
def cmd_skip(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.skip(_repo(), args.id, actor=current_actor())
    return with_next(lib.Skipped.of(learning, skip_count=learning.skip_count), ["hall library review"])


@learning_commands.command(
    "retire",
    "Take an accepted learning out of use, removing its promoted block or file.",
    replies=(lib.Retired,),
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
    retired = lib.Retired.of(
        learning,
        kept=kept if ours else None,
        message=f"Your edit of the promoted text was kept at {kept['at']}: {kept['why']}." if ours else None,
    )
    return with_next(retired, [f"hall library review --reopen {learning.id}", "hall library list"])


@learning_commands.command(
    "undo",
    "Revert the last decision on a learning (and the promotion it caused).",
    replies=(lib.LearningReply,),
    args=[arg("id")],
)
def cmd_undo(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.undo(_repo(), args.id, actor=current_actor())
    return with_next(lib.LearningReply.of(learning), _next_for(learning))


@learning_commands.command(
    "review",
    "The drain: the pending queue, or decide one (--accept/--skip/--reject/--reopen).",
    text=text.learnings,
    replies=(lib.PendingQueue, lib.LearningReply),
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
        return with_next(lib.LearningReply.of(learning), _next_for(learning))
    if args.accept:
        learning = api.accept(repo, args.accept, actor=actor, confirm_automation=args.confirm_automation)
        return with_next(lib.LearningReply.of(learning), ["hall library review"])
    if args.reject:
        if not args.reason:
            raise HallError("USAGE", "--reject needs --reason", ["hall library review --reject ID --reason '…'"])
        learning = api.reject(repo, args.reject, args.reason, actor=actor)
        return with_next(lib.LearningReply.of(learning), ["hall library review"])
    if args.skip:
        learning = api.skip(repo, args.skip, actor=actor)
        return with_next(lib.LearningReply.of(learning), ["hall library review"])
    api.propose_retirements(repo, actor="librarian")  # unused for retire_after: offered, never removed
    queue = api.pending(repo)
    entries = []
    for learning in queue:
        auto = api.automation_confirmation(learning) if not learning.retire_proposal else None
        automation = None
        if auto:  # the exact command and file, and its own confirmation: never accepted in bulk
            automation = {
                "file": ".claude/settings.local.json",
                "event": auto["event"],
                "matcher": auto["matcher"],
                "command": auto["command"],
                "confirm": auto["confirm"],
                "accept": f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
            }
        entries.append(
            lib.PendingRow(
                **lib.LearningRow.fields_of(learning),
                rationale=learning.rationale,
                evidence=learning.evidence,
                where=api.preview(repo, learning.id),
                retire_reason=(learning.retire_proposal or {}).get("reason"),
                automation=automation,
            )
        )
    first = queue[0] if queue else None
    result = lib.PendingQueue(pending=tuple(entries), count=len(entries), last_drain=api.last_drain_summary(repo))
    return with_next(result, _next_for(first) if first else ["hall library list"])


@learning_commands.command(
    "search",
    "Full-text search of accepted learnings (SQLite FTS5).",
    text=text.learnings,
    replies=(lib.Found,),
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
    result = lib.Found(
        query=" ".join(args.words),
        learnings=tuple(lib.LearningRow.of(x) for x in found),
        count=len(found),
        searched="accepted learnings only",
    )
    return with_next(result, ["hall library show <id>"])


@learning_commands.command(
    "briefing",
    "Accepted learnings for changed paths, within the effort's token cap.",
    text=text.briefing,
    replies=(lib.Briefing, lib.DegradedBriefing),
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
    return with_next(result, briefing_next(result))


def briefing_next(result: lib.Briefing | lib.DegradedBriefing) -> list[str]:
    """A degraded briefing points at the doctor and what repairs the store."""
    if isinstance(result, lib.DegradedBriefing):
        return ["hall doctor", *result.fixes]
    return ["hall library search <words>", "hall library list"]


@learning_commands.command(
    "reconcile",
    "Find promoted blocks/files edited or deleted by hand; update, retire or restore.",
    replies=(lib.Reconciled,),
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
    nxt = [f"hall library reconcile --{offer} {entry.id}" for entry in result.drift for offer in entry.offers]
    return with_next(result, nxt or ["hall library list --status promoted"])


@learning_commands.command(
    "history", "Every version of a learning and its audit lines.", replies=(lib.History,), args=[arg("id")]
)
def cmd_history(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    versions = api.history(repo, args.id)
    result = lib.History(
        id=versions[-1].id if versions else args.id,
        versions=[v.to_dict() for v in versions],
        audit=api.audit_log(repo, args.id),
    )
    return with_next(result, [f"hall library show {args.id}"])


@learning_commands.command(
    "audit",
    "The append-only audit log (--verify replays it against the files).",
    replies=(lib.AuditReport,),
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
    problems = api.verify_audit(repo) if args.verify else None
    result = lib.AuditReport(
        audit=lines[-args.limit :] if args.limit else lines,
        count=len(lines),
        verified=(not problems) if problems is not None else None,
        problems=problems,
    )
    reply = with_next(result, ["hall library audit --verify", "hall library history <id>"])
    if problems:
        reply["_exit"] = 1
    return reply
