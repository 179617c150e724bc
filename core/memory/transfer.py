"""Moving learnings in and out: craft's `.craft/.learnings.yaml`, and Hallmark's own export file.

craft: pending entries become `proposed`; written entries become `accepted` (craft already
copied them into .claude/, so they are not promoted a second time). Every imported entry passes
the secret scanner and the tombstone rule like any proposal.

Export: one JSON file with the project's learnings, locked decisions, notes and checkpoint.
Importing an export from ANOTHER project keeps its scope, so none of it is ever returned here,
unless --adopt rescopes it to this project as proposals a person must drain. Stdlib only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hallmark.core import clock
from hallmark.core.errors import HallError

from . import api, checkpoint, decisions, notes, yamlish
from .move_results import CraftImport, CraftImported, Export, StoreImport
from .store import KINDS, SOURCES

CRAFT_CATEGORIES = {
    "conventions": "convention",
    "convention": "convention",
    "behaviours": "convention",
    "behaviors": "convention",
    "behaviour": "convention",
    "behavior": "convention",
    "enforcements": "enforcement",
    "enforcement": "enforcement",
    "automations": "automation",
    "automation": "automation",
    "skills": "skill",
    "skill": "skill",
    "workflows": "workflow",
    "workflow": "workflow",
}
DETAIL_KEYS = (
    "rule_name",
    "trigger",
    "action",
    "hook_event",
    "hook_matcher",
    "canonical_example",
    "key_points",
    "steps",
    "section",
    "name",
)
EXPORT_FORMAT = "hallmark-library"


def _craft_entries(data: Any) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(data, dict) and isinstance(data.get("learnings"), list):
        for entry in data["learnings"]:
            if isinstance(entry, dict):
                category = str(entry.get("category") or entry.get("type") or "conventions").lower()
                out.append((CRAFT_CATEGORIES.get(category, "convention"), entry))
        return out
    if not isinstance(data, dict):
        raise HallError(
            "USAGE", "the craft learnings file is not a mapping of categories", ["hall library import --help"]
        )
    for category, entries in data.items():
        kind = CRAFT_CATEGORIES.get(str(category).lower())
        if kind is None or not isinstance(entries, list):
            continue
        out.extend((kind, e) for e in entries if isinstance(e, dict))
    return out


def import_craft(repo: Any, path: Path, *, actor: str = "you") -> CraftImport:
    from hallmark.core.bounded_read import IMPORT_LIMIT, read_argument

    text = read_argument(str(path), IMPORT_LIMIT, "--craft", "hall library import --craft .craft/.learnings.yaml")
    try:
        data = yamlish.loads(text)
    except yamlish.YamlError as exc:
        raise HallError("USAGE", f"{path}: {exc}. Nothing was imported.", ["fix the file and run it again"]) from exc
    entries = _craft_entries(data)
    # check every entry before writing any, so a secret or a bad entry imports nothing
    from hallmark.core import secrets

    for index, (_, entry) in enumerate(entries):
        if not str(entry.get("pattern") or "").strip():
            raise HallError("USAGE", f"{path}: entry {index + 1} has no pattern. Nothing was imported.", [])
        secrets.refuse_if_secret({f"entry {index + 1}": entry}, f"the import of {path}")
    results: list[CraftImported] = []
    for kind, entry in entries:
        evidence = []
        for ev in entry.get("evidence") or []:
            if not isinstance(ev, dict):
                continue
            source = str(ev.get("source") or "import")
            evidence.append(
                {
                    "source": source if source in SOURCES else "import",
                    "quote": str(ev.get("quote") or ""),
                    "item": ev.get("story") or ev.get("item"),
                    "date": str(ev.get("date") or "") or None,
                    "file": ev.get("file"),
                }
            )
        details = {k: entry[k] for k in DETAIL_KEYS if entry.get(k) is not None}
        details["craft_status"] = entry.get("status")
        paths = entry.get("paths") or []
        if isinstance(paths, str):
            paths = [paths]
        reply = api.propose(
            repo,
            kind=kind,
            pattern=str(entry["pattern"]),
            rationale=str(entry.get("rationale") or ""),
            evidence=evidence or {"source": "import", "quote": f"imported from {path}"},
            paths=[str(p) for p in paths],
            actor=actor,
            details=details,
            origin="import",
            occurrences=int(entry.get("occurrences") or 1),
        )
        status = reply.status
        # an automation is never accepted in bulk: it stays proposed for its own confirmation
        if (
            str(entry.get("status") or "").lower() == "written"
            and reply.created
            and actor == api.PERSON
            and kind != "automation"
        ):
            status = api.accept(
                repo,
                reply.id,
                actor=actor,
                promote_it=False,
                why="written by craft before the import (already in .claude/)",
            ).status
        results.append(
            CraftImported(
                id=reply.id,
                kind=kind,
                status=status,
                created=reply.created,
                previously_rejected=bool(reply.previously_rejected),
            )
        )
    return CraftImport(source=str(path), imported=tuple(results), count=len(results))


def export(repo: Any) -> Export:
    paths = api._paths(repo)
    project = api.project_of(repo)
    return Export(
        format=EXPORT_FORMAT,
        version=1,
        project=project,
        exported=clock.stamp(),
        learnings=[x.to_dict() for x in api.list_learnings(repo)],
        decisions=decisions.list_decisions(paths),
        notes=[{k: v for k, v in n.items() if k != "file"} for n in notes.list_notes(paths)],
        checkpoint=checkpoint.show(paths).checkpoint,
    )


def import_export(repo: Any, path: Path, *, adopt: bool = False, actor: str = "you") -> StoreImport:
    from hallmark.core.bounded_read import IMPORT_LIMIT, read_argument

    text = read_argument(str(path), IMPORT_LIMIT, "--from", "hall library export --out FILE")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HallError("USAGE", f"{path} is not JSON ({exc}). Nothing was imported.", []) from exc
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise HallError("USAGE", f"{path} is not a Hallmark library export", ["hall library export --out FILE"])
    here = api.project_of(repo)
    results: list[dict[str, Any]] = []
    for record in data.get("learnings") or []:
        if not isinstance(record, dict) or record.get("kind") not in KINDS or not record.get("pattern"):
            continue
        origin_project = str((record.get("scope") or {}).get("project") or data.get("project") or "")
        same = origin_project == here
        project = here if (same or adopt) else origin_project
        reply = api.propose(
            repo,
            kind=record["kind"],
            pattern=record["pattern"],
            rationale=record.get("rationale", ""),
            evidence=[e for e in record.get("evidence") or [] if isinstance(e, dict)] or None,
            paths=list((record.get("scope") or {}).get("paths") or []),
            actor=actor,
            details=dict(record.get("details") or {}),
            origin="import",
            occurrences=int(record.get("occurrences") or 1),
            project=project,
        )
        status = reply.status
        if (
            same
            and reply.created
            and record.get("status") in ("accepted", "promoted")
            and actor == api.PERSON
            and record["kind"] != "automation"
        ):
            status = api.accept(
                repo, reply.id, actor=actor, promote_it=False, why="accepted in the exported store"
            ).status
        results.append({"id": reply.id, "status": status, "project": project, "from": record.get("id")})
    restored = _restore_rest(repo, data, actor) if data.get("project") == here else {}
    return StoreImport(source=str(path), imported=results, count=len(results), project=here, **restored)


def _restore_rest(repo: Any, data: dict[str, Any], actor: str) -> dict[str, Any]:
    """Same project: bring back notes and decisions that are missing, and the checkpoint if there is none."""
    paths = api._paths(repo)
    have = {n["slug"] for n in notes.list_notes(paths)}
    restored_notes = []
    for note in data.get("notes") or []:
        if isinstance(note, dict) and note.get("slug") not in have and note.get("facet") in notes.FACETS:
            notes.add(
                paths,
                fact=str(note.get("fact") or ""),
                facet=note["facet"],
                provenance=str(note.get("provenance") or ""),
                as_of=note.get("as_of"),
                slug=note.get("slug"),
                actor=actor,
            )
            restored_notes.append(note["slug"])
    restored_decisions = []
    for decision in data.get("decisions") or []:
        if isinstance(decision, dict) and decisions.restore(paths, decision, actor=actor):
            restored_decisions.append(decision.get("id"))  # noqa: PERF401 - restore writes; a loop says so
    restored_checkpoint = False
    slot = data.get("checkpoint")
    if isinstance(slot, dict) and checkpoint.show(paths).checkpoint is None:
        values = {k: str(v) for k, v in slot.items() if k in checkpoint.FIELDS and k != "Updated"}
        checkpoint.set_checkpoint(paths, values, actor=actor, fresh=True)
        restored_checkpoint = True
    return {
        "notes_restored": restored_notes,
        "decisions_restored": restored_decisions,
        "checkpoint_restored": restored_checkpoint,
    }
