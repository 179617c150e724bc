"""`hall checkpoint …` (the project's one handoff checkpoint) and `hall note …` (durable notes with
a facet and an as-of date): the memory store's other faces beside `hall library`.

Each subcommand is declared on its handler with its arguments, summary and reply type
(core/notes_results.py); each calls one verb in hallmark.core.memory and adds `next`.
"""

from __future__ import annotations

import argparse
from typing import Any

from hallmark.core.errors import HallError
from hallmark.core.memory.checkpoint import KEYS
from hallmark.core.memory.notes import FACETS
from hallmark.core.notes_results import (
    CheckpointHistory,
    CheckpointShown,
    CheckpointWritten,
    NoteListing,
    NoteReply,
)
from hallmark.core.repo import current_actor, open_repo

from .framework import Group, arg


def _repo():
    return open_repo()


# -- checkpoint -------------------------------------------------------------------------------
def text_checkpoint(result: dict[str, Any]) -> Any:
    return result.get("text") or result.get("message")


checkpoint_group = Group("checkpoint")


@checkpoint_group.command("show", "Show the checkpoint.", text=text_checkpoint, replies=(CheckpointShown,))
def cmd_checkpoint_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    shown = checkpoint.show(_repo().paths)
    return {**shown.to_dict(), "next": ["hall checkpoint set --next-step '…'", "hall checkpoint history"]}


@checkpoint_group.command(
    "set",
    "Replace the checkpoint (unset fields carry over unless --fresh).",
    text=text_checkpoint,
    replies=(CheckpointWritten,),
    args=[
        *[
            arg("--" + key.replace("_", "-"), dest=key, metavar="TEXT")
            for field, key in KEYS.items()
            if field != "Updated"
        ],
        arg("--from-file", metavar="FILE", help="'Field: value' lines ('-' for stdin)"),
        arg("--fresh", action="store_true"),
    ],
)
def cmd_checkpoint_set(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    values: dict[str, str] = {}
    if args.from_file:
        from hallmark.core.bounded_read import CHECKPOINT_LIMIT, read_argument

        text = read_argument(args.from_file, CHECKPOINT_LIMIT, "--from-file", "hall checkpoint set --from-file <file>")
        values.update(checkpoint.parse(text))
        values.pop("Updated", None)
    for field, key in checkpoint.KEYS.items():
        value = getattr(args, key, None)
        if value is not None and field != "Updated":
            values[field] = value
    if not values:
        raise HallError(
            "USAGE",
            "nothing to set: give fields (--phase, --next-step, …) or --from-file",
            ["hall checkpoint set --help"],
        )
    written = checkpoint.set_checkpoint(_repo().paths, values, actor=current_actor(), fresh=args.fresh)
    return {**written.to_dict(), "next": ["hall checkpoint show", "hall checkpoint history"]}


@checkpoint_group.command("history", "Every replaced version.", replies=(CheckpointHistory,))
def cmd_checkpoint_history(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import checkpoint

    return {**checkpoint.history(_repo().paths).to_dict(), "next": ["hall checkpoint show"]}


# -- notes ------------------------------------------------------------------------------------
note_group = Group("note")


@note_group.command(
    "add",
    "Add a note (one fact).",
    replies=(NoteReply,),
    args=[
        arg("--facet", required=True, choices=FACETS),
        arg("--fact", required=True),
        arg("--provenance"),
        arg("--as-of", dest="as_of", metavar="YYYY-MM-DD"),
        arg("--slug"),
    ],
)
def cmd_note_add(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    added = notes.add(
        _repo().paths,
        fact=args.fact,
        facet=args.facet,
        provenance=args.provenance or "",
        as_of=args.as_of,
        slug=args.slug,
        actor=current_actor(),
    )
    return {**added.to_dict(), "next": ["hall note list", f"hall note show {added.note['slug']}"]}


@note_group.command(
    "list",
    "The notes index.",
    replies=(NoteListing,),
    args=[
        arg("--facet", choices=FACETS),
        arg("--as-of", dest="as_of", metavar="DATE", help="the notes that held then (removed ones too)"),
    ],
)
def cmd_note_list(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes
    from hallmark.core.memory.reading import as_of_stamp

    found = notes.listing(_repo().paths, facet=args.facet, as_of=as_of_stamp(args.as_of))
    return {**found.to_dict(), "next": ["hall note show <slug>", "hall note add --facet … --fact '…'"]}


@note_group.command("show", "One note with its body.", replies=(NoteReply,), args=[arg("slug")])
def cmd_note_show(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    return {**notes.show(_repo().paths, args.slug).to_dict(), "next": ["hall note list"]}


@note_group.command(
    "remove",
    "Remove a note (kept under notes/removed/).",
    replies=(NoteReply,),
    args=[
        arg("slug"),
        arg("--reason", required=True),
    ],
)
def cmd_note_remove(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.memory import notes

    removed = notes.remove(_repo().paths, args.slug, args.reason, actor=current_actor())
    return {**removed.to_dict(), "next": ["hall note list"]}
