"""Crash-consistent promotion: the intent is on disk before a file is touched, the outcome after.

A decision that writes or removes promoted text runs as:

    intent file (library/intents/L-0001.json: op, from version, the record it will save)
    -> the file changes (CLAUDE.md, .claude/…)
    -> the new version of the learning (history, current file, audit line: the outcome)
    -> the intent file goes

Every step is atomic on its own, so a crash (a kill, a full disk) leaves at most one intent file.
`settle` then makes the files agree with the store, which is the truth: the learning's current
file says what was decided; its audit line is re-written when the crash lost it; its block or
file is put back when the store says promoted, and removed when the store says otherwise — but
only text Hallmark itself wrote for this learning (a digest of one of its renderings), never a
person's. The store lock is held across the whole decision, so an intent seen under the lock is
one whose process died. Stdlib only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from hallmark.core import atomic, clock, journal

from . import audit, orphans, promote, rendering
from .promote import Where
from .store import Learning, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def folder(store: Store) -> Path:
    return store.root / "intents"


def pending(store: Store) -> list[str]:
    """Learning IDs with an intent on disk (under the store lock: a crashed decision)."""
    try:
        return sorted(name[:-5] for name in os.listdir(folder(store)) if name.endswith(".json"))
    except FileNotFoundError:
        return []


@contextmanager
def guard(store: Store, where: Where, before: Learning, planned: Learning, op: str) -> Iterator[None]:
    """Hold an intent around one decision's file changes and its save. Caller holds the store lock."""
    path = folder(store) / f"{before.id}.json"
    atomic.write_json(
        path,
        {
            "op": op,
            "lid": before.id,
            "from_version": before.version,
            "t": clock.stamp(),
            "pid": os.getpid(),
            "planned": planned.to_dict(),
        },
    )
    try:
        yield
    except BaseException:
        with suppress(Exception):  # the intent stays on disk; the next reconcile settles it
            settle(store, where, before.id)
        raise
    with suppress(FileNotFoundError):
        path.unlink()


def _renderings(store: Store, learning: Learning, extra: list[dict[str, Any]]) -> set[str]:
    """Digests of every text Hallmark could have written for this learning (any version, or the planned one)."""
    records = [learning.to_dict(), *extra, *(v.to_dict() for v in store.versions(learning.id))]
    out: set[str] = set()
    for record in records:
        version = Learning.from_dict(record)
        try:
            out |= rendered_digests(where=None, learning=version)
        except Exception:  # noqa: BLE001 - a version that cannot be rendered wrote nothing
            continue
    return out


def rendered_digests(where: Where | None, learning: Learning) -> set[str]:
    target = rendering.TARGETS.get(learning.kind, "library")
    if target == "claude_md":
        return {promote.digest("\n".join(rendering.inner_lines(learning)))}
    if target == "hook":
        auto = rendering.automation_of(learning)
        return set() if "problem" in auto else {rendering.entry_digest(rendering.hook_entry(auto))}
    if target in ("rule_file", "skill", "command"):
        return {promote.digest(rendering.file_text(learning, target))}
    return set()


def settle(store: Store, where: Where, lid: str) -> dict[str, Any]:
    """Make the audit log and the files agree with the learning's current file; drop the intent."""
    path = folder(store) / f"{lid}.json"
    intent = atomic.read_json(path, {}) or {}
    done: dict[str, Any] = {"id": lid, "op": intent.get("op"), "repaired": []}
    learning = store.read(lid)
    lines = [e for e in audit.read(store.audit_path, lid) if e.get("event") == "library"]
    if not lines or lines[-1].get("record") != learning.to_dict():
        journal.append(
            store.audit_path,
            "library",
            item=None,
            actor="hall",
            lid=lid,
            action="recovered",
            **{"from": lines[-1].get("to") if lines else None, "to": learning.status},
            why=f"the audit line of v{learning.version} was lost in a crash; recorded from the file",
            version=learning.version,
            record=learning.to_dict(),
        )
        done["repaired"].append("audit line")
    ours = _renderings(store, learning, [intent["planned"]] if isinstance(intent.get("planned"), dict) else [])
    if learning.status == "promoted" and learning.promotion:
        state = promote.inspect(where, learning)
        current = state.get("current")
        if state["state"] == "deleted" or (state["state"] == "edited" and _digest_of(learning, current) in ours):
            learning.promotion = written = promote.write(where, learning, overwrite_edit=True, keep_copy=False)
            if written is not None:  # None only for a library-only kind, which has no file to re-write
                done["repaired"].append(f"re-wrote {written['path']}")
    for found in orphans.found_markers(where):
        if found["lid"] != lid or not found.get("intact") or found.get("digest") not in ours:
            continue
        promo = learning.promotion or {}
        if learning.status == "promoted" and promo.get("path") == found["path"]:
            continue
        if orphans.remove_found(where, found):
            done["repaired"].append(f"removed from {found['path']}")
    with suppress(FileNotFoundError):
        path.unlink()
    return done


def _digest_of(learning: Learning, current: str | None) -> str | None:
    if current is None:
        return None
    if (learning.promotion or {}).get("target") == "hook":
        try:
            return rendering.entry_digest(json.loads(current))
        except ValueError:
            return None
    return promote.digest(current)
