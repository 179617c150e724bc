"""`hall library lock|import|export|distill|unused|identity`, `hall checkpoint …`, `hall note …`:
the memory store's other faces (decisions, moving learnings in and out, the checkpoint and notes).

Registered by cmd_library.register; each handler calls one verb in hallmark.core.memory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.repo import current_actor, open_repo


def _repo():
    return open_repo()


def cmd_lock(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import decisions

    repo = _repo()
    if args.list:
        from hallmark.core.memory.reading import as_of_stamp

        found = decisions.list_decisions(repo.paths, as_of=as_of_stamp(args.as_of))
        return {"decisions": found, "count": len(found), "as_of": as_of_stamp(args.as_of),
                "next": ["hall library lock --show D-1"]}
    if args.show:
        return {"decision": decisions.get(repo.paths, args.show), "next": ["hall library lock --list"]}
    result = decisions.lock(repo.paths, title=args.title or "", specification=args.spec or "", allowed=args.allow,
                            anti_patterns=args.anti, applies_to=args.applies, context=args.context or "",
                            supersedes=args.supersedes, confirm=args.confirm, actor=current_actor())
    if not result["locked"]:
        result["message"] = "Nothing was locked yet. This is what would be locked; run again with --confirm."
        result["next"] = ["the same command with --confirm"]
    else:
        result["next"] = [f"hall library lock --show {result['decision']['id']}", "hall library lock --list"]
    return result



def cmd_import(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import transfer

    repo = _repo()
    if args.from_file:
        result = transfer.import_export(repo, Path(args.from_file), adopt=args.adopt, actor=current_actor())
    else:
        source = Path(args.craft) if args.craft else repo.root / ".craft" / ".learnings.yaml"
        result = transfer.import_craft(repo, source, actor=current_actor())
    result["next"] = ["hall library review", "hall library list"]
    return result


def cmd_export(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import atomic
    from hallmark.core.memory import transfer

    data = transfer.export(_repo())
    if args.out:
        atomic.write_json(Path(args.out), data)
        return {"written": str(Path(args.out).resolve()), "learnings": len(data["learnings"]),
                "next": ["hall library import --from <file>"]}
    return {**data, "next": ["hall library export --out <file>"]}


def cmd_distill(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import items
    from hallmark.core.memory import distill

    repo = _repo()
    item_id = items.resolve(repo, args.item)
    result = distill.distill(repo, item_id)
    result["next"] = ["hall library review"]
    return result


def cmd_unused(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import api

    proposed = api.propose_retirements(_repo(), actor=current_actor())
    return {"retirement_proposed": proposed, "count": len(proposed), "next": ["hall library review"]}


def cmd_identity(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import identity
    from hallmark.core.paths import discover

    paths = discover()
    if args.write:
        result = identity.write_proposal(paths)
        result["next"] = [result.get("commit") or "hall library identity"]
        return result
    found = identity.current(paths)
    return {**found.to_dict(), "file": str(paths.toplevel / identity.FILE_NAME),
            "next": ["hall library identity --write"] if found.source != "file" else ["hall library list"]}


# -- checkpoint -------------------------------------------------------------------------------
def cmd_checkpoint_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    result = checkpoint.show(_repo().paths)
    result["next"] = ["hall checkpoint set --next-step '…'", "hall checkpoint history"]
    return result


def cmd_checkpoint_set(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    values: dict[str, str] = {}
    if args.from_file:
        text = sys.stdin.read() if args.from_file == "-" else Path(args.from_file).read_text(encoding="utf-8")
        values.update(checkpoint.parse(text))
        values.pop("Updated", None)
    for field, key in checkpoint.KEYS.items():
        value = getattr(args, key, None)
        if value is not None and field != "Updated":
            values[field] = value
    if not values:
        raise HallError("USAGE", "nothing to set: give fields (--phase, --next-step, …) or --from-file",
                        ["hall checkpoint set --help"])
    result = checkpoint.set_checkpoint(_repo().paths, values, actor=current_actor(), fresh=args.fresh)
    result["next"] = ["hall checkpoint show", "hall checkpoint history"]
    return result


def cmd_checkpoint_history(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    versions = checkpoint.history(_repo().paths)
    return {"versions": versions, "count": len(versions), "next": ["hall checkpoint show"]}


# -- notes ------------------------------------------------------------------------------------
def cmd_note_add(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    note = notes.add(_repo().paths, fact=args.fact, facet=args.facet, provenance=args.provenance or "",
                     as_of=args.as_of, slug=args.slug, actor=current_actor())
    return {"note": note, "next": ["hall note list", f"hall note show {note['slug']}"]}


def cmd_note_list(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes
    from hallmark.core.memory.reading import as_of_stamp

    found = notes.list_notes(_repo().paths, as_of=as_of_stamp(args.as_of))
    if args.facet:
        found = [n for n in found if n["facet"] == args.facet]
    return {"notes": found, "index": [notes.index_line(n) for n in found], "count": len(found),
            "next": ["hall note show <slug>", "hall note add --facet … --fact '…'"]}


def cmd_note_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    return {"note": notes.show(_repo().paths, args.slug), "next": ["hall note list"]}


def cmd_note_remove(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    return {"note": notes.remove(_repo().paths, args.slug, args.reason, actor=current_actor()),
            "next": ["hall note list"]}


def text_checkpoint(result: dict[str, Any]) -> Any:
    return result.get("text") or result.get("message")
