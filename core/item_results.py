"""What the item verbs (core/items.py) answer: typed results the faces read by attribute.

`to_dict()` gives the JSON reply's keys in the CLI's order, without `next` (tui/cli/items.py adds
it, from `view` where it depends on the state). `hall schema <command>` describes each reply from
these classes (core/results.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from .delivery.view import DeliveryView
from .inbox_results import InboxEntry
from .results import Result, hidden
from .states import ItemView


class ItemResult(Result):
    """An item as a verb left it (new, propose-ready, pull-back, retry, ready)."""

    item: str
    title: str
    state: str
    branch: str
    worktree: str
    base: str
    sha: str
    round: int
    hold: str | None
    tokens: int
    cost_usd: float
    updated: str
    view: ItemView = hidden()

    @classmethod
    def fields_of(cls, view: ItemView) -> dict[str, Any]:
        return {
            "item": view.id,
            "title": view.title,
            "state": view.state,
            "branch": view.branch,
            "worktree": view.worktree,
            "base": view.base,
            "sha": view.sha,
            "round": view.round,
            "hold": view.hold or None,
            "tokens": view.tokens,
            "cost_usd": round(view.cost_usd, 4),
            "updated": view.updated,
            "view": view,
        }

    @classmethod
    def of(cls, view: ItemView) -> ItemResult:
        return cls(**cls.fields_of(view))


class NewOpened(ItemResult):
    """`hall new --open`: the item, then Claude Code's session in its worktree once it exited, or
    the error that kept it from starting (the item exists either way)."""

    opened: SessionOpened | dict[str, Any]  # the session, or the error reply: {"error": {code, message, next}}


class SessionPlan(Result):
    """What starts Claude Code on the item (nothing runs yet): the command, its directory, the
    environment Hallmark adds (the item, the actor), whether --yolo, and the sandbox decision."""

    item: str
    command: list[str]
    cwd: str
    env: dict[str, str]
    yolo: bool
    sandbox: dict[str, Any]


class SessionOpened(SessionPlan):
    """`hall new --open`'s session, after Claude Code exited: the plan it ran, and its exit code."""

    exit_code: int


class Adopted(ItemResult):
    """`hall adopt`: the item of the current branch; adopted is false when it was one already."""

    adopted: bool

    @classmethod
    def adopting(cls, view: ItemView, adopted: bool) -> Adopted:
        return cls(**cls.fields_of(view), adopted=adopted)


class AlreadyReady(ItemResult):
    """`hall ready` on an item already in the loop at the same commit: where it stands now."""

    already: Literal[True] = True

    @classmethod
    def again(cls, view: ItemView) -> AlreadyReady:
        return cls(**cls.fields_of(view))


class Dropped(ItemResult):
    """`hall drop`: the item, and whether its worktree went (or why it was kept)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"deleted_ignored"})

    worktree_removed: bool
    worktree_kept: str | None
    deleted_ignored: list[str] | None = None  # only with --delete-ignored: the person's ignored files that went
    stood_in_worktree: bool = hidden(default=False)  # the cwd is gone with it

    @classmethod
    def dropping(
        cls, view: ItemView, removed: bool, kept_why: str, stood_in: bool, deleted: tuple[str, ...] = ()
    ) -> Dropped:
        return cls(
            **cls.fields_of(view),
            worktree_removed=removed,
            worktree_kept=kept_why or None,
            deleted_ignored=list(deleted) or None,
            stood_in_worktree=stood_in,
        )


class ItemDetail(ItemResult):
    """`hall status <id>`: one item in full."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"delivery"})

    open_questions: list[str]
    rejects: int
    check_failures: int
    hold_reason: str | None
    pr: str | None
    created: str
    state_since: str
    summary: str | None
    events: int
    # the Delivery Office's view of the item's PR (core/delivery/view.py); None without a PR
    delivery: DeliveryView | None = None

    @classmethod
    def detail(cls, view: ItemView, delivery: DeliveryView | None = None) -> ItemDetail:
        return cls(
            **cls.fields_of(view),
            open_questions=view.open_questions,
            rejects=view.rejects,
            check_failures=view.check_failures,
            hold_reason=view.hold_reason or None,
            pr=view.pr or None,
            created=view.created,
            state_since=view.state_since,
            summary=view.summary or None,
            events=view.events,
            delivery=delivery,
        )


class StatusAll(Result):
    """`hall status`: every item, counted by state (damaged journals shown, never hidden)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"damaged", "warnings"})

    items: tuple[ItemResult, ...]
    counts: dict[str, int]
    by_state: dict[str, list[str]]
    damaged: list[dict[str, Any]] | None = None
    warnings: list[str] | None = None


class ItemLog(Result):
    """`hall log`: an item's journal (or the repository's, when item is null)."""

    item: str | None
    events: list[dict[str, Any]]


class Asked(Result):
    """`hall ask`: the question as recorded (its text redacted), with its id."""

    qid: str
    item: str | None
    question: str
    options: list[str]
    default: str | None
    wait: str | None


class AskedAndWaited(Asked):
    """`hall ask --block`: the question, then its answer when one came (a person's, or the default
    when the wait ran out: defaulted) or none (answer null: the wait ran out with no default);
    delivered_here when this wait, not the daemon's resume, delivered it."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"delivered_here"})

    answer: str | None
    answered_by: str | None
    defaulted: bool
    delivered_here: bool | None = None


class Answered(Result):
    """`hall answer`: the answer as recorded (an option letter becomes its option)."""

    qid: str
    item: str | None
    answer: str


class InboxReport(Result):
    """`hall inbox`: what waits for you, oldest first, numbered (n) for `--dismiss N`. Each entry
    has its kind, item, since, text, key, fingerprint and its own next steps; a question's also its
    qid, options and default."""

    entries: tuple[InboxEntry, ...]
    count: int


class ItemWaits(Result):
    """One item's badge: what it waits on (kind, word, symbol) and, when it waits for you, why."""

    item: str
    title: str
    state: str
    kind: str
    word: str
    symbol: str
    reason: str | None


class WaitingSummary(Result):
    """`hall waiting`: every item's badge, and the items waiting for you, oldest first."""

    items: tuple[ItemWaits, ...]
    waiting: list[str]
    waiting_count: int
