"""What the memory store's verbs answer: typed results the faces read by attribute.

`to_dict()` gives the JSON reply's keys in the CLI's order, without `next` (tui/cli/library/ adds
it). `hall schema library <sub>` describes each reply from these classes (core/results.py). A
learning's own record stays the store's dict (`Learning.to_dict()`, the file's front matter), as do
audit lines, decisions and notes: free-form records whose keys vary with the store's age.

Stdlib only (core/results.py): the hook path reads the briefing and the identity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from hallmark.core.results import Result, hidden

if TYPE_CHECKING:
    from .store import Learning


# -- pieces of a learning's reply -----------------------------------------------------------------
class Tombstone(Result):
    """A rejection: the learning rejected, why, by whom, when, and how often it came back."""

    id: str
    pattern: str
    reason: str
    rejected_by: str
    rejected: str
    reproposed: int
    evidence: int

    @classmethod
    def of(cls, learning: Learning) -> Tombstone:
        return cls(
            id=learning.id,
            pattern=learning.pattern,
            reason=learning.reason,
            rejected_by=learning.decided_by,
            rejected=learning.updated,
            reproposed=learning.reproposed,
            evidence=len(learning.evidence),
        )


class Preview(Result):
    """Where accepting a learning writes and exactly what (or why it cannot), and the automation it
    would install (event, matcher, command, confirm, file)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"automation"})

    target: str
    where: str
    path: str | None
    text: str
    problem: str | None
    automation: dict[str, Any] | None = None


class LearningRow(Result):
    """A learning in a listing: what it says, where it stands, and when it holds."""

    id: str
    kind: str
    status: str
    pattern: str
    occurrences: int
    skip_count: int
    paths: list[str]
    retire_proposed: bool
    updated: str
    recorded: str
    valid_from: str
    valid_until: str | None

    @classmethod
    def fields_of(cls, learning: Learning) -> dict[str, Any]:
        return {
            "id": learning.id,
            "kind": learning.kind,
            "status": learning.status,
            "pattern": learning.pattern,
            "occurrences": learning.occurrences,
            "skip_count": learning.skip_count,
            "paths": learning.paths,
            "retire_proposed": bool(learning.retire_proposal),
            "updated": learning.updated,
            "recorded": learning.recorded,
            "valid_from": learning.valid_since,
            "valid_until": learning.valid_until,
        }

    @classmethod
    def of(cls, learning: Learning) -> LearningRow:
        return cls(**cls.fields_of(learning))


class HeldRow(LearningRow):
    """A learning as it stood on a past date, and whether it held then."""

    held_then: bool


class PendingRow(LearningRow):
    """A learning the drain offers: its reasons, evidence, where accepting writes, why its
    retirement is proposed, and an automation's exact command and own confirmation."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"automation"})

    rationale: str
    evidence: list[dict[str, Any]]
    where: Preview
    retire_reason: str | None
    automation: dict[str, Any] | None = None


class DrainSummary(Result):
    """The last drain: its decisions no more than 30 minutes apart, counted, and what remains."""

    started: str | None
    ended: str | None
    decisions: int
    accepted: int
    skipped: int
    rejected: int
    retired: int
    undone: int
    ids: list[str]
    remaining: int

    @classmethod
    def never(cls, remaining: int) -> DrainSummary:
        """No drain has happened yet."""
        return cls(
            started=None,
            ended=None,
            decisions=0,
            accepted=0,
            skipped=0,
            rejected=0,
            retired=0,
            undone=0,
            ids=[],
            remaining=remaining,
        )


# -- one learning, as a verb left it --------------------------------------------------------------
class LearningReply(Result):
    """A learning after a decision (reject, undo, reopen, a drain decision): its record, id, status."""

    learning: dict[str, Any]
    id: str
    status: str

    @classmethod
    def fields_of(cls, learning: Learning) -> dict[str, Any]:
        return {"learning": learning.to_dict(), "id": learning.id, "status": learning.status}

    @classmethod
    def of(cls, learning: Learning, **extra: Any) -> Any:
        return cls(**cls.fields_of(learning), **extra)


class Accepted(LearningReply):
    """`hall library accept`: the learning, and the file its promotion wrote (null: library only)."""

    promoted_to: str | None


class Skipped(LearningReply):
    """`hall library skip`: the learning, and how often it was skipped."""

    skip_count: int


class Retired(LearningReply):
    """`hall library retire`: the learning, and the hand edit of its promoted text that was kept."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"kept", "message"})

    kept: dict[str, Any] | None = None
    message: str | None = None


class LearningShown(LearningReply):
    """`hall library show`: the learning, where accepting writes, its tombstone, how many versions,
    and (pending automations) the automation accepting installs."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"automation"})

    preview: Preview
    tombstone: Tombstone | None
    versions: int
    automation: dict[str, Any] | None = None


class LearningThen(LearningReply):
    """`hall library show --as-of`: the version recorded by then, and whether it held then."""

    as_of: str
    held_then: bool


class Proposed(Result):
    """`hall library propose`: the learning recorded, or the one (or the tombstone) it repeats."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"match", "tombstone", "previously_rejected", "previously_retired", "message"}
    )

    id: str
    status: str
    created: bool
    merged: bool
    match: str | None = None  # "same" or "near": how a merge found its learning
    occurrences: int
    tombstone: Tombstone | None = None
    previously_rejected: bool | None = None
    previously_retired: bool | None = None
    message: str | None = None


# -- listings -------------------------------------------------------------------------------------
class LearningList(Result):
    """`hall library list`: this project's learnings."""

    learnings: tuple[LearningRow, ...]
    count: int
    project: str


class LearningListThen(Result):
    """`hall library list --as-of`: the learnings as they stood then, and whether each held then."""

    learnings: tuple[HeldRow, ...]
    count: int
    project: str
    as_of: str


class PendingQueue(Result):
    """`hall library review`: the drain's queue, with where each would be written, and the last drain."""

    pending: tuple[PendingRow, ...]
    count: int
    last_drain: DrainSummary


class Found(Result):
    """`hall library search`: accepted learnings matching the words (all of them, else any)."""

    query: str
    learnings: tuple[LearningRow, ...]
    count: int
    searched: str


class History(Result):
    """`hall library history`: every version of a learning (its records) and its audit lines."""

    id: str
    versions: list[dict[str, Any]]
    audit: list[dict[str, Any]]


class AuditReport(Result):
    """`hall library audit`: the audit lines (the last --limit), and with --verify what disagrees."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"verified", "problems"})

    audit: list[dict[str, Any]]
    count: int
    verified: bool | None = None
    problems: list[str] | None = None


class RetirementsProposed(Result):
    """`hall library unused`: learnings unused for retire_after, now proposed for retirement."""

    retirement_proposed: list[str]
    count: int


# -- the briefing ---------------------------------------------------------------------------------
class BriefingLine(Result):
    """One learning in a briefing: why it was chosen and its estimated tokens."""

    id: str
    kind: str
    pattern: str
    paths: list[str]
    why: str
    tokens: int


class Briefing(Result):
    """`hall library briefing`: accepted learnings for the changed paths within the token cap."""

    project: str
    effort: str
    cap_tokens: int
    limit_tokens: int
    as_of: str | None
    tokens: int
    token_estimate: str
    learnings: tuple[BriefingLine, ...]
    omitted: int
    text: str
    memory_restored: Literal[True] = True


class DegradedBriefing(Result):
    """`hall library briefing` when the store cannot be read: no learnings, the reason said plainly."""

    memory_restored: Literal[False] = False
    degraded: str
    learnings: tuple[BriefingLine, ...] = ()
    tokens: int = 0
    text: str
    fixes: tuple[str, ...] = hidden(default=())  # what repairs it (the error's next steps): the face's `next`


# -- reconcile ------------------------------------------------------------------------------------
class Drift(Result):
    """A promoted block or file a person edited or deleted, and what may be done about it."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"recorded"})

    id: str
    state: str
    path: str | None
    pattern: str
    current: str | None
    offers: list[str]
    recorded: bool | None = None  # recorded in the audit log by this call


class Applied(Result):
    """One reconcile action done: updated, retired or restored (and where an edit was kept)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"kept"})

    id: str
    did: str
    kept: str | None = None


class Reconciled(Result):
    """`hall library reconcile`: hand edits found, actions applied, and Hallmark's leftovers repaired."""

    drift: tuple[Drift, ...]
    applied: tuple[Applied, ...]
    repaired: dict[str, Any]
