"""Pydantic models of the journal's events, for `hall schema event` and the CLI's error reply.

The journal is written and read by journal.py (stdlib), so the hook path stays light; nothing
validates an event against these models on the way in or out (a reader skips a malformed line
and says so, journal.read). They describe what journal.py writes, and tests validate real
journals against them (tests/cli/test_meta_cli.py), so the description cannot drift.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
    event: Literal[
        "checks_passed",
        "checks_failed",
        "hallmarked",
        "changes_requested",
        "escalated",
        "fix_submitted",
        "shipped",
        "reopened",
        "restored",
        "recheck_failed",
    ]
    sha: str | None = None
    round: int | None = None
    held: bool | None = None
    pr: str | int | None = None
    run: str | None = Field(None, description="hallmarked: the review run whose verdict struck it")
    standin: bool | None = Field(None, description="hallmarked: the stand-in model ran that review (no model)")


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


TYPED_MODELS: tuple[type[Envelope], ...] = (
    Created,
    Ready,
    ProposedReady,
    Reasoned,
    LoopStep,
    Question,
    Answered,
    Usage,
)


def _typed_names() -> dict[str, type[Envelope]]:
    names: dict[str, type[Envelope]] = {}
    for model in TYPED_MODELS:
        for name in get_args(model.model_fields["event"].annotation):
            names[name] = model
    return names


MODEL_OF_EVENT: dict[str, type[Envelope]] = _typed_names()


class Other(Envelope):
    """prompt, turn, commit, check_run, verdict, notification, session_bound, run_started,
    run_ended, worktree_removed, taken_over, gate_denied and the rest: any event without a model
    of its own (an event with one must match it)."""

    # (a comprehension, so mypy reads it as a list of JSON values, which pydantic's JsonDict asks for)
    event: str = Field(json_schema_extra={"not": {"enum": [name for name in sorted(MODEL_OF_EVENT)]}})

    @field_validator("event")
    @classmethod
    def _untyped(cls, value: str) -> str:
        if value in MODEL_OF_EVENT:
            raise ValueError(f"'{value}' events have their own model ({MODEL_OF_EVENT[value].__name__})")
        return value


EVENT_MODELS: tuple[type[BaseModel], ...] = (*TYPED_MODELS, Other)


def validate_event(record: dict[str, Any]) -> Envelope:
    """Check one journal line against its event's model (raises pydantic.ValidationError)."""
    model = MODEL_OF_EVENT.get(str(record.get("event")), Other)
    return model.model_validate(record)


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
