"""Pydantic models of the journal's events: validation at the boundary and `hall schema event`.

The journal itself is written by journal.py (stdlib) so the hook path stays light; these
models describe exactly what it writes.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Envelope(BaseModel):
    """Every journal line carries these."""

    model_config = ConfigDict(extra="allow")

    v: Literal[1] = 1
    t: str = Field(description="UTC ISO-8601 time")
    actor: str = Field(description="you, agent, assayer, fixer, shipper, librarian, watchman, hook, standin…")
    event: str
    item: str | None = Field(None, description="H-0042, or null for repo-level events")


class Created(Envelope):
    event: Literal["created", "adopted"]
    title: str
    branch: str
    worktree: str
    base: str
    request: str | None = None


class Ready(Envelope):
    event: Literal["ready"]
    sha: str
    round: int
    note: str | None = None


class ProposedReady(Envelope):
    event: Literal["proposed_ready"]
    summary: str
    why: str | None = None
    how: str | None = None
    ask: bool = False


class Reasoned(Envelope):
    event: Literal["pulled_back", "dropped", "retried", "held", "released"]
    reason: str = ""
    kind: str | None = None


class LoopStep(Envelope):
    event: Literal["checks_passed", "checks_failed", "hallmarked", "changes_requested", "escalated",
                   "fix_submitted", "shipped", "reopened", "restored"]
    sha: str | None = None
    round: int | None = None
    held: bool | None = None
    pr: str | None = None


class Question(Envelope):
    event: Literal["question"]
    qid: str
    question: str
    options: list[str] = Field(default_factory=list)
    default: str | None = None
    wait: str | None = None
    session: str | None = None


class Answered(Envelope):
    event: Literal["answered", "question_defaulted"]
    qid: str
    answer: str


class Usage(Envelope):
    event: Literal["usage"]
    role: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    turns: int = 0
    duration_ms: int = 0
    cost_usd: float = 0.0


class Other(Envelope):
    """prompt, turn, commit, check_run, verdict, notification, session_bound, run_started,
    run_ended, worktree_removed, taken_over, gate_denied and the rest."""


EVENT_MODELS: tuple[type[BaseModel], ...] = (Created, Ready, ProposedReady, Reasoned, LoopStep, Question,
                                            Answered, Usage, Other)


def event_schema() -> dict[str, Any]:
    return {
        "title": "Hallmark journal event",
        "description": "One JSON object per line of events.jsonl.",
        "anyOf": [m.model_json_schema() for m in EVENT_MODELS],
    }


class ErrorBody(BaseModel):
    code: str
    message: str
    next: list[str]


class ErrorReply(BaseModel):
    """What every command prints when it fails (exit code by code, see `hall help`)."""

    error: ErrorBody
