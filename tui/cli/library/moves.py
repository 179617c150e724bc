"""`hall library` on decisions, and moving learnings in and out: lock a decision, import (craft's
file or a Hallmark export), export the store, run the librarian on an item, propose retiring unused
learnings, the project identity memory is scoped to. Declared like learnings.py, beside it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hallmark.core.memory.move_results import (
    CraftImport,
    DecisionList,
    DecisionShown,
    Distilled,
    Export,
    ExportWritten,
    IdentityShown,
    IdentityWritten,
    LockDraft,
    Locked,
    StoreImport,
)
from hallmark.core.memory.results import RetirementsProposed
from hallmark.core.repo import current_actor, open_repo
from hallmark.tui.cli.framework import Group, arg

move_commands = Group("library")  # joined with the other parts in __init__.py


@move_commands.command(
    "lock",
    "Lock a decision (shows what will be locked; --confirm writes it).",
    replies=(DecisionList, DecisionShown, LockDraft, Locked),
    args=[
        arg("--title"),
        arg("--spec", help="the specification"),
        arg("--allow", action="append", metavar="TEXT", help="an allowed variation"),
        arg("--anti", action="append", metavar="TEXT", help="an anti-pattern"),
        arg("--applies", nargs="+", metavar="GLOB"),
        arg("--context"),
        arg("--supersedes", metavar="D-ID"),
        arg("--confirm", action="store_true"),
        arg("--list", action="store_true"),
        arg("--as-of", dest="as_of", metavar="DATE", help="with --list: the decisions as they stood then"),
        arg("--show", metavar="D-ID"),
    ],
)
def cmd_lock(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import decisions

    repo = open_repo()
    if args.list:
        from hallmark.core.memory.reading import as_of_stamp

        found = decisions.list_decisions(repo.paths, as_of=as_of_stamp(args.as_of))
        listed = DecisionList(decisions=found, count=len(found), as_of=as_of_stamp(args.as_of))
        return {**listed.to_dict(), "next": ["hall library lock --show D-1"]}
    if args.show:
        shown = DecisionShown(decision=decisions.get(repo.paths, args.show))
        return {**shown.to_dict(), "next": ["hall library lock --list"]}
    result = decisions.lock(
        repo.paths,
        title=args.title or "",
        specification=args.spec or "",
        allowed=args.allow,
        anti_patterns=args.anti,
        applies_to=args.applies,
        context=args.context or "",
        supersedes=args.supersedes,
        confirm=args.confirm,
        actor=current_actor(),
    )
    if isinstance(result, LockDraft):
        return {**result.to_dict(), "next": ["the same command with --confirm"]}
    return {
        **result.to_dict(),
        "next": [f"hall library lock --show {result.decision['id']}", "hall library lock --list"],
    }


@move_commands.command(
    "import",
    "Import craft's .craft/.learnings.yaml, or a Hallmark export (--from).",
    replies=(CraftImport, StoreImport),
    args=[
        arg("--craft", metavar="PATH"),
        arg("--from", dest="from_file", metavar="FILE"),
        arg("--adopt", action="store_true", help="rescope another project's learnings here, as proposals"),
    ],
)
def cmd_import(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import transfer

    repo = open_repo()
    result: CraftImport | StoreImport
    if args.from_file:
        result = transfer.import_export(repo, Path(args.from_file), adopt=args.adopt, actor=current_actor())
    else:
        source = Path(args.craft) if args.craft else repo.root / ".craft" / ".learnings.yaml"
        result = transfer.import_craft(repo, source, actor=current_actor())
    return {**result.to_dict(), "next": ["hall library review", "hall library list"]}


@move_commands.command(
    "export",
    "Write the store (learnings, decisions, notes, checkpoint) to one JSON file.",
    replies=(Export, ExportWritten),
    args=[arg("--out", metavar="FILE")],
)
def cmd_export(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import atomic
    from hallmark.core.memory import transfer

    data = transfer.export(open_repo())
    if args.out:
        atomic.write_json(Path(args.out), data.to_dict())
        written = ExportWritten(written=str(Path(args.out).resolve()), learnings=len(data.learnings))
        return {**written.to_dict(), "next": ["hall library import --from <file>"]}
    return {**data.to_dict(), "next": ["hall library export --out <file>"]}


@move_commands.command(
    "distill",
    "Run the librarian on an item (headless) and propose what it finds.",
    replies=(Distilled,),
    args=[arg("item", nargs="?")],
)
def cmd_distill(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import items
    from hallmark.core.memory import distill

    repo = open_repo()
    item_id = items.resolve(repo, args.item)
    result = distill.distill(repo, item_id)
    reply = {**result.to_dict(), "next": ["hall library review"]}
    if result.failed is not None:
        reply["_exit"] = 1  # the run failed: nothing was proposed
    return reply


@move_commands.command(
    "unused", "Propose retirement for learnings unused for retire_after (default 90d).", replies=(RetirementsProposed,)
)
def cmd_unused(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    proposed = api.propose_retirements(open_repo(), actor=current_actor())
    result = RetirementsProposed(retirement_proposed=proposed, count=len(proposed))
    return {**result.to_dict(), "next": ["hall library review"]}


@move_commands.command(
    "identity",
    "The project identity memory is scoped to (.agentmemory-project).",
    replies=(IdentityShown, IdentityWritten),
    args=[
        arg("--write", action="store_true", help="write the proposed identity file if it is absent"),
    ],
)
def cmd_identity(args: argparse.Namespace) -> dict[str, Any]:
    """Not person-only, --write included (as `hall init`, which writes the same file, is not): it
    writes `.agentmemory-project` only when absent, with the value memory already reads here (the
    origin's, else this clone's local one), never one the caller chooses; and memory is scoped by
    the committed value only, so until a person commits it the file changes whose memory is read for
    nobody (tests/cli/test_library_results.py). An agent gains nothing its Write tool does not give."""
    from hallmark.core.memory import identity
    from hallmark.core.paths import discover

    paths = discover()  # required: it raises NOT_A_REPO outside a repository
    assert paths is not None
    if args.write:
        written = identity.write_proposal(paths)
        return {**written.to_dict(), "next": [written.commit or "hall library identity"]}
    found = identity.current(paths)
    shown = IdentityShown(project=found.value, source=found.source, file=str(paths.toplevel / identity.FILE_NAME))
    return {
        **shown.to_dict(),
        "next": ["hall library identity --write"] if found.source != "file" else ["hall library list"],
    }
