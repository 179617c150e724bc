"""Locked decisions: a specification, its allowed variations and its anti-patterns, fixed by a person.

Locking shows exactly what will be locked first (without --confirm nothing is written), so a
decision never becomes a standard by accident. A decision is never edited: a new one supersedes
it, and the old one stays with a link to its replacement. Stdlib only.

Layout: library/decisions/D-0001.md (JSON front matter + a readable body).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallmark.core import atomic, clock, journal, secrets
from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths

from . import identity

if TYPE_CHECKING:
    from .move_results import LockDraft, Locked

_ID = re.compile(r"^(?:[dD]-?)?0*(\d{1,9})$")


def parse_id(text: str) -> str:
    match = _ID.match(str(text).strip())
    if not match or int(match.group(1)) == 0:
        raise HallError("USAGE", f"'{text}' is not a decision ID (try D-1).", ["hall library lock --list"])
    return f"D-{int(match.group(1)):04d}"


def folder(paths: RepoPaths) -> Path:
    return paths.state_dir / "library" / "decisions"


def _render(decision: dict[str, Any]) -> str:
    lines = [
        "---",
        json.dumps(decision, indent=2, ensure_ascii=False),
        "---",
        "",
        f"# {decision['id']} · {decision['title']} · {decision['status']}",
        "",
        f"**Specification:** {decision['specification']}",
        "",
    ]
    if decision.get("applies_to"):
        lines += ["**Applies to:** " + ", ".join(f"`{p}`" for p in decision["applies_to"]), ""]
    if decision.get("allowed"):
        lines += ["**Allowed variations:**", *[f"- {a}" for a in decision["allowed"]], ""]
    if decision.get("anti_patterns"):
        lines += ["**Anti-patterns:**", *[f"- {a}" for a in decision["anti_patterns"]], ""]
    if decision.get("superseded_by"):
        lines += [f"Superseded by {decision['superseded_by']}.", ""]
    return "\n".join(lines)


def _read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return json.loads(text[4 : text.find("\n---\n", 4)])


def with_time(decision: dict[str, Any]) -> dict[str, Any]:
    """Record time and validity time on a decision (files from before they existed get them derived):
    recorded = when it was locked; valid from then until its supersession."""
    out = dict(decision)
    out.setdefault("recorded", out.get("created"))
    out.setdefault("valid_from", out.get("created"))
    out.setdefault("valid_until", out.get("superseded"))
    return out


def _at(decision: dict[str, Any], stamp: str) -> dict[str, Any] | None:
    """The decision as it stood at stamp: None if not locked yet; 'locked' while it held."""
    if not decision.get("recorded") or decision["recorded"] > stamp:
        return None
    then = dict(decision)
    until = decision.get("valid_until")
    if until and until > stamp:
        then.update(status="locked", superseded_by=None)
    return then


def list_decisions(
    paths: RepoPaths, *, include_superseded: bool = True, as_of: str | None = None
) -> list[dict[str, Any]]:
    """This project's decisions; with as_of (a stamp), as they stood then."""
    project = identity.current(paths).value
    out = []
    for path in sorted(folder(paths).glob("D-*.md")):
        try:
            decision = with_time(_read(path))
        except (OSError, ValueError):
            continue
        if decision.get("project") != project:
            continue
        if as_of:
            then = _at(decision, as_of)
            if then is None:
                continue
            decision = then
        if include_superseded or decision.get("status") == "locked":
            out.append(decision)
    return out


def get(paths: RepoPaths, did: str) -> dict[str, Any]:
    did = parse_id(did)
    project = identity.current(paths).value
    try:
        decision = with_time(_read(folder(paths) / f"{did}.md"))
    except FileNotFoundError:
        raise HallError("LEARNING_NOT_FOUND", f"No decision {did}.", ["hall library lock --list"]) from None
    if decision.get("project") != project:
        raise HallError("LEARNING_NOT_FOUND", f"No decision {did} in project {project}.", ["hall library lock --list"])
    return decision


def lock(
    paths: RepoPaths,
    *,
    title: str,
    specification: str,
    allowed: list[str] | None = None,
    anti_patterns: list[str] | None = None,
    applies_to: list[str] | None = None,
    context: str = "",
    supersedes: str | None = None,
    confirm: bool = False,
    actor: str = "you",
) -> LockDraft | Locked:
    """Without confirm: what would be locked. With: lock it (and mark what it supersedes)."""
    # imported here: the SessionStart hook loads this module, not this verb, and stays light
    from .move_results import LockDraft, Locked

    title, specification = (title or "").strip(), (specification or "").strip()
    if not title or not specification:
        raise HallError("USAGE", "a decision needs --title and --spec", ["hall library lock --help"])
    draft = {
        "title": title,
        "specification": specification,
        "allowed": list(allowed or []),
        "anti_patterns": list(anti_patterns or []),
        "applies_to": list(applies_to or []),
        "context": context.strip(),
    }
    secrets.refuse_if_secret(draft, "the decision")
    old = get(paths, supersedes) if supersedes else None
    if old and old.get("status") != "locked":
        raise HallError(
            "WRONG_STATE",
            f"{old['id']} is already superseded by {old.get('superseded_by')}.",
            [f"hall library lock --show {old.get('superseded_by')}"],
        )
    if not confirm:
        return LockDraft(would_lock=draft, supersedes=old["id"] if old else None)
    from .access import person

    actor = person(paths, "lock a decision", supersedes, actor)
    project = identity.current(paths).value
    base = folder(paths)
    with journal.locked(base / "decisions"):
        numbers = [int(m.group(1)) for p in base.glob("D-*.md") if (m := _ID.match(p.stem))]
        did = f"D-{(max(numbers) if numbers else 0) + 1:04d}"
        now = clock.stamp()
        decision = {
            "id": did,
            **draft,
            "status": "locked",
            "project": project,
            "locked_by": actor,
            "created": now,
            "recorded": now,
            "valid_from": now,
            "valid_until": None,
            "supersedes": old["id"] if old else None,
            "superseded_by": None,
        }
        atomic.write_text(base / f"{did}.md", _render(decision))
        if old:  # supersession ends its validity; the record stays
            old.update(status="superseded", superseded_by=did, superseded=now, valid_until=now)
            atomic.write_text(base / f"{old['id']}.md", _render(old))
        journal.append(
            paths.state_dir / "library" / "audit.jsonl",
            "decision",
            item=None,
            actor=actor,
            decision=did,
            action="lock",
            why=title,
            supersedes=old["id"] if old else None,
        )
    return Locked(decision=decision)


def restore(paths: RepoPaths, decision: dict[str, Any], actor: str = "you") -> bool:
    """Put back an exported decision of this project under its own ID, if that ID is free."""
    try:
        did = parse_id(str(decision.get("id")))
    except HallError:
        return False
    project = identity.current(paths).value
    path = folder(paths) / f"{did}.md"
    if path.exists() or decision.get("project") != project:
        return False
    secrets.refuse_if_secret({k: v for k, v in decision.items() if isinstance(v, str | list)}, "the decision")
    with journal.locked(folder(paths) / "decisions"):
        atomic.write_text(path, _render({**decision, "id": did}))
        journal.append(
            paths.state_dir / "library" / "audit.jsonl",
            "decision",
            item=None,
            actor=actor,
            decision=did,
            action="restore",
            why="imported from an export",
        )
    return True


def context_lines(paths: RepoPaths) -> list[str]:
    return [
        f"- {d['id']} {d['title']}: {d['specification'][:200]}" for d in list_decisions(paths, include_superseded=False)
    ]
