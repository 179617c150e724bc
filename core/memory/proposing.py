"""Proposing: record a learning, or add this occurrence to the one (or the tombstone) it repeats.

Anyone may propose (the loop, the librarian, an agent, a person); nothing proposed reaches a
prompt until a person accepts it. Every field passes the secret scanner first. Stdlib only.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import clock, secrets
from hallmark.core.errors import HallError

from . import lifecycle
from .access import PERSON, library_config, open_index, project_of, store_of
from .results import Proposed, Tombstone
from .similarity import normalise, relation
from .store import KINDS, SOURCES, Learning, Store, parse_id


def evidence_entries(entry: dict[str, Any] | list[dict[str, Any]] | None, item: str | None) -> list[dict[str, Any]]:
    if not entry:
        return []
    if isinstance(entry, list):
        return [e for one in entry for e in evidence_entries(one, item)]
    source = entry.get("source") or "user_statement"
    if source not in SOURCES:
        raise HallError(
            "USAGE",
            f"unknown evidence source '{source}' (one of: {', '.join(SOURCES)})",
            ["hall library propose --help"],
        )
    out = {
        "source": source,
        "quote": str(entry.get("quote") or ""),
        "item": entry.get("item") or item,
        "session": entry.get("session"),
        "date": entry.get("date") or clock.now().date().isoformat(),
        "file": entry.get("file"),
    }
    return [{k: v for k, v in out.items() if v not in (None, "")}]


def _stamp_or_none(text: str | None, what: str) -> str | None:
    from .reading import as_of_stamp

    if not text:
        return None
    try:
        return as_of_stamp(text)
    except HallError:
        raise HallError(
            "USAGE", f"{what} '{text}' is not a date (YYYY-MM-DD) or an ISO time", ["hall library propose --help"]
        ) from None


def propose(
    repo: Any,
    *,
    kind: str,
    pattern: str,
    rationale: str = "",
    evidence: dict[str, Any] | list[dict[str, Any]] | None = None,
    paths: list[str] | None = None,
    item: str | None = None,
    actor: str = PERSON,
    details: dict[str, Any] | None = None,
    origin: str = "propose",
    occurrences: int = 1,
    project: str | None = None,
    valid_from: str | None = None,
    valid_until: str | None = None,
    supersedes: str | None = None,
) -> Proposed:
    """Record a learning, or add this occurrence to the one (or the tombstone) it repeats."""
    if kind not in KINDS:
        raise HallError("USAGE", f"unknown kind '{kind}' (one of: {', '.join(KINDS)})", ["hall library propose --help"])
    pattern = (pattern or "").strip()
    if not pattern:
        raise HallError("USAGE", "a learning needs a pattern (one idea, in words)", ["hall library propose --help"])
    new_evidence = evidence_entries(evidence, item)
    secrets.refuse_if_secret(
        {
            "pattern": pattern,
            "rationale": rationale,
            "evidence": new_evidence,
            "paths": paths or [],
            "details": details or {},
        },
        "the learning",
    )
    since = _stamp_or_none(valid_from, "--valid-from")
    until = _stamp_or_none(valid_until, "--valid-until")
    if since and until and until <= since:
        raise HallError("USAGE", "--valid-until must come after --valid-from", ["hall library propose --help"])
    store = store_of(repo)
    here = project_of(repo)
    project = project or here
    if supersedes:
        supersedes = parse_id(supersedes)
        old = store.read(supersedes)
        if old.project != project:
            raise HallError(
                "LEARNING_NOT_FOUND", f"No learning {supersedes} in project {project}.", ["hall library list"]
            )
    with store.locked():
        match, how = _find_match(store, project, pattern)
        if match is not None:
            before = match.status
            match.occurrences += max(1, occurrences)
            match.evidence.extend(new_evidence)
            for glob in paths or []:
                if glob not in match.scope.setdefault("paths", []):
                    match.scope["paths"].append(glob)
            if before == "rejected":
                match.reproposed += 1
            why = f"same pattern proposed again ({how} match)"
            store.save(match, action="merge", actor=actor, from_status=before, why=why)
            tomb = None
            if before == "rejected":
                from .reading import tombstone

                tomb = tombstone(match)
            return Proposed(
                id=match.id,
                status=match.status,
                created=False,
                merged=True,
                match=how,
                occurrences=match.occurrences,
                tombstone=tomb,
                previously_rejected=True if tomb else None,
                previously_retired=True if before == "retired" else None,
                message=_merge_message(match.id, tomb, before),
            )
        learning = Learning(
            id=store.next_id(),
            kind=kind,
            pattern=pattern,
            rationale=rationale.strip(),
            evidence=new_evidence,
            scope={"project": project, "paths": list(paths or [])},
            origin=origin,
            details=dict(details or {}),
            occurrences=max(1, occurrences),
            valid_from=since or "",
            valid_until=until,
            supersedes=supersedes,
        )
        # an automation (a command written into settings) is never accepted without its own confirmation
        auto = (
            kind in (library_config(repo).get("auto_accept") or [])
            and project == here
            and kind != "automation"
            and not supersedes
        )
        if auto:
            learning.status = "accepted"
            learning.decided_by = actor
            learning.reason = "auto_accept"
        store.save(
            learning,
            action="propose",
            actor=actor,
            from_status=None,
            why="auto_accept in .hallmark.toml" if auto else "proposed",
        )
    return Proposed(
        id=learning.id, status=learning.status, created=True, merged=False, occurrences=learning.occurrences
    )


def _merge_message(lid: str, tomb: Tombstone | None, before: str) -> str | None:
    """What a person reads when a proposal lands on a rejection or a retirement (else nothing)."""
    if tomb is not None:
        return (
            f"This pattern was rejected before ({tomb.reason}); the occurrence "
            f"was added to its tombstone {lid}, not offered as new."
        )
    if before == "retired":
        return (
            f"This pattern was accepted once and then retired; the occurrence was added to {lid}. "
            "Reopen it if it is true again."
        )
    return None


def _find_match(store: Store, project: str, pattern: str) -> tuple[Learning | None, str]:
    """The learning this pattern repeats: exact normalised match first, then a near-duplicate."""
    index = open_index(store)
    same = index.by_norm(project, normalise(pattern))
    if same:
        return same[0], "same"
    for candidate in index.search(project, pattern, statuses=lifecycle.STATUSES, limit=25, mode="OR"):
        if relation(candidate.pattern, pattern):
            return store.read(candidate.id), "near"
    return None, ""
