"""Durable notes: one fact per file, with a facet and an as-of date; a one-line index is injected.

A note is the kind of thing a person would tell a new colleague ("staging deploys need the VPN",
"Ana owns billing"). SessionStart injects one line per note (the fact, facet, as-of date and
the file); the body is read on demand. Staleness is handled by the date, not a TTL: the reader
is told "as of". Stdlib only.

Layout: library/notes/<as-of>-<slug>.md (JSON front matter + the fact and its provenance);
removed notes move to library/notes/removed/.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

from hallmark.core import atomic, clock, journal, secrets
from hallmark.core.errors import HallError
from hallmark.core.notes_results import NoteListing, NoteReply
from hallmark.core.paths import RepoPaths

from . import identity

FACETS = ("infrastructure", "tooling", "ownership", "process", "convention", "gotcha")


def notes_dir(paths: RepoPaths) -> Path:
    return paths.state_dir / "library" / "notes"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].rstrip("-") or "note"


def _parse(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise ValueError(f"{path}: no front matter")
    data = json.loads(text[4 : text.find("\n---\n", 4)])
    data["file"] = str(path)
    return data


def _render(note: dict[str, Any]) -> str:
    record = {k: v for k, v in note.items() if k != "file"}
    body = f"{note['fact']}\n"
    if note.get("provenance"):
        body += f"\n{note['provenance']}\n"
    return "---\n" + json.dumps(record, indent=2, ensure_ascii=False) + "\n---\n\n" + body


def add(
    paths: RepoPaths,
    *,
    fact: str,
    facet: str,
    provenance: str = "",
    as_of: str | None = None,
    slug: str | None = None,
    actor: str = "you",
) -> NoteReply:
    fact = (fact or "").strip()
    if not fact:
        raise HallError("USAGE", "a note needs its fact", ["hall note add --facet … --fact '…'"])
    if facet not in FACETS:
        raise HallError("USAGE", f"unknown facet '{facet}' (one of: {', '.join(FACETS)})", ["hall note add --help"])
    when = as_of or clock.now().date().isoformat()
    try:
        date.fromisoformat(when)
    except ValueError:
        raise HallError("USAGE", f"--as-of '{when}' is not a date (YYYY-MM-DD)", ["hall note add --help"]) from None
    secrets.refuse_if_secret({"fact": fact, "provenance": provenance, "slug": slug or ""}, "the note")
    project = identity.current(paths).value
    name = _slug(slug or fact)
    folder = notes_dir(paths)
    with journal.locked(folder / "notes"):
        for existing in list_notes(paths, project=project):
            if existing["slug"] == name:
                raise HallError(
                    "WRONG_STATE",
                    f"a note '{name}' exists already ({existing['file']})",
                    [f"hall note show {name}", f"hall note remove {name} --reason '…'"],
                )
        now = clock.stamp()
        note = {
            "slug": name,
            "facet": facet,
            "fact": fact,
            "provenance": provenance.strip(),
            "as_of": when,
            "project": project,
            "created": now,
            "by": actor,
            "recorded": now,
            "valid_from": when,
            "valid_until": None,
        }
        path = folder / f"{when}-{name}.md"
        atomic.write_text(path, _render(note))
        journal.append(
            paths.state_dir / "library" / "audit.jsonl",
            "note",
            item=None,
            actor=actor,
            action="add",
            slug=name,
            why=facet,
        )
    note["file"] = str(path)
    return NoteReply(note=note)


def with_time(note: dict[str, Any]) -> dict[str, Any]:
    """Record time (when Hallmark was told) and validity time (from its as-of date until removed);
    notes written before these fields existed get them derived."""
    note.setdefault("recorded", note.get("created"))
    note.setdefault("valid_from", note.get("as_of"))
    note.setdefault("valid_until", note.get("removed"))
    return note


def list_notes(paths: RepoPaths, project: str | None = None, as_of: str | None = None) -> list[dict[str, Any]]:
    """The project's notes now; with as_of (a stamp), the ones recorded by then and holding then
    (removed notes included while they held)."""
    project = project or identity.current(paths).value
    out = []
    files = sorted(notes_dir(paths).glob("*.md"))
    if as_of:
        files += sorted((notes_dir(paths) / "removed").glob("*.md"))
    for path in files:
        try:
            note = with_time(_parse(path))
        except (ValueError, OSError, json.JSONDecodeError):
            continue
        if note.get("project") != project:
            continue
        if as_of and not (
            (note.get("recorded") or "") <= as_of
            and (note.get("valid_from") or "") <= as_of
            and (not note.get("valid_until") or as_of < note["valid_until"])
        ):
            continue
        out.append(note)
    return out


def find(paths: RepoPaths, slug: str) -> dict[str, Any]:
    for note in list_notes(paths):
        if note["slug"] == slug or Path(note["file"]).stem == slug:
            return note
    raise HallError("LEARNING_NOT_FOUND", f"No note '{slug}'.", ["hall note list"])


def listing(paths: RepoPaths, *, facet: str | None = None, as_of: str | None = None) -> NoteListing:
    """`hall note list`: the notes (of one facet, if given; as they held at the stamp as_of) with
    the index line SessionStart injects for each."""
    found = list_notes(paths, as_of=as_of)
    if facet:
        found = [n for n in found if n["facet"] == facet]
    return NoteListing(notes=found, index=[index_line(n) for n in found], count=len(found))


def show(paths: RepoPaths, slug: str) -> NoteReply:
    note = find(paths, slug)
    note["body"] = Path(note["file"]).read_text(encoding="utf-8").split("\n---\n", 1)[1].strip()
    return NoteReply(note=note)


def remove(paths: RepoPaths, slug: str, reason: str, actor: str = "you") -> NoteReply:
    if not (reason or "").strip():
        raise HallError("USAGE", "removing a note needs a reason", [f"hall note remove {slug} --reason '…'"])
    note = find(paths, slug)
    source = Path(note["file"])
    target = source.parent / "removed" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    now = clock.stamp()
    atomic.write_text(source, _render({**note, "removed": now, "valid_until": now, "removed_why": reason}))
    source.replace(target)  # its validity ends; the record stays, for --as-of
    journal.append(
        paths.state_dir / "library" / "audit.jsonl",
        "note",
        item=None,
        actor=actor,
        action="remove",
        slug=note["slug"],
        why=reason,
    )
    return NoteReply(note={**note, "file": str(target), "removed": True})


def index_line(note: dict[str, Any], root: Path | None = None) -> str:
    where = Path(note["file"]).name
    return f"- {note['fact'].splitlines()[0][:160]} ({note['facet']}, as of {note['as_of']}) — notes/{where}"
