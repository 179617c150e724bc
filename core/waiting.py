"""What each item waits on, in one word and one symbol (never colour alone), and what it cost.

working      a run or a check is in progress (a held run lock, or the loop's lease on the item)
waiting      waiting for you: an open question, an escalation, "ready?", or a hold
in_loop      queued or in checks/review/fixing with nothing for you to do
done_unseen  closed or hallmarked since you last looked (seen marks are per person)
idle         none of these (in development with nobody running, or done and seen)
"""

from __future__ import annotations

from typing import Any

from . import journal, seen, states
from .run_locks import live_runs

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


def lease_held(repo: Any, item_id: str) -> bool:
    """True when the review loop holds a lease on the item."""
    from .loop import leases

    try:
        return leases.current(repo, item_id) is not None
    except Exception:  # a broken lease file must not hide the item
        return False


def is_working(repo: Any, view: states.ItemView) -> bool:
    return bool(live_runs(repo, view.id)) or (not view.terminal and lease_held(repo, view.id))


def waiting_reason(view: states.ItemView) -> str | None:
    """Why the item waits for you, or None."""
    if view.open_questions:
        return f"question {view.open_questions[0]}"
    if view.state == states.ESCALATED:
        return "escalated"
    if view.state == states.AWAITING_YOU:
        return "ready?"
    if view.hold:
        return f"held ({view.hold})"
    return None


def classify(repo: Any, view: states.ItemView) -> tuple[str, str, str]:
    """(kind, word, symbol) for one item. Waiting-for-you beats working: a person is the bottleneck."""
    kind = _kind(repo, view)
    return kind, WORDS[kind], SYMBOLS[kind]


def label(repo: Any, view: states.ItemView) -> str:
    """The card's badge: symbol and word, e.g. "◆ waiting for you" (never colour alone)."""
    _, word, symbol = classify(repo, view)
    return f"{symbol} {word}"


def badges(repo: Any, views: list[states.ItemView] | None = None) -> dict[str, tuple[str, str, str]]:
    """item id -> (kind, word, symbol) for many items at once (a board's load step)."""
    return {v.id: classify(repo, v) for v in (views if views is not None else repo.index.items())}


def _kind(repo: Any, view: states.ItemView) -> str:
    if view.state == states.DROPPED:
        return IDLE
    if not view.terminal and waiting_reason(view):
        return WAITING
    if is_working(repo, view):
        return WORKING
    if view.state in states.IN_LOOP:
        return IN_LOOP
    if view.state in DONE_STATES and seen.is_unseen_since(repo, view.id, view.state_since):
        return DONE_UNSEEN
    return IDLE


def waiting_since(repo: Any, view: states.ItemView, questions: list[dict[str, Any]] | None = None) -> str:
    """When the item began waiting for you: its oldest open question, else when it entered its state."""
    times = [q.get("asked") or "" for q in (questions or []) if q.get("item") == view.id and q.get("qid") in view.open_questions]
    times = [t for t in times if t]
    if times:
        return min(times)
    return view.state_since or view.updated or view.created


def waiting_items(repo: Any) -> list[states.ItemView]:
    """Items waiting for you, oldest first (the order `n` walks)."""
    questions = repo.index.questions(open_only=True)
    found = [v for v in repo.index.items(include_terminal=False) if waiting_reason(v)]
    found.sort(key=lambda v: (waiting_since(repo, v, questions), v.id))
    return found


def next_waiting(repo: Any, after: str | None = None) -> states.ItemView | None:
    """The next waiting item after `after` in oldest-first order, wrapping round; None when none waits."""
    items = waiting_items(repo)
    if not items:
        return None
    ids = [v.id for v in items]
    if after in ids:
        return items[(ids.index(after) + 1) % len(items)]
    return items[0]


def mark_seen(repo: Any, item_id: str) -> str:
    return seen.mark_seen(repo, item_id)


def summary(repo: Any) -> dict[str, Any]:
    """Every item with its kind, word and symbol, and how many wait for you (the footer count)."""
    rows = []
    for view in repo.index.items():
        kind, word, symbol = classify(repo, view)
        rows.append({"item": view.id, "title": view.title, "state": view.state, "kind": kind, "word": word,
                     "symbol": symbol, "reason": waiting_reason(view) if kind == WAITING else None})
    waiting = [v.id for v in waiting_items(repo)]
    return {"items": rows, "waiting": waiting, "waiting_count": len(waiting)}


# -- cost per item ------------------------------------------------------------------------------

_TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _blank() -> dict[str, Any]:
    return {**{k: 0 for k in _TOKEN_KEYS}, "tokens": 0, "cost_usd": 0.0, "runs": 0}


def _add(row: dict[str, Any], event: dict[str, Any]) -> None:
    for key in _TOKEN_KEYS:
        try:
            row[key] += int(event.get(key, 0) or 0)
        except (TypeError, ValueError):
            pass
    row["tokens"] += states.usage_tokens(event)
    try:
        row["cost_usd"] = round(row["cost_usd"] + float(event.get("cost_usd", 0) or 0), 6)
    except (TypeError, ValueError):
        pass


def cost_breakdown(repo: Any, item_id: str) -> dict[str, Any]:
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
            entry.update(exit_code=event.get("exit_code"), duration_ms=event.get("duration_ms"),
                         failed=event.get("failed"))
        elif name == "usage":
            key = run or f"(usage at {event.get('t', '')})"
            entry = runs.setdefault(key, {"run": key, **_blank(), "runs": 1, "round": view.round,
                                          "started": event.get("t")})
            entry.setdefault("role", event.get("role"))
            entry["role"] = entry.get("role") or event.get("role")
            entry["model"] = entry.get("model") or event.get("model")
            entry["standin"] = bool(event.get("standin", False))
            _add(entry, event)
            per_round = rounds.setdefault(int(entry.get("round") or 0), {"round": int(entry.get("round") or 0), **_blank()})
            _add(per_round, event)
            _add(total, event)
    run_rows = list(runs.values())
    for rnd in rounds.values():
        rnd["runs"] = sum(1 for r in run_rows if int(r.get("round") or 0) == rnd["round"] and r["tokens"])
    total["runs"] = len(run_rows)
    return {"item": item_id, "runs": run_rows, "rounds": [rounds[k] for k in sorted(rounds)], "total": total,
            "next": [f"hall status {item_id}", f"hall trace {item_id}"]}
