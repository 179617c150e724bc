"""Deciding: accept (and promote), skip, reject, retire, reopen, undo, propose a retirement.

Accept, reject, retire, edit, reopen and undo are a person's decisions: each asks access.person,
which refuses an agent (GATE_DENIED) and audits the attempt. An automation is accepted only with
its own confirmation: the token `promote.automation_of` derives from the exact command, event and
matcher, so what the person confirmed is what is written. Every decision that writes or removes
promoted text runs inside an intent (intents.guard), so a crash at any step is repaired by
`reconcile`. Stdlib only.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hallmark.core import clock, secrets
from hallmark.core.errors import HallError

from . import audit, intents, lifecycle, promote
from .access import PERSON, load, person, project_of, store_of, where_of
from .lifecycle import ACTIVE
from .promote import Where
from .reading import as_of_stamp, get
from .store import Learning, Store, parse_id


def _copy(learning: Learning) -> Learning:
    return Learning.from_dict(copy.deepcopy(learning.to_dict()))


@contextmanager
def _opened(repo: Any, lid: str) -> Iterator[tuple[Store, Where, Learning, Learning]]:
    """Under the store lock: the store, where promotion writes, the learning, and a copy to change."""
    store = store_of(repo)
    where = where_of(repo)
    with store.locked():
        learning = load(store, lid, project_of(repo))
        yield store, where, learning, _copy(learning)


def _decide(
    repo: Any, lid: str, action: str, actor: str, why: str, mutate: Callable[[Learning], None] | None = None
) -> Learning:
    """A decision that touches no file: one new version under the store lock."""
    store = store_of(repo)
    project = project_of(repo)
    with store.locked():
        learning = load(store, lid, project)
        before = learning.status
        learning.status = lifecycle.next_status(action, before, learning.id)
        if mutate:
            mutate(learning)
        store.save(learning, action=action, actor=actor, from_status=before, why=why)
    return learning


def automation_confirmation(learning: Learning) -> dict[str, Any] | None:
    """For an automation that would become a hook: what the person must confirm, else None."""
    if learning.kind != "automation":
        return None
    auto = promote.automation_of(learning)
    return None if "problem" in auto else auto


def _require_confirmation(learning: Learning, given: str | None) -> None:
    auto = automation_confirmation(learning)
    if auto is None or given == auto["confirm"]:
        return
    raise HallError(
        "CONFIRMATION_NEEDED",
        f"{learning.id} is an automation: accepting it writes this command into .claude/settings.local.json "
        f"as a {auto['event']} hook (matcher {auto['matcher']!r}), run by Claude Code on its own:\n"
        f"  {auto['command']}\n"
        "It is never accepted in bulk. Read the command, then confirm exactly this one.",
        [
            f"hall library accept {learning.id} --confirm-automation {auto['confirm']}",
            f"hall library show {learning.id}",
        ],
    )


def accept(
    repo: Any,
    lid: str,
    actor: str = PERSON,
    pattern: str | None = None,
    *,
    promote_it: bool = True,
    why: str = "",
    confirm_automation: str | None = None,
    valid_from: str | None = None,
    valid_until: str | None = None,
) -> Learning:
    """Approve a pending learning (and promote it where its kind has a home); with pattern on an
    accepted one, edit its text. On a retirement proposal: approve the retirement."""
    lid = parse_id(lid)
    editing = pattern is not None
    who = person(repo, "edit" if editing and get(repo, lid).status in ACTIVE else "accept", lid, actor)
    current = get(repo, lid)
    if current.status in ACTIVE and current.retire_proposal:
        return retire(repo, lid, current.retire_proposal.get("reason") or "retirement accepted", actor=who)
    if current.status in ACTIVE and pattern is None:
        return current  # idempotent: already accepted
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise HallError("USAGE", "the edited pattern is empty", [f"hall library show {lid}"])
        secrets.refuse_if_secret({"pattern": pattern, "why": why}, "the edited learning")
    if current.status not in ACTIVE:
        _require_confirmation(current, confirm_automation)
    since, until = as_of_stamp(valid_from), as_of_stamp(valid_until)
    with _opened(repo, lid) as (store, where, learning, new):
        before = learning.status
        if before in ACTIVE:  # an edit of an accepted learning's text
            new.pattern = pattern or learning.pattern
            with intents.guard(store, where, learning, new, "edit"):
                if learning.promotion:
                    new.promotion = promote.write(where, new)
                store.save(new, action="edit", actor=who, from_status=before, why=why or "pattern edited")
            return new
        new.status = lifecycle.next_status("accept", before, lid)
        if pattern:
            new.details["original_pattern"] = learning.pattern
            new.pattern = pattern
        new.decided_by = who
        new.reason = why
        new.valid_from = since or new.valid_from or clock.stamp()
        new.valid_until = until or new.valid_until
        note = why or "accepted"
        with intents.guard(store, where, learning, new, "accept"):
            if promote_it and promote.TARGETS.get(new.kind):
                try:
                    promo = promote.write(where, new)
                except HallError as exc:
                    promo = None
                    note = f"{note}; not promoted: {exc.message}"
                if promo:
                    new.promotion = promo
                    new.status = lifecycle.next_status("promote", new.status, lid)
                    note = f"{note}; promoted to {promo['path']}"
            store.save(new, action="accept", actor=who, from_status=before, why=note)
    if new.supersedes:
        old = get(repo, new.supersedes)
        if old.status in ACTIVE:
            retire(repo, old.id, f"superseded by {new.id}", actor=who, superseded_by=new.id)
    return new


def skip(repo: Any, lid: str, actor: str = PERSON) -> Learning:
    """Not now: it stays pending and comes back at the next drain with its skip count."""
    lid = parse_id(lid)
    current = get(repo, lid)
    if current.status in ACTIVE and current.retire_proposal:
        store = store_of(repo)
        with store.locked():
            learning = load(store, lid, current.project)
            learning.retire_proposal = {
                **(learning.retire_proposal or {}),
                "skips": int((learning.retire_proposal or {}).get("skips", 0)) + 1,
            }
            learning.skip_count += 1
            store.save(
                learning,
                action="skip",
                actor=actor,
                from_status=learning.status,
                why="retirement left for the next drain",
            )
        return learning

    def bump(learning: Learning) -> None:
        learning.skip_count += 1

    return _decide(repo, lid, "skip", actor, "left for the next drain", bump)


def _reasoned(repo: Any, lid: str, reason: str, actor: str, verb: str, what: str) -> tuple[str, str, str]:
    """A decision that needs a reason: (id, reason, the person acting), or USAGE / GATE_DENIED / SECRET_REFUSED."""
    lid = parse_id(lid)
    reason = (reason or "").strip()
    if not reason:
        raise HallError("USAGE", f"{what} needs a reason (--reason)", [f"hall library {verb} {lid} --reason '…'"])
    who = person(repo, verb, lid, actor)
    secrets.refuse_if_secret({"reason": reason}, f"the {what.split(' ', 1)[1]}")
    return lid, reason, who


def reject(repo: Any, lid: str, reason: str, actor: str = PERSON) -> Learning:
    """No: the learning becomes a tombstone with this reason. On a retirement proposal: keep it."""
    lid, reason, who = _reasoned(repo, lid, reason, actor, "reject", "a rejection")
    current = get(repo, lid)
    if current.status == "rejected":
        return current  # idempotent
    if current.status in ACTIVE and current.retire_proposal:

        def keep(learning: Learning) -> None:
            learning.retire_proposal = None
            learning.details["kept"] = {"reason": reason, "at": clock.stamp(), "by": who}

        return _decide(repo, lid, "keep", who, f"retirement declined: {reason}", keep)

    def mark(learning: Learning) -> None:
        learning.reason = reason
        learning.decided_by = who

    return _decide(repo, lid, "reject", who, reason, mark)


def retire(
    repo: Any,
    lid: str,
    reason: str,
    actor: str = PERSON,
    *,
    valid_until: str | None = None,
    superseded_by: str | None = None,
) -> Learning:
    """Take an accepted learning out of use: its validity ends (history keeps every version) and
    exactly its promoted block or file is removed — or, when the person edited it, left to them."""
    lid, reason, who = _reasoned(repo, lid, reason, actor, "retire", "a retirement")
    current = get(repo, lid)
    if current.status == "retired":
        return current
    with _opened(repo, lid) as (store, where, learning, new):
        before = learning.status
        new.status = lifecycle.next_status("retire", before, lid)
        new.valid_until = as_of_stamp(valid_until) or clock.stamp()
        new.superseded_by = superseded_by or new.superseded_by
        new.retire_proposal = None
        new.reason = reason
        new.decided_by = who
        note = reason
        with intents.guard(store, where, learning, new, "retire"):
            if learning.promotion:
                result = promote.remove(where, learning)
                new.details["last_promotion"] = learning.promotion
                new.promotion = None
                if result.get("kept"):
                    new.details.setdefault("kept_edits", []).append(
                        {
                            "path": result["path"],
                            "at": result["kept"],
                            "why": result.get("why"),
                            "t": clock.stamp(),
                            "version": new.version + 1,
                        }
                    )  # the version save() writes: this retirement's
                    note = f"{reason}; kept the person's edit at {result['kept']} ({result.get('why')})"
            store.save(new, action="retire", actor=who, from_status=before, why=note)
    return new


def reopen(repo: Any, lid: str, actor: str = PERSON, reason: str = "") -> Learning:
    """The only way back from a tombstone (or a retirement): it becomes proposed again."""
    lid = parse_id(lid)
    who = person(repo, "reopen", lid, actor)
    secrets.refuse_if_secret({"reason": reason}, "the reopening")

    def mark(learning: Learning) -> None:
        learning.details.setdefault("reopened", []).append({"from": learning.reason, "at": clock.stamp(), "by": who})
        learning.reason = reason
        learning.skip_count = 0
        learning.valid_until = None
        learning.superseded_by = None

    return _decide(repo, lid, "reopen", who, reason or "reopened", mark)


DECISIONS = frozenset({"accept", "skip", "reject", "retire", "keep", "reopen", "edit"})


def undo(repo: Any, lid: str, actor: str = PERSON) -> Learning:
    """Revert the last decision on a learning (accept, skip, reject, retire, keep), restoring the
    version before it and removing (or restoring) the promotion that decision caused."""
    lid = parse_id(lid)
    who = person(repo, "undo a decision on", lid, actor)
    store = store_of(repo)
    where = where_of(repo)
    with store.locked():
        learning = load(store, lid, project_of(repo))
        lines = audit.read(store.audit_path, lid)
        last = next((e for e in reversed(lines) if e.get("event") == "library" and e.get("action") in DECISIONS), None)
        if last is None:
            raise HallError("WRONG_STATE", f"{lid} has no decision to undo.", [f"hall library history {lid}"])
        target_version = int(last.get("version", 1)) - 1
        earlier = next((v for v in store.versions(lid) if v.version == target_version), None)
        if earlier is None:
            raise HallError(
                "WRONG_STATE",
                f"{lid}'s version {target_version} is missing; nothing changed.",
                [f"hall library history {lid}"],
            )
        before = learning.status
        restored = _copy(earlier)
        # what happened since (occurrences and evidence merged in later) is kept; only the decision goes
        restored.version = learning.version
        restored.evidence = learning.evidence
        restored.occurrences = learning.occurrences
        restored.reproposed = learning.reproposed
        with intents.guard(store, where, learning, restored, "undo"):
            if learning.promotion:
                promote.remove(where, learning)
            if restored.status == "promoted":
                try:
                    restored.promotion = promote.write(where, restored)
                except HallError:
                    restored.status, restored.promotion = "accepted", None
            else:
                restored.promotion = None
            store.save(
                restored,
                action="undo",
                actor=who,
                from_status=before,
                why=f"undid '{last.get('action')}' of {last.get('t')}",
            )
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
