"""Claude's stream-json, read back as steps: init, text, thinking, tool calls, tool results, result.

One parser for every reader: `hall trace`, the runner (result line, structured_output, session,
usage), the app's live trace (core/runner/trace_lines.py parses a line at a time) and take-over.
Several runs appended to one file are numbered (a new `system/init`, or anything after a run's
`result`/`hall_run_end`, starts the next run). Split along its data seams:

- parse.py: one decoded line -> steps (Step, parse_line);
- texts.py: the one-line texts both faces print from steps (step_text, tool_call_summary, ...);
- codec.py: JSON in and out, orjson when installed (loads, dumps_line);
- read.py: a file in order -> steps or records (StreamReader, iter_steps, iter_records, .times);
- summary.py: a run as a whole (usage_from_result, run_info).

Callers import this package (`from hallmark.core.runner import trace`) and use the names below.
"""

from __future__ import annotations

from .codec import dumps_line, loads
from .parse import KINDS, STEP_SCHEMA, Step, ToolCall, parse_line
from .read import (
    WHOLE_FILE_MAX,
    StreamReader,
    elapsed_ms,
    iter_records,
    iter_steps,
    read_steps,
    read_times,
    times_path,
)
from .summary import run_info, usage_from_result
from .texts import (
    SUMMARY_MAX,
    content_text,
    estimate_tokens,
    one_line,
    result_outcome,
    step_facts,
    step_text,
    tool_call_summary,
)

__all__ = [
    "KINDS",
    "STEP_SCHEMA",
    "SUMMARY_MAX",
    "WHOLE_FILE_MAX",
    "Step",
    "StreamReader",
    "ToolCall",
    "content_text",
    "dumps_line",
    "elapsed_ms",
    "estimate_tokens",
    "iter_records",
    "iter_steps",
    "loads",
    "one_line",
    "parse_line",
    "read_steps",
    "read_times",
    "result_outcome",
    "run_info",
    "step_facts",
    "step_text",
    "times_path",
    "tool_call_summary",
    "usage_from_result",
]
