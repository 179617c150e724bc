"""Which learnings a person really accepted: the signed lines of the library's audit log.

A learning file says `status: accepted`, but the file is one the agent's user can write; what a
person decided is the audit line `hall library accept|edit|review …` wrote with this machine's
signature (core/person_cap.py). The reviewer's briefing serves a learning only when a signed line
accepted it exactly as it reads now (its kind, pattern, rationale and paths): a file edited or
made by hand after the person's decision, or an unsigned copied line, reaches no reviewer.
Stdlib only.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import journal, person_cap
from hallmark.core.paths import RepoPaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .store import Learning

ACCEPTED = ("accepted", "promoted")


def _shape(kind: Any, pattern: Any, rationale: Any, paths: Any) -> tuple[str, str, str, tuple[str, ...]]:
    listed = tuple(str(p) for p in paths) if isinstance(paths, list | tuple) else ()
    return (str(kind or ""), str(pattern or "").strip(), str(rationale or "").strip(), listed)


def shape(learning: Learning) -> tuple[str, str, str, tuple[str, ...]]:
    return _shape(learning.kind, learning.pattern, learning.rationale, learning.paths)


def signed_acceptances(
    paths: RepoPaths, auto_kinds: frozenset[str] = frozenset()
) -> dict[str, set[tuple[str, str, str, tuple[str, ...]]]]:
    """{learning id: the shapes a person's signed audit line accepted it in}. A proposal the
    config's `[library] auto_accept` accepted (the person's standing choice, for auto_kinds) counts
    as it was proposed."""
    found: dict[str, set[tuple[str, str, str, tuple[str, ...]]]] = {}
    for event in journal.read(paths.state_dir / "library" / "audit.jsonl").events:
        record = event.get("record")
        lid = event.get("lid")
        if event.get("event") != "library" or event.get("to") not in ACCEPTED or not isinstance(record, dict):
            continue
        if not isinstance(lid, str):
            continue
        auto = event.get("action") == "propose" and record.get("reason") == "auto_accept"
        if auto and str(record.get("kind")) not in auto_kinds:
            continue
        if not auto and (not person_cap.needs_cap(event) or not person_cap.counts(event, paths)):
            continue
        found.setdefault(lid, set()).add(
            _shape(
                record.get("kind"),
                record.get("pattern"),
                record.get("rationale"),
                (record.get("scope") or {}).get("paths") if isinstance(record.get("scope"), dict) else None,
            )
        )
    return found


def person_accepted(learning: Learning, signed: dict[str, set[tuple[str, str, str, tuple[str, ...]]]]) -> bool:
    return shape(learning) in signed.get(learning.id, set())
