"""`hall library …`, `hall checkpoint …`, `hall note …`: the memory store's command-line face.

Each handler calls one verb in hallmark.core.memory and returns a dict with `next`.
"""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.repo import current_actor, open_repo

from .cmd_memory import (
    cmd_checkpoint_history,
    cmd_checkpoint_set,
    cmd_checkpoint_show,
    cmd_distill,
    cmd_export,
    cmd_identity,
    cmd_import,
    cmd_lock,
    cmd_note_add,
    cmd_note_list,
    cmd_note_remove,
    cmd_note_show,
    cmd_unused,
    text_checkpoint,
)
from .framework import Parser, add


def _repo():
    return open_repo()


def _summary(learning) -> dict[str, Any]:
    return {"id": learning.id, "kind": learning.kind, "status": learning.status, "pattern": learning.pattern,
            "occurrences": learning.occurrences, "skip_count": learning.skip_count, "paths": learning.paths,
            "retire_proposed": bool(learning.retire_proposal), "updated": learning.updated,
            "recorded": learning.recorded, "valid_from": learning.valid_since, "valid_until": learning.valid_until}


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


# -- learnings ------------------------------------------------------------------------------
def cmd_propose(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    evidence = None
    if args.quote:
        evidence = {"source": args.source, "quote": args.quote, "item": args.item, "session": args.session,
                    "file": args.file}
    reply = api.propose(_repo(), kind=args.kind, pattern=args.pattern, rationale=args.rationale or "",
                        evidence=evidence, paths=args.paths, item=args.item, actor=current_actor(),
                        details=_details(args.detail), valid_from=args.valid_from, valid_until=args.valid_until,
                        supersedes=args.supersedes)
    lid = reply["id"]
    if reply.get("previously_rejected"):
        reply["message"] = (f"This pattern was rejected before ({reply['tombstone']['reason']}); the occurrence "
                            f"was added to its tombstone {lid}, not offered as new.")
        reply["next"] = [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    elif reply.get("previously_retired"):
        reply["message"] = (f"This pattern was accepted once and then retired; the occurrence was added to {lid}. "
                            "Reopen it if it is true again.")
        reply["next"] = [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    else:
        reply["next"] = [f"hall library show {lid}", "hall library review"]
    return reply


def cmd_list(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    if args.pending:
        items = api.pending(repo)
    else:
        items = api.list_learnings(repo, status=args.status, kind=args.kind, as_of=args.as_of)
    reply = {"learnings": [_summary(x) for x in items], "count": len(items), "project": api.project_of(repo),
             "next": ["hall library review", "hall library show <id>"]}
    if args.as_of:
        from hallmark.core.memory.reading import as_of_stamp

        stamp = as_of_stamp(args.as_of)
        reply["as_of"] = stamp
        for entry, learning in zip(reply["learnings"], items, strict=True):
            entry["held_then"] = learning.status in ("accepted", "promoted") and learning.valid_at(stamp)
    return reply


def cmd_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    if args.as_of:
        from hallmark.core.memory.reading import as_of_stamp

        then = api.get(repo, args.id, as_of=args.as_of)
        stamp = as_of_stamp(args.as_of)
        return _learning_reply(then, [f"hall library show {then.id}", f"hall library history {then.id}"],
                               as_of=stamp, held_then=then.status in ("accepted", "promoted") and then.valid_at(stamp))
    learning = api.get(repo, args.id)
    reply = _learning_reply(learning, _next_for(learning), preview=api.preview(repo, learning.id),
                            tombstone=api.tombstone_for(repo, learning.id),
                            versions=len(api.history(repo, learning.id)))
    auto = api.automation_confirmation(learning) if learning.status in ("proposed", "skipped") else None
    if auto:
        reply["automation"] = {**(reply["preview"].get("automation") or {})}
        reply["next"] = [f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
                         *[n for n in reply["next"] if not n.startswith(f"hall library accept {learning.id}")]]
    return reply


def _next_for(learning) -> list[str]:
    from hallmark.core.memory import api

    lid = learning.id
    auto = api.automation_confirmation(learning) if learning.status in ("proposed", "skipped") else None
    if auto:
        return [f"hall library show {lid}", f"hall library accept {lid} --confirm-automation {auto['confirm']}",
                f"hall library skip {lid}", f"hall library reject {lid} --reason '…'"]
    if learning.status in ("proposed", "skipped") or learning.retire_proposal:
        return [f"hall library accept {lid}", f"hall library skip {lid}", f"hall library reject {lid} --reason '…'"]
    if learning.status in ("accepted", "promoted"):
        return [f"hall library retire {lid} --reason '…'", f"hall library history {lid}"]
    return [f"hall library review --reopen {lid}", f"hall library history {lid}"]


def cmd_accept(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.accept(_repo(), args.id, actor=current_actor(), pattern=args.pattern,
                          promote_it=not args.no_promote, confirm_automation=args.confirm_automation,
                          valid_from=args.valid_from, valid_until=args.valid_until)
    return _learning_reply(learning, _next_for(learning) + ["hall library review"],
                           promoted_to=(learning.promotion or {}).get("path"))


def cmd_reject(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.reject(_repo(), args.id, args.reason, actor=current_actor())
    return _learning_reply(learning, ["hall library review", f"hall library undo {learning.id}"])


def cmd_skip(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.skip(_repo(), args.id, actor=current_actor())
    return _learning_reply(learning, ["hall library review"], skip_count=learning.skip_count)


def cmd_retire(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.retire(_repo(), args.id, args.reason, actor=current_actor(), valid_until=args.valid_until)
    kept = (learning.details.get("kept_edits") or [None])[-1]
    extra = {"kept": kept} if kept and kept.get("t") == learning.updated else {}
    if extra:
        extra["message"] = f"Your edit of the promoted text was kept at {kept['at']}: {kept['why']}."
    return _learning_reply(learning, [f"hall library review --reopen {learning.id}", "hall library list"], **extra)


def cmd_undo(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    learning = api.undo(_repo(), args.id, actor=current_actor())
    return _learning_reply(learning, _next_for(learning))


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
        entry.update(rationale=learning.rationale, evidence=learning.evidence, where=api.preview(repo, learning.id),
                     retire_reason=(learning.retire_proposal or {}).get("reason"))
        auto = api.automation_confirmation(learning) if not learning.retire_proposal else None
        if auto:  # the exact command and file, and its own confirmation: never accepted in bulk
            entry["automation"] = {"file": ".claude/settings.local.json", "event": auto["event"],
                                   "matcher": auto["matcher"], "command": auto["command"], "confirm": auto["confirm"],
                                   "accept": f"hall library accept {learning.id} --confirm-automation {auto['confirm']}"}
        entries.append(entry)
    first = queue[0] if queue else None
    return {"pending": entries, "count": len(entries), "last_drain": api.last_drain_summary(repo),
            "next": (_next_for(first) if first else ["hall library list"])}


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
    return {"query": " ".join(args.words), "learnings": [_summary(x) for x in found], "count": len(found),
            "searched": "accepted learnings only", "next": ["hall library show <id>"]}


def cmd_briefing(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import briefing

    result = briefing.build_or_degraded(lambda: briefing.build(
        _repo().paths, changed=args.paths or [], effort=args.effort, query=args.query or "", as_of=args.as_of))
    if result["memory_restored"]:
        result["next"] = ["hall library search <words>", "hall library list"]
    return result


def cmd_reconcile(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    result = api.reconcile(_repo(), update=args.update, retire_ids=args.retire, restore=args.restore,
                           actor=current_actor())
    nxt = []
    for entry in result["drift"]:
        nxt += [f"hall library reconcile --{offer} {entry['id']}" for offer in entry["offers"]]
    result["next"] = nxt or ["hall library list --status promoted"]
    return result


def cmd_history(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    versions = api.history(repo, args.id)
    return {"id": versions[-1].id if versions else args.id, "versions": [v.to_dict() for v in versions],
            "audit": api.audit_log(repo, args.id), "next": [f"hall library show {args.id}"]}


def cmd_audit(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    repo = _repo()
    lines = api.audit_log(repo, args.id)
    reply: dict[str, Any] = {"audit": lines[-args.limit:] if args.limit else lines, "count": len(lines)}
    if args.verify:
        problems = api.verify_audit(repo)
        reply["verified"] = not problems
        reply["problems"] = problems
        if problems:
            reply["_exit"] = 1
    reply["next"] = ["hall library audit --verify", "hall library history <id>"]
    return reply


# -- text renderers ----------------------------------------------------------------------------
def text_list(result: dict[str, Any]) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False)
    for column in ("id", "kind", "status", "seen", "pattern"):
        table.add_column(column)
    for entry in result.get("learnings") or result.get("pending") or []:
        status = entry["status"] + (" (retire?)" if entry.get("retire_proposed") else "")
        pattern = entry["pattern"][:90]
        auto = entry.get("automation")
        if auto:  # the exact command and where it goes, never hidden behind the pattern
            pattern += (f"\n⚠ writes a {auto['event']} hook into {auto['file']}:\n  {auto['command']}"
                        f"\n  accept only with: {auto['accept']}")
        # Text, not markup: a learning's words or a command are shown as written, never as styling
        table.add_row(entry["id"], entry["kind"], status, str(entry["occurrences"]), Text(pattern))
    return table


def text_briefing(result: dict[str, Any]) -> Any:
    if not result.get("memory_restored", True):
        return result.get("text")
    if not result.get("learnings"):
        return f"No accepted learnings for this briefing (cap {result.get('cap_tokens')} tokens)."
    return result["text"] + f"\n~{result['tokens']} tokens ({result['token_estimate']}); omitted {result['omitted']}"


# -- registration ------------------------------------------------------------------------------
def _group(sub: argparse._SubParsersAction, name: str, help: str) -> argparse._SubParsersAction:
    parser = sub.add_parser(name, help=help, description=help)
    parser.set_defaults(handler=None, command=name)
    return parser.add_subparsers(dest=f"{name}_cmd", metavar="<subcommand>", parser_class=Parser)


def _learning_schema() -> dict[str, Any]:
    from hallmark.core.memory import models

    return models.learning_schema()


def _librarian_schema() -> dict[str, Any]:
    import copy

    from hallmark.core.memory import distill

    return copy.deepcopy(distill.LEARNINGS_SCHEMA)


def _schemas() -> None:
    """`hall schema learning` and `hall schema librarian` (imported only when asked for)."""
    from . import cmd_meta

    cmd_meta.SCHEMAS["learning"] = _learning_schema
    cmd_meta.SCHEMAS["librarian"] = _librarian_schema


def register(sub: argparse._SubParsersAction) -> None:
    from hallmark.core.memory.notes import FACETS
    from hallmark.core.memory.store import KINDS, SOURCES

    _schemas()

    lib = _group(sub, "library", "The memory store: learnings a person approves, decisions, search, briefings.")
    p = add(lib, "propose", cmd_propose, "Propose a learning (or add an occurrence to the one it repeats).")
    p.add_argument("--kind", required=True, choices=KINDS)
    p.add_argument("--pattern", required=True, help="one idea, in words")
    p.add_argument("--rationale")
    p.add_argument("--quote", help="verbatim evidence")
    p.add_argument("--source", default="user_statement", choices=SOURCES)
    p.add_argument("--item")
    p.add_argument("--session")
    p.add_argument("--file", help="the file a correction was about")
    p.add_argument("--paths", nargs="+", metavar="GLOB")
    p.add_argument("--detail", action="append", metavar="KEY=VALUE",
                   help="per-kind details: name, hook_event, hook_matcher, action, steps, key_points…")
    p.add_argument("--valid-from", dest="valid_from", metavar="DATE", help="it holds from (default: when accepted)")
    p.add_argument("--valid-until", dest="valid_until", metavar="DATE", help="it holds until")
    p.add_argument("--supersedes", metavar="ID", help="the learning this one replaces once accepted")

    p = add(lib, "list", cmd_list, "List learnings.", text=text_list)
    p.add_argument("--status", choices=["proposed", "skipped", "accepted", "promoted", "rejected", "retired"])
    p.add_argument("--kind", choices=KINDS)
    p.add_argument("--pending", action="store_true", help="what the next drain offers")
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="what was believed then (the versions recorded by then)")

    p = add(lib, "show", cmd_show, "Show one learning, where accepting it writes, and its tombstone.")
    p.add_argument("id")
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="the version recorded by then")
    p = add(lib, "accept", cmd_accept, "Approve a learning (a person only); promotes it where its kind has a home.")
    p.add_argument("id")
    p.add_argument("--pattern", help="accept with this edited text")
    p.add_argument("--no-promote", action="store_true", help="keep it in the library only")
    p.add_argument("--confirm-automation", dest="confirm_automation", metavar="TOKEN",
                   help="an automation's own confirmation: the token `hall library show` prints with its command")
    p.add_argument("--valid-from", dest="valid_from", metavar="DATE", help="it holds from (default: now)")
    p.add_argument("--valid-until", dest="valid_until", metavar="DATE", help="it holds until")
    p = add(lib, "reject", cmd_reject, "Decline a learning: it becomes a tombstone with the reason.")
    p.add_argument("id")
    p.add_argument("--reason", required=True)
    p = add(lib, "skip", cmd_skip, "Not now: offered again at the next drain.")
    p.add_argument("id")
    p = add(lib, "retire", cmd_retire, "Take an accepted learning out of use, removing its promoted block or file.")
    p.add_argument("id")
    p.add_argument("--reason", required=True)
    p.add_argument("--valid-until", dest="valid_until", metavar="DATE", help="when it stopped holding (default: now)")
    p = add(lib, "undo", cmd_undo, "Revert the last decision on a learning (and the promotion it caused).")
    p.add_argument("id")
    p = add(lib, "review", cmd_review, "The drain: the pending queue, or decide one (--accept/--skip/--reject/--reopen).",
            text=text_list)
    p.add_argument("--accept", metavar="ID")
    p.add_argument("--skip", metavar="ID")
    p.add_argument("--reject", metavar="ID")
    p.add_argument("--reopen", metavar="ID", help="the only way back from a rejection or a retirement")
    p.add_argument("--reason")
    p.add_argument("--confirm-automation", dest="confirm_automation", metavar="TOKEN",
                   help="with --accept on an automation: its own confirmation token")
    p = add(lib, "search", cmd_search, "Full-text search of accepted learnings (SQLite FTS5).", text=text_list)
    p.add_argument("words", nargs="+")
    p.add_argument("--limit", type=int, default=20)
    p = add(lib, "briefing", cmd_briefing, "Accepted learnings for changed paths, within the effort's token cap.",
            text=text_briefing)
    p.add_argument("--paths", nargs="+", metavar="GLOB")
    p.add_argument("--effort", choices=["low", "medium", "high"], default="high")
    p.add_argument("--query")
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="the briefing as it would have been then")
    p = add(lib, "reconcile", cmd_reconcile, "Find promoted blocks/files edited or deleted by hand; update, retire or restore.")
    p.add_argument("--update", action="append", metavar="ID", help="adopt the hand edit as the learning's text")
    p.add_argument("--retire", action="append", metavar="ID")
    p.add_argument("--restore", action="append", metavar="ID", help="write the learning's text back")
    p = add(lib, "lock", cmd_lock, "Lock a decision (shows what will be locked; --confirm writes it).")
    p.add_argument("--title")
    p.add_argument("--spec", help="the specification")
    p.add_argument("--allow", action="append", metavar="TEXT", help="an allowed variation")
    p.add_argument("--anti", action="append", metavar="TEXT", help="an anti-pattern")
    p.add_argument("--applies", nargs="+", metavar="GLOB")
    p.add_argument("--context")
    p.add_argument("--supersedes", metavar="D-ID")
    p.add_argument("--confirm", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="with --list: the decisions as they stood then")
    p.add_argument("--show", metavar="D-ID")
    p = add(lib, "history", cmd_history, "Every version of a learning and its audit lines.")
    p.add_argument("id")
    p = add(lib, "audit", cmd_audit, "The append-only audit log (--verify replays it against the files).")
    p.add_argument("id", nargs="?")
    p.add_argument("--verify", action="store_true")
    p.add_argument("--limit", type=int, default=0)
    p = add(lib, "import", cmd_import, "Import craft's .craft/.learnings.yaml, or a Hallmark export (--from).")
    p.add_argument("--craft", metavar="PATH")
    p.add_argument("--from", dest="from_file", metavar="FILE")
    p.add_argument("--adopt", action="store_true", help="rescope another project's learnings here, as proposals")
    p = add(lib, "export", cmd_export, "Write the store (learnings, decisions, notes, checkpoint) to one JSON file.")
    p.add_argument("--out", metavar="FILE")
    p = add(lib, "distill", cmd_distill, "Run the librarian on an item (headless) and propose what it finds.")
    p.add_argument("item", nargs="?")
    add(lib, "unused", cmd_unused, "Propose retirement for learnings unused for retire_after (default 90d).")
    p = add(lib, "identity", cmd_identity, "The project identity memory is scoped to (.agentmemory-project).")
    p.add_argument("--write", action="store_true", help="write the proposed identity file if it is absent")

    cp = _group(sub, "checkpoint", "The one workflow checkpoint of this project (handoff state).")
    add(cp, "show", cmd_checkpoint_show, "Show the checkpoint.", text=text_checkpoint)
    p = add(cp, "set", cmd_checkpoint_set, "Replace the checkpoint (unset fields carry over unless --fresh).",
            text=text_checkpoint)
    from hallmark.core.memory.checkpoint import KEYS

    for field, key in KEYS.items():
        if field != "Updated":
            p.add_argument("--" + key.replace("_", "-"), dest=key, metavar="TEXT")
    p.add_argument("--from-file", metavar="FILE", help="'Field: value' lines ('-' for stdin)")
    p.add_argument("--fresh", action="store_true")
    add(cp, "history", cmd_checkpoint_history, "Every replaced version.")

    nt = _group(sub, "note", "Durable notes with a facet and an as-of date.")
    p = add(nt, "add", cmd_note_add, "Add a note (one fact).")
    p.add_argument("--facet", required=True, choices=FACETS)
    p.add_argument("--fact", required=True)
    p.add_argument("--provenance")
    p.add_argument("--as-of", dest="as_of", metavar="YYYY-MM-DD")
    p.add_argument("--slug")
    p = add(nt, "list", cmd_note_list, "The notes index.")
    p.add_argument("--facet", choices=FACETS)
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="the notes that held then (removed ones too)")
    p = add(nt, "show", cmd_note_show, "One note with its body.")
    p.add_argument("slug")
    p = add(nt, "remove", cmd_note_remove, "Remove a note (kept under notes/removed/).")
    p.add_argument("slug")
    p.add_argument("--reason", required=True)
