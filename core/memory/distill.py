"""`hall library distill <item>`: the librarian reads a closed item and proposes learnings.

The librarian is a headless run (role "librarian", the runner in core/runner/spawn.py) given the
item's record: its request, the reviewer's findings with how each ended (fixed, disputed), the
verdicts, the escalation answers and the failures captured during the work. It answers with
structured output (LEARNINGS_SCHEMA). Every learning it returns is PROPOSED through the same
verb as any other proposal (secret scan, tombstones, merging), by the actor "librarian": nothing
it says reaches a prompt until a person accepts it. A run that fails or returns no structured
output proposes nothing and says so. Each distillation is recorded in the item's journal
(`distilled`), so the daemon's librarian does not distil an item twice.
"""

from __future__ import annotations

import json
from typing import Any

from hallmark.core import journal
from hallmark.core.errors import HallError

from . import api, failures
from .move_results import Distilled, DistilledLearning
from .store import KINDS, SOURCES

LEARNINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["learnings"],
    "properties": {
        "learnings": {
            "type": "array",
            "maxItems": 8,
            "items": {
                "type": "object",
                "required": ["kind", "pattern", "quote"],
                "properties": {
                    "kind": {"enum": list(KINDS)},
                    "pattern": {"type": "string", "description": "one idea, one sentence"},
                    "rationale": {"type": "string"},
                    "quote": {"type": "string", "description": "verbatim from the record"},
                    "source": {"enum": list(SOURCES)},
                    "paths": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "retire": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "reason"],
                "properties": {"id": {"type": "string"}, "reason": {"type": "string"}},
            },
        },
    },
}

PROMPT = """You are Hallmark's librarian. Read the record of item {item} below and propose at most 8 learnings
that would help a future reviewer or developer of THIS repository. One idea per learning, in one sentence,
with a verbatim quote from the record as evidence. Kinds: rule (a finding that turned out right),
false-positive (what not to flag, and why), map (what a module does), decision (a person's ruling on an
escalation), convention, enforcement (with path globs), automation, skill, workflow.

Do not propose: routine output, progress, guesses you could not verify from the record, anything already in
the accepted learnings listed below, and never credentials, tokens, personal or production data.
If an accepted learning is contradicted by this record, list it under "retire" with the reason.
Answer only through the structured output.

## Accepted learnings already in the library
{accepted}

## The record of {item}
{record}
"""


def record_of(repo: Any, item_id: str, limit: int = 60_000) -> str:
    """The item's journal, condensed to what a librarian needs, as text."""
    events = journal.read(repo.paths.item_journal(item_id)).events
    if not events:
        raise HallError("ITEM_NOT_FOUND", f"{item_id} has no journal.", ["hall status --all"])
    wanted = {
        "created",
        "adopted",
        "proposed_ready",
        "ready",
        "verdict",
        "finding",
        "findings",
        "changes_requested",
        "hallmarked",
        "escalated",
        "answered",
        "question",
        "fixed",
        "disputed",
        "dropped",
        "shipped",
        "check_run",
        "checks_failed",
        "retried",
        "pulled_back",
    }
    lines = []
    for event in events:
        if event.get("event") not in wanted:
            continue
        body = {k: v for k, v in event.items() if k not in ("v", "item", "t")}
        lines.append(f"{event['t'][:19]} {json.dumps(body, ensure_ascii=False, default=str)[:2000]}")
    lines.extend(
        f"failure ({failure.get('kind')}): {failure.get('reason')} :: {failure.get('excerpt', '')[:300]}"
        for failure in journal.read(failures.failures_path(repo.paths)).events
        if failure.get("item") == item_id
    )
    text = "\n".join(lines)
    return text[-limit:]


def build_prompt(repo: Any, item_id: str) -> str:
    accepted = [x for x in api.list_learnings(repo) if x.status in ("accepted", "promoted")]
    listed = "\n".join(f"- {x.id} [{x.kind}] {x.pattern}" for x in accepted[:80]) or "(none)"
    return PROMPT.format(item=item_id, accepted=listed, record=record_of(repo, item_id))


def distill(repo: Any, item_id: str) -> Distilled:
    from hallmark.core.runner import spawn

    prompt = build_prompt(repo, item_id)
    view_dir = repo.paths.item_dir(item_id)
    if not view_dir.is_dir():
        raise HallError("ITEM_NOT_FOUND", f"No item {item_id}.", ["hall status --all"])
    result = spawn.run(
        repo,
        spawn.RunSpec(role="librarian", prompt=prompt, cwd=repo.root, item_id=item_id, json_schema=LEARNINGS_SCHEMA),
    )
    proposed: list[DistilledLearning] = []
    retiring: list[str] = []
    skipped: list[dict[str, Any]] = []

    def reply(message: str, failed: str | None = None) -> Distilled:
        return Distilled(
            item=item_id,
            run=result.name,
            model=result.model,
            proposed=tuple(proposed),
            retirement_proposed=retiring,
            skipped=skipped,
            failed=failed,
            message=message,
        )

    if not result.ok:
        message = f"The librarian's run failed ({result.failure}); nothing was proposed."
        return _recorded(repo, item_id, reply(message, result.failure), rate_limited=result.rate_limited)
    output = result.structured_output
    if not isinstance(output, dict) or not isinstance(output.get("learnings"), list):
        return _recorded(
            repo, item_id, reply("The librarian's run returned no structured output; nothing was proposed.")
        )
    for entry in output["learnings"]:
        if not isinstance(entry, dict):
            continue
        try:
            answer = api.propose(
                repo,
                kind=str(entry.get("kind")),
                pattern=str(entry.get("pattern") or ""),
                rationale=str(entry.get("rationale") or ""),
                paths=[str(p) for p in entry.get("paths") or []],
                evidence={
                    "source": entry.get("source") if entry.get("source") in SOURCES else "librarian",
                    "quote": str(entry.get("quote") or ""),
                    "item": item_id,
                    "session": result.session_id or None,
                },
                item=item_id,
                actor="librarian",
                origin="librarian",
            )
        except HallError as exc:  # a secret, a bad kind: that one is skipped and reported
            skipped.append({"pattern": str(entry.get("pattern"))[:120], "code": exc.code, "why": exc.message})
            continue
        proposed.append(
            DistilledLearning(
                id=answer.id,
                status=answer.status,
                created=answer.created,
                merged=answer.merged,
                previously_rejected=answer.previously_rejected,
            )
        )
    for entry in output.get("retire") or []:
        try:
            learning = api.propose_retirement(
                repo, str(entry.get("id")), str(entry.get("reason") or "contradicted"), actor="librarian"
            )
            retiring.append(learning.id)
        except HallError as exc:
            skipped.append({"retire": entry.get("id"), "code": exc.code, "why": exc.message})
    retiring += api.propose_retirements(repo, actor="librarian")
    message = f"The librarian proposed {len(proposed)} learnings; they wait for a person (hall library review)."
    return _recorded(repo, item_id, reply(message))


def _recorded(repo: Any, item_id: str, reply: Distilled, *, rate_limited: bool = False) -> Distilled:
    """One `distilled` event in the item's journal: the run, what was proposed, why it failed."""
    journal.append(
        repo.paths.item_journal(item_id),
        "distilled",
        item=item_id,
        actor="librarian",
        run=reply.run,
        proposed=[p.id for p in reply.proposed if p.id],
        retirement_proposed=list(reply.retirement_proposed),
        skipped=len(reply.skipped),
        failed=reply.failed,
        rate_limited=rate_limited,
    )
    return reply
