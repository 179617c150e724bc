"""Words the app shows for waiting states, costs and models: one place, so every card agrees.

A state is never shown by colour alone: each badge is a symbol and a word from core.waiting.
A stand-in run is always named as such: no model ran, whatever its stream says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hallmark.core.run_results import UsageRow

# Narrow places (the floor plan's room lists) use a short word; the symbol is the same.
SHORT_WORDS = {"working": "working", "waiting": "waiting", "in_loop": "in loop", "done_unseen": "unseen", "idle": ""}
STANDIN_MODEL = "hallmark-standin"
STANDIN_NOTE = "stand-in, no model ran"


def badge(found: tuple[str, str, str] | None, reason: str | None = None) -> str:
    """(kind, word, symbol) from waiting.classify -> "◆ waiting for you: ready?"."""
    if not found:
        return ""
    kind, word, symbol = found
    text = f"{symbol} {word}"
    return f"{text}: {reason}" if reason and kind == "waiting" else text


def short_badge(found: tuple[str, str, str] | None) -> str:
    """The floor plan's badge: "◆ waiting"; idle items get none."""
    if not found or not SHORT_WORDS.get(found[0]):
        return ""
    return f"{found[2]} {SHORT_WORDS[found[0]]}"


def tokens(n: float | None) -> str:
    if n is None:
        return "—"
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return str(int(n))


def cost(tokens_used: float, cost_usd: float) -> str:
    """A card's cost line: "67.4k tok $0.00" (list price)."""
    return f"{tokens(tokens_used)} tok ${cost_usd:.2f}"


def model_label(model: str | None, standin: bool = False) -> str:
    """The model a run used; a stand-in run says no model ran."""
    name = model or "unknown"
    if standin or name == STANDIN_MODEL:
        return f"{name} ({STANDIN_NOTE})"
    return name


def usage_key(group: str, row: UsageRow) -> str:
    """A usage row's label, marking stand-in runs (usage.report counts them in standin_runs)."""
    key, standin, runs = row.key, row.standin_runs, row.runs
    if not standin and not (group == "model" and key == STANDIN_MODEL):
        return key
    if group == "model":
        if key == STANDIN_MODEL or standin >= runs:  # the stand-in's own name says no model ran
            return model_label(key, True)
        return f"{key} ({standin} of {runs} stand-in)"
    return f"{key} (stand-in)" if standin >= runs else f"{key} ({standin} of {runs} stand-in)"
