"""Waiting on a question: the answer, or the default once the wait runs out (and the journal says so)."""

from __future__ import annotations

import time
from typing import Any

from . import clock, journal
from .errors import HallError
from .repo import Repo


def apply_expired_defaults(repo: Repo) -> list[dict[str, Any]]:
    """Record `question_defaulted` for every open question whose wait has run out."""
    applied = []
    now = clock.now()
    for q in repo.index.questions(open_only=True):
        if q["default"] is None or not q["wait"] or not q["asked"]:
            continue
        if (now - clock.parse_time(q["asked"])).total_seconds() < clock.parse_duration(q["wait"]):
            continue
        path = repo.paths.item_journal(q["item"]) if q["item"] else repo.paths.repo_journal
        with journal.locked(path):
            done = any(e.get("qid") == q["qid"] and e.get("event") in ("answered", "question_defaulted")
                       for e in journal.read(path).events)
            if not done:
                journal.append_unlocked(path, journal.make_event(
                    "question_defaulted", q["item"], "hall",
                    {"qid": q["qid"], "answer": q["default"], "reason": f"no answer within {q['wait']}; went ahead with the default"}))
                applied.append(q)
    return applied


def wait_for_answer(repo: Repo, qid: str, wait: str | None, poll: float = 0.5) -> dict[str, Any]:
    limit = clock.parse_duration(wait) if wait else None
    started = time.monotonic()
    while True:
        apply_expired_defaults(repo)
        entry = repo.index.question(qid)
        if entry is None:
            raise HallError("QUESTION_NOT_FOUND", f"There is no question {qid}.", ["hall inbox"])
        if entry["answered"]:
            delivered = mark_delivered(repo, entry)
            return {"answer": entry["answer"], "answered_by": entry["answered_by"],
                    "defaulted": entry["answered_by"] == "default", "delivered_here": delivered}
        if limit is not None and time.monotonic() - started > limit + 5:
            return {"answer": None, "answered_by": None, "defaulted": False}
        time.sleep(poll)


DELIVERY_EVENTS = ("resume_started", "resume_released", "resumed", "resume_failed", "answer_delivered")


def mark_delivered(repo: Repo, entry: dict[str, Any]) -> bool:
    """The blocking asker got its answer itself: record that, so the daemon does not resume the
    session with it again. False when there is no session to resume, or a daemon claimed it first."""
    if not entry.get("session"):
        return False
    path = repo.paths.item_journal(entry["item"]) if entry["item"] else repo.paths.repo_journal
    with journal.locked(path):
        claims = [e for e in journal.read(path).events
                  if e.get("qid") == entry["qid"] and e.get("event") in DELIVERY_EVENTS]
        if claims and claims[-1].get("event") != "resume_released":
            return False
        journal.append_unlocked(path, journal.make_event("answer_delivered", entry["item"], "hall",
                                                         {"qid": entry["qid"], "via": "hall ask --block"}))
    return True
