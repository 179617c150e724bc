"""What a run's stream says about it as a whole: its usage and cost (from the result line), its
session, model and working directory, whether the runner's end line closed it, with what failure.
The runner, take-over, `hall trace`'s footer and the app's meter read it here. Stdlib.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .read import StreamReader, _whole_file, iter_records
from .texts import as_number


def usage_from_result(result: dict[str, Any] | None) -> dict[str, Any]:
    """Tokens of a run: `modelUsage` is the source of truth (it covers subagents), `usage` the fallback."""
    out: dict[str, Any] = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "cost_usd": None,
        "by_model": {},
        "source": None,
    }
    if not isinstance(result, dict):
        return out
    model_usage = result.get("modelUsage")
    if isinstance(model_usage, dict) and model_usage:
        cost = 0.0
        for model, u in model_usage.items():
            if not isinstance(u, dict):
                continue
            row = {
                "input_tokens": int(as_number(u.get("inputTokens")) or 0),
                "output_tokens": int(as_number(u.get("outputTokens")) or 0),
                "cache_read_tokens": int(as_number(u.get("cacheReadInputTokens")) or 0),
                "cache_write_tokens": int(as_number(u.get("cacheCreationInputTokens")) or 0),
                "cost_usd": as_number(u.get("costUSD")),
            }
            out["by_model"][str(model)] = row
            for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
                out[key] += row[key]
            cost += row["cost_usd"] or 0.0
        out["source"] = "modelUsage"
        total = as_number(result.get("total_cost_usd"))
        out["cost_usd"] = total if total is not None else cost
        return out
    usage = result.get("usage")
    if isinstance(usage, dict):
        out["input_tokens"] = int(as_number(usage.get("input_tokens")) or 0)
        out["output_tokens"] = int(as_number(usage.get("output_tokens")) or 0)
        out["cache_read_tokens"] = int(as_number(usage.get("cache_read_input_tokens")) or 0)
        out["cache_write_tokens"] = int(as_number(usage.get("cache_creation_input_tokens")) or 0)
        out["source"] = "usage"
    total = as_number(result.get("total_cost_usd"))
    out["cost_usd"] = total if total is not None else as_number(result.get("cost_usd"))
    return out


def run_info(path: str | os.PathLike[str], run: int | None = None) -> dict[str, Any]:
    """What a stream file says about one run (default: its last): session, model, result, usage, end.

    Keys: session_id, model, cwd, ended (a `hall_run_end` line closed it), exit_code, failure,
    has_result, result (its text), subtype, is_error, structured_output, cost_usd, num_turns,
    duration_ms, usage (see usage_from_result), runs (how many runs the file holds), result_line.
    """
    runs: dict[int, dict[str, Any]] = {}
    total = 0
    try:
        records = list(iter_records(path))
    except OSError:
        records = []
    if not records:
        whole = _whole_file(Path(path))
        if isinstance(whole, dict | list):
            reader = StreamReader()
            for record in whole if isinstance(whole, list) else [whole]:
                if isinstance(record, dict):
                    reader.line += 1
                    reader._place(record)
                    records.append((reader.run, record))
    for number, record in records:
        total = max(total, number)
        info = runs.setdefault(number, _empty_info())
        kind = record.get("type")
        if record.get("session_id") and not info["session_id"]:
            info["session_id"] = record.get("session_id")
        if kind == "system" and record.get("subtype") == "init":
            info["model"] = record.get("model") or info["model"]
            info["cwd"] = record.get("cwd") or info["cwd"]
            info["session_id"] = record.get("session_id") or info["session_id"]
            info["claude_code_version"] = record.get("claude_code_version")
        elif kind == "assistant" and not info["model"]:
            message = record.get("message")
            if isinstance(message, dict) and message.get("model"):
                info["model"] = message["model"]
        elif kind == "result":
            info["result_line"] = record
            info["has_result"] = True
            info["session_id"] = record.get("session_id") or info["session_id"]
        elif kind == "hall_run_end":
            info["ended"] = True
            info["exit_code"] = record.get("exit_code")
            info["failure"] = record.get("failure")
            info["end_duration_ms"] = record.get("duration_ms")
            info["cwd"] = record.get("cwd") or info["cwd"]
    chosen = runs.get(run if run is not None else total) if runs else None
    info = chosen or _empty_info()
    result = info.get("result_line")
    if isinstance(result, dict):
        usage = usage_from_result(result)
        info.update(
            {
                "result": result.get("result") if isinstance(result.get("result"), str) else None,
                "subtype": result.get("subtype"),
                "is_error": result.get("is_error") is True or str(result.get("subtype", "")).startswith("error"),
                "structured_output": result.get("structured_output"),
                "cost_usd": usage["cost_usd"],
                "num_turns": result.get("num_turns"),
                "duration_ms": result.get("duration_ms"),
                "usage": usage,
            }
        )
    else:
        info["usage"] = usage_from_result(None)
    if info.get("duration_ms") is None:
        info["duration_ms"] = info.get("end_duration_ms")
    info.pop("end_duration_ms", None)
    info["runs"] = total
    info["run"] = run if run is not None else total
    return info


def _empty_info() -> dict[str, Any]:
    return {
        "session_id": None,
        "model": None,
        "cwd": None,
        "claude_code_version": None,
        "ended": False,
        "exit_code": None,
        "failure": None,
        "has_result": False,
        "result": None,
        "subtype": None,
        "is_error": False,
        "structured_output": None,
        "cost_usd": None,
        "num_turns": None,
        "duration_ms": None,
        "end_duration_ms": None,
        "usage": None,
        "result_line": None,
    }
