"""Reading the library: one learning, lists, the drain's queue, tombstones, previews, history —
now, or as of a date (what was believed then: the version recorded by then, if it held then).
Stdlib only."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from hallmark.core import clock
from hallmark.core.errors import HallError

from . import audit, promote
from .access import load, open_index, paths_of, project_of, store_of, where_of
from .lifecycle import ACTIVE
from .results import Preview, Tombstone
from .similarity import normalise, relation
from .store import Learning, Store, parse_id


def as_of_stamp(text: str | None) -> str | None:
    """'2026-11-20' (the end of that day, UTC) or a full ISO time -> a stamp comparable with `updated`."""
    if not text:
        return None
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return f"{day.isoformat()}T23:59:59.999Z"
        moment = clock.parse_time(value)
    except ValueError:
        raise HallError(
            "USAGE",
            f"--as-of '{text}' is not a date (YYYY-MM-DD) or an ISO time",
            ["hall library list --as-of 2026-11-01"],
        ) from None
    return clock.stamp(moment if isinstance(moment, datetime) else clock.now())


def version_at(store: Store, lid: str, stamp: str) -> Learning | None:
    """The version of a learning recorded last at or before stamp (None: not yet known then)."""
    found = None
    for version in store.versions(lid):
        if version.updated and version.updated <= stamp:
            found = version
    return found


def get(repo: Any, lid: str, as_of: str | None = None) -> Learning:
    store = store_of(repo)
    learning = load(store, lid, project_of(repo))
    stamp = as_of_stamp(as_of)
    if stamp is None:
        return learning
    then = version_at(store, learning.id, stamp)
    if then is None:
        raise HallError(
            "LEARNING_NOT_FOUND",
            f"{learning.id} was not recorded yet on {as_of}.",
            [f"hall library show {learning.id}"],
        )
    return then


def list_learnings(
    repo: Any, status: str | None = None, kind: str | None = None, as_of: str | None = None
) -> list[Learning]:
    store = store_of(repo)
    project = project_of(repo)
    out = [x for x in store.all() if x.project == project]
    stamp = as_of_stamp(as_of)
    if stamp is not None:
        then = [version_at(store, x.id, stamp) for x in out]
        out = [x for x in then if x is not None]
    if status:
        out = [x for x in out if x.status == status]
    if kind:
        out = [x for x in out if x.kind == kind]
    return out


def believed(repo: Any, as_of: str | None = None) -> list[Learning]:
    """Accepted learnings that hold at a moment (now by default): what a briefing may use."""
    stamp = as_of_stamp(as_of) or clock.stamp()
    return [x for x in list_learnings(repo, as_of=as_of) if x.status in ACTIVE and x.valid_at(stamp)]


def pending(repo: Any) -> list[Learning]:
    """What the drain offers: proposed and skipped learnings and retirement proposals, oldest first.
    Read from the derived index (the terminal app asks on every refresh)."""
    store = store_of(repo)
    items = open_index(store).pending(project_of(repo))
    return sorted(items, key=lambda x: (x.created, x.id))


def tombstone_for(repo: Any, lid: str) -> Tombstone | None:
    """The rejection this learning is (or is recorded against): id, reason, who, when, re-proposals."""
    learning = get(repo, lid)
    if learning.status == "rejected":
        return tombstone(learning)
    index = open_index(store_of(repo))
    candidates = [x for x in index.by_norm(learning.project, normalise(learning.pattern)) if x.status == "rejected"]
    candidates += index.search(learning.project, learning.pattern, statuses=("rejected",), limit=25, mode="OR")
    for other in candidates:
        if other.id != learning.id and relation(other.pattern, learning.pattern):
            return tombstone(other)
    return None


def tombstone(learning: Learning) -> Tombstone:
    return Tombstone.of(learning)


def preview(repo: Any, lid: str) -> Preview:
    """Where accepting writes and exactly what (and the automation it installs, if any)."""
    learning = get(repo, lid)
    paths = paths_of(repo)
    if learning.status in ACTIVE and learning.retire_proposal:
        promo = learning.promotion or {}
        return Preview(
            target="retire",
            where="retirement: removes its promotion" if promo else "retirement",
            path=promo.get("path"),
            text=(learning.retire_proposal or {}).get("reason", ""),
            problem=None,
        )
    try:
        return Preview(**promote.plan(paths.main_checkout, learning).to_dict(paths.main_checkout))
    except HallError as exc:
        return Preview(
            target=promote.TARGETS.get(learning.kind, "library"),
            where="unknown",
            path=None,
            text="",
            problem=exc.message,
        )


def history(repo: Any, lid: str) -> list[Learning]:
    get(repo, lid)
    return store_of(repo).versions(lid)


def audit_log(repo: Any, lid: str | None = None) -> list[dict[str, Any]]:
    store = store_of(repo)
    return [audit.summary(e) for e in audit.read(store.audit_path, parse_id(lid) if lid else None)]


def verify_audit(repo: Any) -> list[str]:
    """Replay the audit log and compare it with the files: [] when they agree."""
    store = store_of(repo)
    current = {x.id: x.to_dict() for x in store.all()}
    return audit.verify(store.audit_path, current)


__all__ = [
    "as_of_stamp",
    "audit_log",
    "believed",
    "get",
    "history",
    "list_learnings",
    "pending",
    "preview",
    "tombstone",
    "tombstone_for",
    "verify_audit",
    "version_at",
    "where_of",
]
