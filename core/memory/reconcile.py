"""Reconcile: the store and the files it promoted into, made to agree again.

Two kinds of mismatch, handled differently:
- Hallmark's own leftovers (a decision killed half-way, a block for a learning that is not
  promoted, a temp file): repaired at once, by `repair`. Only text that is provably Hallmark's
  for that learning (a digest of one of its renderings) is removed or re-written; a block of
  another store (a teammate's, committed in CLAUDE.md) is reported, never touched.
- A person's edits and deletions of promoted text: recorded in the audit log once and reported
  with what can be done (update: adopt the edit; retire; restore: write ours back, keeping
  their version in library/kept/). Those three are a person's decisions.
`hall doctor` runs `repair` and reports what is left. Stdlib only.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import journal, secrets
from hallmark.core.errors import HallError

from . import intents, orphans, promote, safe_write
from .access import PERSON, load, person, project_of, store_of, where_of
from .deciding import retire
from .results import Applied, Drift, Reconciled
from .store import Learning, Store, parse_id


def _temp_folders(repo: Any) -> list:
    where = where_of(repo)
    root = where.root
    return [
        where.tmp,
        root,
        root / ".claude",
        root / ".claude" / "rules",
        root / ".claude" / "commands",
        *sorted((root / ".claude" / "skills").glob("*/")),
        where.kept,
    ]


def _audit_repair(store: Store, lid: str, why: str) -> None:
    journal.append(store.audit_path, "library_repair", item=None, actor="hall", lid=lid, why=why)


def repair(repo: Any) -> dict[str, Any]:
    """Settle crashed decisions, remove Hallmark's orphan blocks, sweep temp files. Report the rest."""
    store = store_of(repo)
    project = project_of(repo)
    where = where_of(repo)
    out: dict[str, Any] = {"settled": [], "removed": [], "orphans": [], "temp_removed": []}
    with store.locked():
        for lid in intents.pending(store):
            done = intents.settle(store, where, lid)
            _audit_repair(
                store,
                lid,
                f"a '{done.get('op')}' was interrupted; repaired: {', '.join(done['repaired']) or 'nothing needed'}",
            )
            out["settled"].append(done)
        learnings = {x.id: x for x in store.all() if x.project == project}
        for found in orphans.found_markers(where):
            learning = learnings.get(found["lid"])
            promo = (learning.promotion or {}) if learning else {}
            if learning is not None and learning.status == "promoted" and promo.get("path") == found["path"]:
                continue  # its own promotion: drift, below
            kept = [k.get("path") for k in (learning.details.get("kept_edits") or [])] if learning else []
            if found["path"] in kept and not found.get("intact"):
                continue  # the person's edit, left to them at retirement
            ours = learning is not None and found.get("digest") in intents._renderings(store, learning, [])
            if learning is not None and ours and found.get("intact") and orphans.remove_found(where, found):
                why = (
                    f"a block in {found['path']} for {found['lid']}, which is {learning.status}, "
                    "was removed (Hallmark wrote it; nothing else was touched)"
                )
                _audit_repair(store, found["lid"], why)
                out["removed"].append({"id": found["lid"], "path": found["path"], "status": learning.status})
                continue
            state = (
                "edited"
                if ours or (learning is not None and not found.get("intact"))
                else "not from this store"
                if learning is None or not ours
                else "unknown"
            )
            out["orphans"].append(
                {
                    "id": found["lid"],
                    "path": found["path"],
                    "state": state,
                    "status": learning.status if learning else None,
                    "fix": f"remove the block for {found['lid']} from {found['path']} by hand, "
                    "or keep it as your own text",
                }
            )
        out["temp_removed"] = safe_write.sweep_temp(_temp_folders(repo))
    return out


def drift(repo: Any, actor: str = PERSON) -> list[Drift]:
    """Promoted blocks/files a person edited or deleted; each recorded in the audit log once."""
    store = store_of(repo)
    project = project_of(repo)
    where = where_of(repo)
    found: list[Drift] = []
    with store.locked():
        for learning in store.all():
            if learning.project != project or learning.status != "promoted":
                continue
            seen = promote.inspect(where, learning)
            if seen["state"] == "intact":
                continue
            path = (learning.promotion or {}).get("path")
            recorded = None
            marker = {"state": seen["state"], "digest": promote.digest(seen["current"] or "")}
            if learning.details.get("drift") != marker:
                learning.details["drift"] = marker
                what = "block" if (learning.promotion or {}).get("target") == "claude_md" else "file"
                store.save(
                    learning,
                    action="reconcile",
                    actor=actor,
                    from_status=learning.status,
                    why=f"promoted {what} {seen['state']} by hand in {path}",
                )
                recorded = True
            found.append(
                Drift(
                    id=learning.id,
                    state=seen["state"],
                    path=path,
                    pattern=learning.pattern,
                    current=seen["current"],
                    offers=["update", "retire", "restore"] if seen["state"] == "edited" else ["retire", "restore"],
                    recorded=recorded,
                )
            )
    return found


def _edited_pattern(learning: Learning, current: str) -> str:
    """The pattern inside a hand-edited CLAUDE.md block (its first bullet), or the whole text."""
    if (learning.promotion or {}).get("target") == "claude_md":
        first = current.strip().splitlines()[0] if current.strip() else ""
        text = first[2:].strip() if first.startswith("- ") else current.strip()
        return text[1:] if text.startswith("\\") else text
    return learning.pattern


def reconcile(
    repo: Any,
    *,
    update: list[str] | None = None,
    retire_ids: list[str] | None = None,
    restore: list[str] | None = None,
    actor: str = PERSON,
) -> Reconciled:
    """Repair Hallmark's leftovers, report (and record once) the person's edits and deletions, then
    apply what the person asked: update (adopt the edit), retire, or restore (write ours back)."""
    update = [parse_id(x) for x in update or []]
    retire_ids = [parse_id(x) for x in retire_ids or []]
    restore = [parse_id(x) for x in restore or []]
    who = (
        person(repo, "reconcile --update/--retire/--restore", None, actor)
        if (update or retire_ids or restore)
        else actor
    )
    repaired = repair(repo)
    found = drift(repo, actor=who)
    store = store_of(repo)
    project = project_of(repo)
    where = where_of(repo)
    done: list[Applied] = []
    by_id = {d.id: d for d in found}
    for lid in update:
        entry = by_id.get(lid)
        if not entry or entry.state != "edited":
            raise HallError("WRONG_STATE", f"{lid} has no hand edit to adopt.", ["hall library reconcile"])
        learning = load(store, lid, project)
        new_pattern = _edited_pattern(learning, entry.current or "")
        secrets.refuse_if_secret({"pattern": new_pattern}, "the adopted edit")
        with store.locked():
            learning = load(store, lid, project)
            learning.pattern = new_pattern
            promo = dict(learning.promotion or {})
            promo["digest"] = promote.digest(entry.current or "")
            learning.promotion = promo
            learning.details.pop("drift", None)
            store.save(
                learning,
                action="edit",
                actor=who,
                from_status=learning.status,
                why="adopted the hand edit of its promoted text",
            )
        done.append(Applied(id=lid, did="updated"))
    for lid in retire_ids:
        drifted = by_id.get(lid)
        why = f"retired at reconcile ({drifted.state if drifted else 'by request'})"
        retired = retire(repo, lid, why, actor=who)
        kept = (retired.details.get("kept_edits") or [{}])[-1] if retired.details.get("kept_edits") else None
        done.append(Applied(id=lid, did="retired", kept=kept["at"] if kept else None))
    for lid in restore:
        with store.locked():
            learning = load(store, lid, project)
            if learning.status != "promoted":
                raise HallError(
                    "WRONG_STATE", f"{lid} is {learning.status}, not promoted.", [f"hall library show {lid}"]
                )
            before = Learning.from_dict(learning.to_dict())
            with intents.guard(store, where, before, learning, "restore"):
                learning.promotion = written = promote.write(where, learning, overwrite_edit=True)
                kept = written.pop("kept", None) if written is not None else None
                learning.details.pop("drift", None)
                store.save(
                    learning,
                    action="edit",
                    actor=who,
                    from_status=learning.status,
                    why="restored its promoted text" + (f"; your version was kept in {kept}" if kept else ""),
                )
        done.append(Applied(id=lid, did="restored", kept=kept or None))
    return Reconciled(drift=tuple(found), applied=tuple(done), repaired=repaired)
