"""The memory store's verbs: what the CLI, the terminal app's reflect drain and the librarian call.

    from hallmark.core.memory import api as library

Every verb takes a core Repo (or bare RepoPaths), does one step under the store's lock, writes a
new version and one audit line, and returns the Learning (or a dict for the CLI). Only a person
(actor "you") accepts, rejects or reopens: what the loop learns never reaches a prompt on an
agent's say-so. Pending learnings (proposed, skipped) are never injected anywhere.

A retirement proposal (an accepted learning unused for `retire_after`, or contradicted by a
verdict) is pending too: in the drain, accept() on it retires the learning, reject() keeps it,
skip() leaves it for next time. Stdlib only (the hooks propose through here).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from .. import clock
from ..errors import HallError
from ..paths import RepoPaths
from . import audit, identity, lifecycle, promote, secrets
from .lifecycle import ACTIVE
from .search_index import SearchIndex
from .similarity import normalise, relation
from .store import KINDS, SOURCES, Learning, Store, parse_id

PERSON = "you"
DRAIN_GAP = timedelta(minutes=30)  # decisions closer together than this belong to one drain


# -- plumbing ---------------------------------------------------------------------------------
def _paths(repo: Any) -> RepoPaths:
    return getattr(repo, "paths", repo)


def store_of(repo: Any) -> Store:
    paths = _paths(repo)
    paths.require_initialized()
    return Store(paths)


def project_of(repo: Any) -> str:
    return identity.current(_paths(repo)).value


def _config(repo: Any) -> dict[str, Any]:
    from ..config_raw import load_raw

    try:
        return dict(load_raw(_paths(repo).main_checkout).get("library") or {})
    except Exception:  # noqa: BLE001 - a broken config must not stop the memory store; defaults apply
        from ..config_raw import DEFAULTS

        return dict(DEFAULTS["library"])


def _require_person(actor: str, what: str, lid: str) -> None:
    if actor != PERSON:
        raise HallError(
            "GATE_DENIED",
            f"Only a person can {what} a learning ({lid}); the actor here is '{actor}'. "
            "What the loop learns reaches no prompt until a person has approved it.",
            [f"hall library show {lid}", "ask the person to run: hall library review"],
        )


def _load(store: Store, lid: str, project: str) -> Learning:
    learning = store.read(lid)
    if learning.project != project:
        # another project's learning is never returned, not even by ID
        raise HallError("LEARNING_NOT_FOUND", f"No learning {learning.id} in project {project}.",
                        ["hall library list"])
    return learning


def _index(store: Store) -> SearchIndex:
    index = SearchIndex(store)
    index.catch_up()
    return index


# -- reading ----------------------------------------------------------------------------------
def get(repo: Any, lid: str) -> Learning:
    store = store_of(repo)
    return _load(store, lid, project_of(repo))


def list_learnings(repo: Any, status: str | None = None, kind: str | None = None) -> list[Learning]:
    store = store_of(repo)
    project = project_of(repo)
    out = [x for x in store.all() if x.project == project]
    if status:
        out = [x for x in out if x.status == status]
    if kind:
        out = [x for x in out if x.kind == kind]
    return out


def pending(repo: Any) -> list[Learning]:
    """What the drain offers: proposed and skipped learnings and retirement proposals, oldest first.
    Read from the derived index (the terminal app asks on every refresh)."""
    store = store_of(repo)
    items = _index(store).pending(project_of(repo))
    return sorted(items, key=lambda x: (x.created, x.id))


def tombstone_for(repo: Any, lid: str) -> dict[str, Any] | None:
    """The rejection this learning is (or is recorded against): id, reason, who, when, re-proposals."""
    learning = get(repo, lid)
    if learning.status == "rejected":
        return _tombstone(learning)
    index = _index(store_of(repo))
    candidates = [x for x in index.by_norm(learning.project, normalise(learning.pattern)) if x.status == "rejected"]
    candidates += index.search(learning.project, learning.pattern, statuses=("rejected",), limit=25, mode="OR")
    for other in candidates:
        if other.id != learning.id and relation(other.pattern, learning.pattern):
            return _tombstone(other)
    return None


def _tombstone(learning: Learning) -> dict[str, Any]:
    return {"id": learning.id, "pattern": learning.pattern, "reason": learning.reason,
            "rejected_by": learning.decided_by, "rejected": learning.updated,
            "reproposed": learning.reproposed, "evidence": len(learning.evidence)}


def preview(repo: Any, lid: str) -> dict[str, Any]:
    """Where accepting writes and exactly what: {target, where, path, text, problem}."""
    learning = get(repo, lid)
    paths = _paths(repo)
    if learning.status in ACTIVE and learning.retire_proposal:
        promo = learning.promotion or {}
        return {"target": "retire", "where": "retirement: removes its promotion" if promo else "retirement",
                "path": promo.get("path"), "text": (learning.retire_proposal or {}).get("reason", ""),
                "problem": None}
    return promote.plan(paths.main_checkout, learning).to_dict(paths.main_checkout)


def history(repo: Any, lid: str) -> list[Learning]:
    get(repo, lid)
    return store_of(repo).versions(lid)


def audit_log(repo: Any, lid: str | None = None) -> list[dict[str, Any]]:
    store = store_of(repo)
    return [audit.summary(e) for e in audit.read(store.audit_path, parse_id(lid) if lid else None)]


# -- proposing ---------------------------------------------------------------------------------
def _evidence(entry: dict[str, Any] | list[dict[str, Any]] | None, item: str | None) -> list[dict[str, Any]]:
    if not entry:
        return []
    if isinstance(entry, list):
        return [e for one in entry for e in _evidence(one, item)]
    source = entry.get("source") or "user_statement"
    if source not in SOURCES:
        raise HallError("USAGE", f"unknown evidence source '{source}' (one of: {', '.join(SOURCES)})",
                        ["hall library propose --help"])
    out = {"source": source, "quote": str(entry.get("quote") or ""), "item": entry.get("item") or item,
           "session": entry.get("session"), "date": entry.get("date") or clock.now().date().isoformat(),
           "file": entry.get("file")}
    return [{k: v for k, v in out.items() if v not in (None, "")}]


def propose(repo: Any, *, kind: str, pattern: str, rationale: str = "",
            evidence: dict[str, Any] | list[dict[str, Any]] | None = None,
            paths: list[str] | None = None, item: str | None = None, actor: str = PERSON,
            details: dict[str, Any] | None = None, origin: str = "propose", occurrences: int = 1,
            project: str | None = None) -> dict[str, Any]:
    """Record a learning, or add this occurrence to the one (or the tombstone) it repeats."""
    if kind not in KINDS:
        raise HallError("USAGE", f"unknown kind '{kind}' (one of: {', '.join(KINDS)})", ["hall library propose --help"])
    pattern = (pattern or "").strip()
    if not pattern:
        raise HallError("USAGE", "a learning needs a pattern (one idea, in words)", ["hall library propose --help"])
    new_evidence = _evidence(evidence, item)
    secrets.refuse_if_secret({"pattern": pattern, "rationale": rationale, "evidence": new_evidence,
                              "paths": paths or [], "details": details or {}}, "the learning")
    store = store_of(repo)
    here = project_of(repo)
    project = project or here
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
            reply: dict[str, Any] = {"id": match.id, "status": match.status, "created": False, "merged": True,
                                     "match": how, "occurrences": match.occurrences}
            if before == "rejected":
                reply["tombstone"] = _tombstone(match)
                reply["previously_rejected"] = True
            if before == "retired":
                reply["previously_retired"] = True
            return reply
        learning = Learning(id=store.next_id(), kind=kind, pattern=pattern, rationale=rationale.strip(),
                            evidence=new_evidence, scope={"project": project, "paths": list(paths or [])},
                            origin=origin, details=dict(details or {}), occurrences=max(1, occurrences))
        auto = kind in (_config(repo).get("auto_accept") or []) and project == here
        if auto:
            learning.status = "accepted"
            learning.decided_by = actor
            learning.reason = "auto_accept"
        store.save(learning, action="propose", actor=actor, from_status=None,
                   why="auto_accept in .hallmark.toml" if auto else "proposed")
    return {"id": learning.id, "status": learning.status, "created": True, "merged": False,
            "occurrences": learning.occurrences}


def _find_match(store: Store, project: str, pattern: str) -> tuple[Learning | None, str]:
    """The learning this pattern repeats: exact normalised match first, then a near-duplicate."""
    index = _index(store)
    same = index.by_norm(project, normalise(pattern))
    if same:
        return same[0], "same"
    statuses = lifecycle.STATUSES
    for candidate in index.search(project, pattern, statuses=statuses, limit=25, mode="OR"):
        if relation(candidate.pattern, pattern):
            return store.read(candidate.id), "near"
    return None, ""


# -- deciding ----------------------------------------------------------------------------------
def _decide(repo: Any, lid: str, action: str, actor: str, why: str, mutate=None) -> Learning:
    store = store_of(repo)
    project = project_of(repo)
    with store.locked():
        learning = _load(store, lid, project)
        before = learning.status
        after = lifecycle.next_status(action, before, learning.id)
        learning.status = after
        if mutate:
            mutate(learning)
        store.save(learning, action=action, actor=actor, from_status=before, why=why)
    return learning


def accept(repo: Any, lid: str, actor: str = PERSON, pattern: str | None = None, *,
           promote_it: bool = True, why: str = "") -> Learning:
    """Approve a pending learning (and promote it where its kind has a home). On a retirement
    proposal: approve the retirement."""
    lid = parse_id(lid)
    _require_person(actor, "accept", lid)
    current = get(repo, lid)
    if current.status in ACTIVE and current.retire_proposal:
        return retire(repo, lid, current.retire_proposal.get("reason") or "retirement accepted", actor=actor)
    if current.status in ACTIVE and pattern is None:
        return current  # idempotent: already accepted
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise HallError("USAGE", "the edited pattern is empty", [f"hall library show {lid}"])
        secrets.refuse_if_secret({"pattern": pattern, "why": why}, "the edited learning")
    root = _paths(repo).main_checkout
    store = store_of(repo)
    project = project_of(repo)
    with store.locked():
        learning = _load(store, lid, project)
        before = learning.status
        if before in ACTIVE:  # an edit of an accepted learning's text
            learning.pattern = pattern or learning.pattern
            if learning.promotion:
                learning.promotion = promote.write(root, learning)
            store.save(learning, action="edit", actor=actor, from_status=before, why=why or "pattern edited")
            return learning
        learning.status = lifecycle.next_status("accept", before, lid)
        if pattern:
            learning.details["original_pattern"] = learning.pattern
            learning.pattern = pattern
        learning.decided_by = actor
        learning.reason = why
        learning.skip_count = learning.skip_count
        note = why or "accepted"
        if promote_it:
            try:
                promo = promote.write(root, learning)
            except HallError as exc:
                promo = None
                note = f"{note}; not promoted: {exc.message}"
            if promo:
                learning.promotion = promo
                learning.status = lifecycle.next_status("promote", learning.status, lid)
                note = f"{note}; promoted to {promo['path']}"
        store.save(learning, action="accept", actor=actor, from_status=before, why=note)
    return learning


def skip(repo: Any, lid: str, actor: str = PERSON) -> Learning:
    """Not now: it stays pending and comes back at the next drain with its skip count."""
    lid = parse_id(lid)
    current = get(repo, lid)
    if current.status in ACTIVE and current.retire_proposal:
        store = store_of(repo)
        with store.locked():
            learning = _load(store, lid, current.project)
            learning.retire_proposal = {**(learning.retire_proposal or {}),
                                        "skips": int((learning.retire_proposal or {}).get("skips", 0)) + 1}
            learning.skip_count += 1
            store.save(learning, action="skip", actor=actor, from_status=learning.status,
                       why="retirement left for the next drain")
        return learning

    def bump(learning: Learning) -> None:
        learning.skip_count += 1

    return _decide(repo, lid, "skip", actor, "left for the next drain", bump)


def reject(repo: Any, lid: str, reason: str, actor: str = PERSON) -> Learning:
    """No: the learning becomes a tombstone with this reason. On a retirement proposal: keep it."""
    lid = parse_id(lid)
    reason = (reason or "").strip()
    if not reason:
        raise HallError("USAGE", "a rejection needs a reason (--reason)", [f"hall library reject {lid} --reason '…'"])
    _require_person(actor, "reject", lid)
    secrets.refuse_if_secret({"reason": reason}, "the rejection")
    current = get(repo, lid)
    if current.status == "rejected":
        return current  # idempotent
    if current.status in ACTIVE and current.retire_proposal:
        def keep(learning: Learning) -> None:
            learning.retire_proposal = None
            learning.details["kept"] = {"reason": reason, "at": clock.stamp(), "by": actor}

        return _decide(repo, lid, "keep", actor, f"retirement declined: {reason}", keep)

    def mark(learning: Learning) -> None:
        learning.reason = reason
        learning.decided_by = actor

    return _decide(repo, lid, "reject", actor, reason, mark)


def retire(repo: Any, lid: str, reason: str, actor: str = PERSON) -> Learning:
    """Take an accepted learning out of use, removing exactly its promoted block or file."""
    lid = parse_id(lid)
    reason = (reason or "").strip()
    if not reason:
        raise HallError("USAGE", "retiring needs a reason (--reason)", [f"hall library retire {lid} --reason '…'"])
    secrets.refuse_if_secret({"reason": reason}, "the retirement")
    current = get(repo, lid)
    if current.status == "retired":
        return current
    root = _paths(repo).main_checkout
    removed = {"what": ""}

    def take_back(learning: Learning) -> None:
        removed["what"] = promote.remove(root, learning)
        if learning.promotion:
            learning.details["last_promotion"] = learning.promotion
        learning.promotion = None
        learning.retire_proposal = None
        learning.reason = reason
        learning.decided_by = actor

    learning = _decide(repo, lid, "retire", actor, reason, take_back)
    return learning


def reopen(repo: Any, lid: str, actor: str = PERSON, reason: str = "") -> Learning:
    """The only way back from a tombstone (or a retirement): it becomes proposed again."""
    lid = parse_id(lid)
    _require_person(actor, "reopen", lid)
    secrets.refuse_if_secret({"reason": reason}, "the reopening")

    def mark(learning: Learning) -> None:
        learning.details.setdefault("reopened", []).append(
            {"from": learning.reason, "at": clock.stamp(), "by": actor})
        learning.reason = reason
        learning.skip_count = 0

    return _decide(repo, lid, "reopen", actor, reason or "reopened", mark)


def undo(repo: Any, lid: str, actor: str = PERSON) -> Learning:
    """Revert the last decision on a learning (accept, skip, reject, retire, keep), restoring the
    version before it and removing (or restoring) the promotion that decision caused."""
    lid = parse_id(lid)
    store = store_of(repo)
    project = project_of(repo)
    root = _paths(repo).main_checkout
    decisions = {"accept", "skip", "reject", "retire", "keep", "reopen", "edit"}
    with store.locked():
        learning = _load(store, lid, project)
        lines = audit.read(store.audit_path, lid)
        last = next((e for e in reversed(lines) if e.get("action") in decisions), None)
        if last is None:
            raise HallError("WRONG_STATE", f"{lid} has no decision to undo.", [f"hall library history {lid}"])
        if last.get("actor") != actor and actor != PERSON:
            _require_person(actor, "undo a decision on", lid)
        target_version = int(last.get("version", 1)) - 1
        earlier = next((v for v in store.versions(lid) if v.version == target_version), None)
        if earlier is None:
            raise HallError("WRONG_STATE", f"{lid}'s version {target_version} is missing; nothing changed.",
                            [f"hall library history {lid}"])
        before = learning.status
        if learning.promotion:
            promote.remove(root, learning)
        restored = Learning.from_dict(earlier.to_dict())
        # what happened since (occurrences and evidence merged in later) is kept; only the decision goes
        restored.version = learning.version
        restored.evidence = learning.evidence
        restored.occurrences = learning.occurrences
        restored.reproposed = learning.reproposed
        if restored.status == "promoted":
            try:
                restored.promotion = promote.write(root, restored)
            except HallError:
                restored.status, restored.promotion = "accepted", None
        else:
            restored.promotion = None
        store.save(restored, action="undo", actor=actor, from_status=before,
                   why=f"undid '{last.get('action')}' of {last.get('t')}")
    return restored


def propose_retirement(repo: Any, lid: str, reason: str, actor: str = "librarian") -> Learning:
    """Offer an accepted learning for retirement in the next drain (never removed silently)."""
    lid = parse_id(lid)
    secrets.refuse_if_secret({"reason": reason}, "the retirement proposal")
    current = get(repo, lid)
    if current.retire_proposal:
        return current

    def mark(learning: Learning) -> None:
        learning.retire_proposal = {"reason": reason, "at": clock.stamp(), "by": actor}

    return _decide(repo, lid, "propose_retirement", actor, reason, mark)


# -- usage by verdicts and retirement candidates -------------------------------------------------
def record_usage(repo: Any, lids: list[str], *, item: str | None = None, contradicted: list[str] | None = None,
                 actor: str = "assayer") -> dict[str, Any]:
    """A verdict says which learnings it used (and which it found wrong). Contradicted ones are
    proposed for retirement at once; use dates feed `propose_retirements`."""
    from .. import journal

    store = store_of(repo)
    usage = store.root / "usage.jsonl"
    for lid in lids:
        journal.append(usage, "learning_used", item=item, actor=actor, lid=parse_id(lid))
    proposed = []
    for lid in contradicted or []:
        journal.append(usage, "learning_contradicted", item=item, actor=actor, lid=parse_id(lid))
        learning = get(repo, lid)
        if learning.status in ACTIVE:
            propose_retirement(repo, lid, f"contradicted by the verdict on {item or 'an item'}", actor=actor)
            proposed.append(learning.id)
    return {"used": [parse_id(x) for x in lids], "retirement_proposed": proposed}


def last_used(repo: Any) -> dict[str, str]:
    """When each learning was last used by a verdict: {id: stamp} (ids never used are absent)."""
    from .. import journal

    store = store_of(repo)
    found: dict[str, str] = {}

    def used(lid: str, when: str) -> None:
        try:
            lid = parse_id(lid)
        except HallError:
            return
        if when > found.get(lid, ""):
            found[lid] = when

    for event in journal.read(store.root / "usage.jsonl").events:
        if event.get("event") == "learning_used":
            used(event["lid"], event["t"])
    # the review loop's verdicts name the learnings they used (`learnings_used`)
    for path in _paths(repo).items_dir.glob("*/events.jsonl"):
        for event in journal.read(path).events:
            if event.get("event") == "verdict":
                for lid in event.get("learnings_used") or []:
                    used(str(lid), event["t"])
    return found


def propose_retirements(repo: Any, actor: str = "librarian") -> list[str]:
    """Accepted learnings unused for `retire_after` (default 90d) are proposed for retirement."""
    horizon = clock.parse_duration(_config(repo).get("retire_after") or "90d")
    used_at = last_used(repo)
    now = clock.now()
    out = []
    for learning in list_learnings(repo):
        if learning.status not in ACTIVE or learning.retire_proposal:
            continue
        since = used_at.get(learning.id) or learning.updated or learning.created
        if (now - clock.parse_time(since)).total_seconds() >= horizon:
            days = int(horizon // 86400)
            propose_retirement(repo, learning.id, f"not used by any review for {days} days", actor=actor)
            out.append(learning.id)
    return out


# -- drains ---------------------------------------------------------------------------------------
def last_drain_summary(repo: Any) -> dict[str, Any]:
    """The most recent drain: the run of decisions no more than 30 minutes apart, counted."""
    store = store_of(repo)
    lines = [e for e in audit.read(store.audit_path)
             if e.get("action") in {"accept", "skip", "reject", "keep", "retire", "undo", "reopen"}]
    remaining = len(pending(repo))
    if not lines:
        return {"started": None, "ended": None, "decisions": 0, "accepted": 0, "skipped": 0, "rejected": 0,
                "retired": 0, "undone": 0, "ids": [], "remaining": remaining}
    run = [lines[-1]]
    for event in reversed(lines[:-1]):
        if clock.parse_time(run[-1]["t"]) - clock.parse_time(event["t"]) > DRAIN_GAP:
            break
        run.append(event)
    run.reverse()

    def count(*actions: str) -> int:
        return sum(1 for e in run if e.get("action") in actions)

    return {"started": run[0]["t"], "ended": run[-1]["t"], "decisions": len(run),
            "accepted": count("accept"), "skipped": count("skip"), "rejected": count("reject", "keep"),
            "retired": count("retire"), "undone": count("undo"), "ids": sorted({e["lid"] for e in run}),
            "remaining": remaining}


# -- integrity --------------------------------------------------------------------------------------
def verify_audit(repo: Any) -> list[str]:
    """Replay the audit log and compare it with the files: [] when they agree."""
    store = store_of(repo)
    current = {x.id: x.to_dict() for x in store.all()}
    return audit.verify(store.audit_path, current)


def matches_paths(learning: Learning, changed: list[str]) -> bool:
    """Does a changed path fall under one of the learning's globs (see globs.py)?"""
    from .globs import any_match

    return any_match(changed, learning.paths)


# -- reconcile ----------------------------------------------------------------------------------
def _edited_pattern(learning: Learning, current: str) -> str:
    """The pattern inside a hand-edited CLAUDE.md block (its first bullet), or the whole text."""
    if (learning.promotion or {}).get("target") == "claude_md":
        first = current.strip().splitlines()[0] if current.strip() else ""
        return first[2:].strip() if first.startswith("- ") else current.strip()
    return learning.pattern


def reconcile(repo: Any, *, update: list[str] | None = None, retire_ids: list[str] | None = None,
              restore: list[str] | None = None, actor: str = PERSON) -> dict[str, Any]:
    """Find promoted blocks/files a person edited or deleted; record each in the audit log once;
    then apply what was asked: update (adopt the edit), retire, or restore (write ours back)."""
    root = _paths(repo).main_checkout
    store = store_of(repo)
    project = project_of(repo)
    update = [parse_id(x) for x in update or []]
    retire_ids = [parse_id(x) for x in retire_ids or []]
    restore = [parse_id(x) for x in restore or []]
    drift: list[dict[str, Any]] = []
    with store.locked():
        for learning in store.all():
            if learning.project != project or learning.status != "promoted":
                continue
            seen = promote.inspect(root, learning)
            if seen["state"] == "intact":
                continue
            entry = {"id": learning.id, "state": seen["state"], "path": (learning.promotion or {}).get("path"),
                     "pattern": learning.pattern, "current": seen["current"],
                     "offers": (["update", "retire", "restore"] if seen["state"] == "edited" else ["retire", "restore"])}
            marker = {"state": seen["state"], "digest": promote.digest(seen["current"] or "")}
            if learning.details.get("drift") != marker:
                learning.details["drift"] = marker
                store.save(learning, action="reconcile", actor=actor, from_status=learning.status,
                           why=f"promoted {'block' if learning.promotion.get('target') == 'claude_md' else 'file'} "
                               f"{seen['state']} by hand in {entry['path']}")
                entry["recorded"] = True
            drift.append(entry)
    done = []
    by_id = {d["id"]: d for d in drift}
    for lid in update:
        entry = by_id.get(lid)
        if not entry or entry["state"] != "edited":
            raise HallError("WRONG_STATE", f"{lid} has no hand edit to adopt.", ["hall library reconcile"])
        learning = get(repo, lid)
        new_pattern = _edited_pattern(learning, entry["current"] or "")
        secrets.refuse_if_secret({"pattern": new_pattern}, "the adopted edit")
        with store.locked():
            learning = _load(store, lid, project)
            learning.pattern = new_pattern
            promo = dict(learning.promotion or {})
            promo["digest"] = promote.digest(entry["current"] or "")
            learning.promotion = promo
            learning.details.pop("drift", None)
            store.save(learning, action="edit", actor=actor, from_status=learning.status,
                       why="adopted the hand edit of its promoted text")
        done.append({"id": lid, "did": "updated"})
    for lid in retire_ids:
        retire(repo, lid, f"retired at reconcile ({by_id.get(lid, {}).get('state', 'by request')})", actor=actor)
        done.append({"id": lid, "did": "retired"})
    for lid in restore:
        with store.locked():
            learning = _load(store, lid, project)
            if learning.status != "promoted":
                raise HallError("WRONG_STATE", f"{lid} is {learning.status}, not promoted.", [f"hall library show {lid}"])
            learning.promotion = promote.write(root, learning)  # replaces a CLAUDE.md block in place
            learning.details.pop("drift", None)
            store.save(learning, action="edit", actor=actor, from_status=learning.status,
                       why="restored its promoted text")
        done.append({"id": lid, "did": "restored"})
    return {"drift": drift, "applied": done}
