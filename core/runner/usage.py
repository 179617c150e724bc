"""A headless run's token usage, recorded once per run.

`modelUsage` on the result line is the source of truth (it covers subagents); the top-level
`usage` is the fallback; a run with no result line (killed at its timeout) is summed from its
assistant lines, one response per message id. Message ids another path already counted (the Stop
hook of a session this run resumed) are taken off (core/usage_ledger.py). Stdlib only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hallmark.core.loop import pricing

from . import limits

STANDIN_MODEL = "hallmark-standin"


def usage_rows(result: dict[str, Any] | None, fallback_model: str, *, resumed: bool = False) -> list[dict[str, Any]]:
    """Per-model token counts: `modelUsage` is the source of truth, `usage` the fallback. After
    `--resume` the CLI's `modelUsage` and `total_cost_usd` are the whole session's (the turns before
    were counted when they happened): the run's own top-level `usage` is read, priced at list."""
    if not result:
        return []
    rows = []
    model_usage = None if resumed else result.get("modelUsage")
    if isinstance(model_usage, dict) and model_usage:
        for model, u in model_usage.items():
            if not isinstance(u, dict):
                continue
            rows.append(
                {
                    "model": model,
                    "input_tokens": _int(u.get("inputTokens")),
                    "output_tokens": _int(u.get("outputTokens")),
                    "cache_read_tokens": _int(u.get("cacheReadInputTokens")),
                    "cache_write_tokens": _int(u.get("cacheCreationInputTokens")),
                    "reported_cost_usd": _float(u.get("costUSD")),
                }
            )
    else:
        u = result.get("usage") or {}
        if isinstance(u, dict):
            rows.append(
                {
                    "model": fallback_model or "unknown",
                    "input_tokens": _int(u.get("input_tokens")),
                    "output_tokens": _int(u.get("output_tokens")),
                    "cache_read_tokens": _int(u.get("cache_read_input_tokens")),
                    "cache_write_tokens": _int(u.get("cache_creation_input_tokens")),
                    "reported_cost_usd": 0.0 if resumed else _float(result.get("total_cost_usd")),
                }
            )
    return _priced(rows)


def _priced(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        row["cost_usd"] = pricing.cost(
            row["model"],
            row["input_tokens"],
            row["output_tokens"],
            row["cache_read_tokens"],
            row["cache_write_tokens"],
            reported=row["reported_cost_usd"],
        )
        row["standin"] = row["model"] == STANDIN_MODEL
    return rows


TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def run_usage(repo: Any, tracker: Any, *, resumed: bool = False) -> list[dict[str, Any]]:
    """The run's usage, recorded once: `modelUsage` from the result line (a resumed run: its own
    `usage`, see usage_rows), else (a killed run) the assistant lines one response per message id;
    less what another path (the Stop hook of a session this run resumed) already counted for the
    same message ids (core/usage_ledger.py)."""
    rows = usage_rows(tracker.result, tracker.model, resumed=resumed)
    if not tracker.result:
        rows = _priced(limits.fallback_rows(tracker.facts, tracker.model))
    state_dir = getattr(repo, "state_dir", None)
    responses = tracker.facts.responses
    if not state_dir or not tracker.session_id or not responses:
        return rows
    from hallmark.core import usage_ledger

    figures = {mid: {f: int(r.get(f, 0) or 0) for f in TOKEN_FIELDS} for mid, r in responses.items()}
    new, _first = usage_ledger.claim(Path(state_dir), tracker.session_id, figures)
    counted_before: dict[str, dict[str, int]] = {}
    for mid, seen in figures.items():
        model = str(responses[mid].get("model") or tracker.model or "unknown")
        fresh = new.get(mid, dict.fromkeys(TOKEN_FIELDS, 0))
        before = counted_before.setdefault(model, dict.fromkeys(TOKEN_FIELDS, 0))
        for f in TOKEN_FIELDS:
            before[f] += seen[f] - fresh[f]
    if not any(any(v.values()) for v in counted_before.values()):
        return rows
    kept = []
    for row in rows:
        if len(rows) == 1:  # one model: whatever was counted before was counted for it
            before = {f: sum(b[f] for b in counted_before.values()) for f in TOKEN_FIELDS}
        else:
            before = counted_before.get(row["model"], {})
        for f in TOKEN_FIELDS:
            row[f] = max(0, int(row[f]) - int(before.get(f, 0)))
        if any(row[f] for f in TOKEN_FIELDS):
            row["reported_cost_usd"] = 0.0  # part of the run was counted elsewhere: price the rest
            kept.append(row)
    return _priced(kept)


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0
