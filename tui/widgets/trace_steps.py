"""What one stream-json line shows in the trace: steps with a kind, a one-line summary and detail.

The stream helper's `hallmark.core.runner.trace.parse_line` is the parser; this module only
adapts its Steps for display.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hallmark.core.runner.trace import parse_line

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


def steps_for(raw: bytes) -> list[StepView]:
    try:
        record = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        text = raw.decode("utf-8", "replace")
        return [StepView("bad", text[:300], text)]
    if not isinstance(record, dict):
        return [StepView("bad", str(record)[:300], str(record))]
    try:
        parsed = parse_line(record)
    except Exception as exc:  # noqa: BLE001 - a parser bug must not blank the trace; show the raw line
        return [StepView("error", f"could not parse: {exc}", json.dumps(record, indent=2, ensure_ascii=False))]
    out = []
    for step in parsed:
        detail = step.detail or json.dumps(step.raw, indent=2, ensure_ascii=False, default=str)
        out.append(StepView(step.kind, step.summary, detail))
    return out
