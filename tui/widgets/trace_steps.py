"""What one stream-json line shows in the trace: steps with a kind, a one-line summary and detail.

The stream helper's `hallmark.core.runner.trace.parse_line` is the parser; this module only
adapts its Steps for display. If that module is absent, a plain reading of the line's `type`
is shown (never an invented interpretation).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .. import optional

KIND_MARK = {
    "init": "▶ init",
    "text": "✎ text",
    "thinking": "… thinking",
    "tool_call": "→ call",
    "tool_result": "← result",
    "result": "■ result",
    "retry": "↻ retry",
    "system": "· system",
    "end": "⏹ end",
    "error": "✗ error",
    "unknown": "? line",
    "bad": "✗ not JSON",
}


@dataclass
class StepView:
    kind: str
    summary: str
    detail: str


def _parser():
    module = optional.load("hallmark.core.runner.trace")
    return getattr(module, "parse_line", None) if module is not None else None


_PARSE = _parser()


def _plain(record: dict[str, Any]) -> list[StepView]:
    kind = str(record.get("type", "unknown"))
    sub = record.get("subtype")
    if kind == "hall_run_end":
        failure = record.get("failure")
        summary = f"exit {record.get('exit_code')} after {record.get('duration_ms')} ms" + (f" · {failure}" if failure else "")
        return [StepView("end", summary, json.dumps(record, indent=2, ensure_ascii=False))]
    if kind == "system" and sub == "init":
        return [StepView("init", f"{record.get('model', '')} in {record.get('cwd', '')}",
                         json.dumps(record, indent=2, ensure_ascii=False))]
    if kind == "result":
        summary = f"{sub} · {record.get('num_turns')} turns · ${record.get('total_cost_usd', 0) or 0:.4f}"
        return [StepView("result", summary, json.dumps(record, indent=2, ensure_ascii=False))]
    label = f"{kind}/{sub}" if sub else kind
    text = json.dumps(record, ensure_ascii=False)
    return [StepView("unknown", f"{label} {text[:300]}", json.dumps(record, indent=2, ensure_ascii=False))]


def steps_for(raw: bytes) -> list[StepView]:
    try:
        record = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        text = raw.decode("utf-8", "replace")
        return [StepView("bad", text[:300], text)]
    if not isinstance(record, dict):
        return [StepView("bad", str(record)[:300], str(record))]
    if _PARSE is None:
        return _plain(record)
    try:
        parsed = _PARSE(record)
    except Exception as exc:  # noqa: BLE001 - a parser bug must not blank the trace; show the raw line
        return [StepView("error", f"could not parse: {exc}", json.dumps(record, indent=2, ensure_ascii=False))]
    out = []
    for step in parsed or []:
        kind = str(getattr(step, "kind", "unknown"))
        summary = str(getattr(step, "summary", "") or "")
        detail = getattr(step, "detail", None)
        if not detail:
            detail = json.dumps(getattr(step, "raw", record), indent=2, ensure_ascii=False, default=str)
        out.append(StepView(kind, summary, str(detail)))
    return out or _plain(record)
