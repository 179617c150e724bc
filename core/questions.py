"""Questions: asking one, answering it, and waiting on the answer (or the default once the wait runs
out, and the journal says so). The question verbs are not the item lifecycle (items.py): a question
may belong to no item, and answering one moves no item's state."""

from __future__ import annotations

import time
from typing import Any

from . import clock, ids, item_results, journal, person_cap
from .errors import HallError
from .items import fold_item, record
from .repo import Repo, current_actor
from .secrets import redact


def ask(
    repo: Repo,
    question: str,
    *,
    item_id: str | None = None,
    options: list[str] | None = None,
    default: str | None = None,
    wait: str | None = None,
    session: str | None = None,
    actor: str | None = None,
) -> item_results.Asked:
    question = redact(question)  # free text: a secret in it is redacted, never kept
    if not question.strip():
        raise HallError("USAGE", "A question needs text.", ['hall ask "…"'])
    if default is not None and options and default not in options:
        raise HallError(
            "USAGE",
            f"The default '{default}' is not one of the options {options}.",
            ['hall ask "…" --options a,b --default a'],
        )
    if wait:
        try:
            clock.parse_duration(wait)
        except ValueError as exc:
            raise HallError("USAGE", f"--wait {wait!r} is not a duration (try 30m, 4h).", []) from exc
    if item_id:
        fold_item(repo, item_id)
    qid = ids.question_id(ids.allocate(repo.state_dir, "question"))
    fields: dict[str, Any] = {"qid": qid, "question": question, "options": options or []}
    if default is not None:
        fields["default"] = default
    if wait:
        fields["wait"] = wait
    if session:
        fields["session"] = session
    record(repo, item_id, "question", actor=actor, **fields)
    return item_results.Asked(
        qid=qid, item=item_id, question=question, options=options or [], default=default, wait=wait
    )


def answer(repo: Repo, qid: str, text: str, *, actor: str | None = None) -> item_results.Answered:
    entry = repo.index.question(qid)
    if entry is None:
        raise HallError("QUESTION_NOT_FOUND", f"There is no question {qid}.", ["hall inbox"])
    if entry["answered"] and answer_counts(repo, entry):
        raise HallError("ALREADY_ANSWERED", f"{qid} was answered already: {entry['answer']!r}.", ["hall inbox"])
    text = redact(text)
    chosen = text
    options = entry["options"] or []
    if options and len(text) == 1 and text.isalpha() and text.lower() not in [o.lower() for o in options]:
        position = ord(text.lower()) - ord("a")
        if 0 <= position < len(options):
            chosen = options[position]
    path = repo.paths.item_journal(entry["item"]) if entry["item"] else repo.paths.repo_journal
    with journal.locked(path):
        # re-check under the lock so two answers can't both land
        for event in journal.read(path).events:
            if _settles(event, qid, repo):
                raise HallError("ALREADY_ANSWERED", f"{qid} was answered already.", ["hall inbox"])
        made = journal.make_event("answered", entry["item"], actor or current_actor(), {"qid": qid, "answer": chosen})
        try:
            person_cap.seal_if_person(made, repo.paths)
        except person_cap.CapError as exc:
            raise person_cap.refusal("hall answer", exc) from None
        journal.append_unlocked(path, made)
    return item_results.Answered(qid=qid, item=entry["item"], answer=chosen)


def _settles(event: dict[str, Any], qid: str, repo: Repo) -> bool:
    """Does this line settle question qid? A default does; an answer only with a person's valid cap
    (an agent's unsigned `answered` settles nothing: the person can still answer)."""
    if event.get("qid") != qid:
        return False
    if event.get("event") == "question_defaulted":
        return True
    return event.get("event") == "answered" and person_cap.counts(event, repo.paths)


def answer_counts(repo: Repo, q: dict[str, Any]) -> bool:
    """Does the recorded answer of question q count (a default, or a person's signed answer)?
    Checked where the answer is acted on: resuming the session that asked, a blocked `ask`."""
    if q.get("answered_by") == "default":
        return True
    path = repo.paths.item_journal(q["item"]) if q.get("item") else repo.paths.repo_journal
    return any(_settles(e, str(q["qid"]), repo) for e in journal.read(path).events)


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
            done = any(_settles(e, q["qid"], repo) for e in journal.read(path).events)
            if not done:
                journal.append_unlocked(
                    path,
                    journal.make_event(
                        "question_defaulted",
                        q["item"],
                        "hall",
                        {
                            "qid": q["qid"],
                            "answer": q["default"],
                            "reason": f"no answer within {q['wait']}; went ahead with the default",
                        },
                    ),
                )
                applied.append(q)
    return applied


def wait_for_answer(
    repo: Repo, asked: item_results.Asked, wait: str | None, poll: float = 0.5
) -> item_results.AskedAndWaited:
    """Block until the question is answered (or its default applies), or the wait runs out."""
    limit = clock.parse_duration(wait) if wait else None
    started = time.monotonic()
    question = asked.field_values()
    while True:
        apply_expired_defaults(repo)
        entry = repo.index.question(asked.qid)
        if entry is None:
            raise HallError("QUESTION_NOT_FOUND", f"There is no question {asked.qid}.", ["hall inbox"])
        if entry["answered"] and answer_counts(repo, entry):
            delivered = mark_delivered(repo, entry)
            return item_results.AskedAndWaited(
                **question,
                answer=entry["answer"],
                answered_by=entry["answered_by"],
                defaulted=entry["answered_by"] == "default",
                delivered_here=delivered,
            )
        if limit is not None and time.monotonic() - started > limit + 5:
            return item_results.AskedAndWaited(**question, answer=None, answered_by=None, defaulted=False)
        time.sleep(poll)


DELIVERY_EVENTS = ("resume_started", "resume_released", "resumed", "resume_failed", "answer_delivered")


def mark_delivered(repo: Repo, entry: dict[str, Any]) -> bool:
    """The blocking asker got its answer itself: record that, so the daemon does not resume the
    session with it again. False when there is no session to resume, or a daemon claimed it first."""
    if not entry.get("session"):
        return False
    path = repo.paths.item_journal(entry["item"]) if entry["item"] else repo.paths.repo_journal
    with journal.locked(path):
        claims = [
            e for e in journal.read(path).events if e.get("qid") == entry["qid"] and e.get("event") in DELIVERY_EVENTS
        ]
        if claims and claims[-1].get("event") != "resume_released":
            return False
        journal.append_unlocked(
            path,
            journal.make_event(
                "answer_delivered", entry["item"], "hall", {"qid": entry["qid"], "via": "hall ask --block"}
            ),
        )
    return True
