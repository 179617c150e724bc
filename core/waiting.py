"""What waits for you, and what each item waits on, in one word and one symbol (never colour alone).

"Waiting for you" has one answer, `waiting_for_you`: the inbox entries still shown (open questions,
"ready?", escalations, holds, and the repo-level entries such as a stopped daemon; an entry you
dismissed stays hidden until it changes). The footer's count, the floor's Your Office, the inbox,
every card's badge, `n`, the SessionStart hook and the CLI all read it.

Each item's kind:

working      a run or a check is in progress (a held run lock, or the loop's lease on the item)
waiting      waiting for you: it has an entry in your inbox
in_loop      queued or in checks/review/fixing with nothing for you to do
done_unseen  closed or hallmarked since you last looked (seen marks are per person)
idle         none of these (in development with nobody running, or done and seen)
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import inbox, journal, seen, states
from .inbox_results import InboxEntry, QuestionEntry
from .runs import has_live_run

if TYPE_CHECKING:
    from .item_results import WaitingSummary
    from .run_results import CostBreakdown

WORKING = "working"
WAITING = "waiting"
IN_LOOP = "in_loop"
DONE_UNSEEN = "done_unseen"
IDLE = "idle"

WORDS: dict[str, str] = {
    WORKING: "working",
    WAITING: "waiting for you",
    IN_LOOP: "in the loop",
    DONE_UNSEEN: "done, unseen",
    IDLE: "idle",
}
SYMBOLS: dict[str, str] = {
    WORKING: "↻",
    WAITING: "◆",
    IN_LOOP: "…",
    DONE_UNSEEN: "★",
    IDLE: "·",
}
DONE_STATES = frozenset({states.CLOSED, states.HALLMARKED})


@dataclass(frozen=True)
class WaitingFor:
    """Everything waiting for you at one moment."""

    entries: tuple[InboxEntry, ...] = ()  # the inbox entries shown, oldest first
    items: tuple[str, ...] = ()  # the items they are about, in the order `n` walks (oldest first)
    reasons: Mapping[str, str] = field(default_factory=dict)  # item -> why it waits (its oldest entry)

    @property
    def count(self) -> int:
        """How many things wait for you: the footer's "◆ N waiting", the inbox, the office, the hook."""
        return len(self.entries)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self.reasons


def entry_reason(entry: InboxEntry) -> str:
    """Why an inbox entry waits for you, in a few words ("question Q-1", "held (checks)")."""
    if isinstance(entry, QuestionEntry):
        return f"question {entry.qid}".strip()
    if entry.key.startswith("hold:"):
        return f"held ({entry.kind})"
    return entry.kind


def waiting_for_you(repo: Any, views: list[states.ItemView] | None = None) -> WaitingFor:
    """The one answer to "what waits for you?" (core.inbox's entries, dismissals applied)."""
    entries = tuple(inbox.visible(repo, views=views))
    order: list[str] = []
    reasons: dict[str, str] = {}
    for entry in entries:
        item = entry.item
        if item and item not in reasons:
            reasons[item] = entry_reason(entry)
            order.append(item)
    return WaitingFor(entries, tuple(order), reasons)


def lease_held(repo: Any, item_id: str) -> bool:
    """True when the review loop holds a lease on the item."""
    from .loop import leases

    try:
        return leases.current(repo, item_id) is not None
    except Exception:  # noqa: BLE001 - a broken lease file must not hide the item
        return False


def is_working(repo: Any, view: states.ItemView) -> bool:
    return has_live_run(repo.paths, view.id) or (not view.terminal and lease_held(repo, view.id))


def working_ids(repo: Any, views: list[states.ItemView]) -> set[str]:
    """The items among views (not finished ones) with a live run or a lease, found with one listing
    of the leases folder and one of each runs folder that exists: a board of a thousand items must
    not build a thousand paths twice over."""
    import os

    wanted = {v.id for v in views if not v.terminal}
    if not wanted:
        return set()
    found: set[str] = set()
    leases_dir = os.path.join(str(repo.state_dir), "leases")
    try:
        leased = [n[:-5] for n in os.listdir(leases_dir) if n.endswith(".json") and n[:-5] in wanted]
    except OSError:
        leased = []
    for item_id in leased:
        if lease_held(repo, item_id):
            found.add(item_id)
    found.update(item_id for item_id in wanted - found if has_live_run(repo.paths, item_id))
    return found


def classify(repo: Any, view: states.ItemView, waiting: WaitingFor | None = None) -> tuple[str, str, str]:
    """(kind, word, symbol) for one item. Waiting-for-you beats working: a person is the bottleneck."""
    waiting = waiting_for_you(repo) if waiting is None else waiting
    kind = _kind(repo, view, waiting, seen.seen_marks(repo))
    return kind, WORDS[kind], SYMBOLS[kind]


def label(repo: Any, view: states.ItemView) -> str:
    """The card's badge: symbol and word, e.g. "◆ waiting for you" (never colour alone)."""
    _, word, symbol = classify(repo, view)
    return f"{symbol} {word}"


def badges(
    repo: Any, views: list[states.ItemView] | None = None, waiting: WaitingFor | None = None
) -> dict[str, tuple[str, str, str]]:
    """item id -> (kind, word, symbol) for many items at once (a screen's load step): what waits
    for you and your seen marks are read once, not once per item."""
    views = views if views is not None else repo.index.items()
    waiting = waiting_for_you(repo) if waiting is None else waiting
    marks = seen.seen_marks(repo)
    working = working_ids(repo, [v for v in views if v.id not in waiting])
    out = {}
    for view in views:
        kind = _kind(repo, view, waiting, marks, working)
        out[view.id] = (kind, WORDS[kind], SYMBOLS[kind])
    return out


def _kind(
    repo: Any, view: states.ItemView, waiting: WaitingFor, marks: Mapping[str, str], working: set[str] | None = None
) -> str:
    if view.state == states.DROPPED:
        return IDLE
    if view.id in waiting:
        return WAITING
    if not view.terminal and (view.id in working if working is not None else is_working(repo, view)):
        return WORKING
    if view.state in states.IN_LOOP:
        return IN_LOOP
    if view.state in DONE_STATES:
        last = marks.get(view.id)
        if last is None or (bool(view.state_since) and view.state_since > last):
            return DONE_UNSEEN
    return IDLE


def waiting_items(repo: Any, waiting: WaitingFor | None = None) -> list[states.ItemView]:
    """Items waiting for you, oldest first (the order `n` walks)."""
    waiting = waiting_for_you(repo) if waiting is None else waiting
    by_id = {v.id: v for v in repo.index.items()}
    return [by_id[i] for i in waiting.items if i in by_id]


def mark_seen(repo: Any, item_id: str) -> str:
    return seen.mark_seen(repo, item_id)


def summary(repo: Any) -> WaitingSummary:
    """Every item with its kind, word and symbol, and how many things wait for you (the footer count)."""
    from .item_results import ItemWaits, WaitingSummary

    waiting = waiting_for_you(repo)
    views = repo.index.items()
    found = badges(repo, views, waiting)
    rows = []
    for view in views:
        kind, word, symbol = found[view.id]
        rows.append(
            ItemWaits(
                item=view.id,
                title=view.title,
                state=view.state,
                kind=kind,
                word=word,
                symbol=symbol,
                reason=waiting.reasons.get(view.id) if kind == WAITING else None,
            )
        )
    return WaitingSummary(items=tuple(rows), waiting=list(waiting.items), waiting_count=waiting.count)


# -- cost per item ------------------------------------------------------------------------------

_TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _blank() -> dict[str, Any]:
    return {**{k: 0 for k in _TOKEN_KEYS}, "tokens": 0, "cost_usd": 0.0, "runs": 0}


def _add(row: dict[str, Any], event: dict[str, Any]) -> None:
    for key in _TOKEN_KEYS:
        with contextlib.suppress(TypeError, ValueError):
            row[key] += int(event.get(key, 0) or 0)
    row["tokens"] += states.usage_tokens(event)
    with contextlib.suppress(TypeError, ValueError):
        row["cost_usd"] = round(row["cost_usd"] + float(event.get("cost_usd", 0) or 0), 6)


def cost_breakdown(repo: Any, item_id: str) -> CostBreakdown:
    """Tokens and list-price cost of an item per run, per round and in total, from its `usage` events.

    The round of a usage event is the item's round when it was recorded (the fold walked in order).
    """
    events = journal.read(repo.paths.item_journal(item_id)).events
    view = states.ItemView(id=item_id)
    runs: dict[str, dict[str, Any]] = {}
    rounds: dict[int, dict[str, Any]] = {}
    total = _blank()
    for event in events:
        states.apply(view, event)
        name = event.get("event")
        run = str(event.get("run") or "")
        if name == "run_started" and run:
            entry = runs.setdefault(run, {"run": run, **_blank(), "runs": 1})
            entry.update(role=event.get("role"), model=event.get("model"), started=event.get("t"), round=view.round)
        elif name == "run_ended" and run:
            entry = runs.setdefault(run, {"run": run, **_blank(), "runs": 1, "round": view.round})
            entry.update(
                exit_code=event.get("exit_code"), duration_ms=event.get("duration_ms"), failed=event.get("failed")
            )
        elif name == "usage":
            key = run or f"(usage at {event.get('t', '')})"
            entry = runs.setdefault(
                key, {"run": key, **_blank(), "runs": 1, "round": view.round, "started": event.get("t")}
            )
            entry.setdefault("role", event.get("role"))
            entry["role"] = entry.get("role") or event.get("role")
            entry["model"] = entry.get("model") or event.get("model")
            entry["standin"] = bool(event.get("standin", False))
            _add(entry, event)
            per_round = rounds.setdefault(
                int(entry.get("round") or 0), {"round": int(entry.get("round") or 0), **_blank()}
            )
            _add(per_round, event)
            _add(total, event)
    run_rows = list(runs.values())
    for rnd in rounds.values():
        rnd["runs"] = sum(1 for r in run_rows if int(r.get("round") or 0) == rnd["round"] and r["tokens"])
    total["runs"] = len(run_rows)
    from .run_results import CostBreakdown, RoundUsage, UsageTotals

    return CostBreakdown(
        item=item_id,
        runs=run_rows,
        rounds=tuple(RoundUsage(**rounds[k]) for k in sorted(rounds)),
        total=UsageTotals(**total),
    )
