"""Claude's stream-json, one decoded line at a time, as steps: init, text, thinking, tool calls,
tool results, result, the runner's end line. Total: a line that is not JSON, not an object, torn or
of an unknown type becomes an `error` or `unknown` step, never an exception. The one parser behind
`hall trace`, the app's trace and the runner (core/runner/trace/__init__.py lists the seams).
The one-line texts it writes live in texts.py, the JSON codec in codec.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .codec import compact, pretty
from .texts import (
    as_number,
    content_text,
    estimate_tokens,
    one_line,
    result_outcome,
    seconds,
    tool_call_summary,
)

KINDS = ("init", "text", "thinking", "tool_call", "tool_result", "result", "retry", "system", "end", "error", "unknown")


STEP_SCHEMA: dict[str, Any] = {
    "title": "hall trace step",
    "description": "One line of `hall trace --json`: one step of a headless run's stream-json.",
    "type": "object",
    "required": ["run", "line", "kind", "summary", "detail"],
    "properties": {
        "run": {
            "type": "integer",
            "minimum": 1,
            "description": "which run of the file (runs appended to one file are numbered)",
        },
        "line": {"type": "integer", "minimum": 1, "description": "the line of the file the step comes from"},
        "kind": {"enum": list(KINDS)},
        "summary": {"type": "string", "description": "one line"},
        "detail": {"type": "string", "description": "the full text: message text, tool input as JSON, tool output"},
        "tool": {"type": "string"},
        "tool_use_id": {"type": "string"},
        "is_error": {"const": True},
        "parent_tool_use_id": {"type": "string", "description": "set for a subagent's steps"},
        "tokens": {"type": "integer", "description": "an assistant step: its message's output tokens (from usage)"},
        "tokens_estimate": {
            "type": "integer",
            "description": "a tool result: its text's size in tokens, estimated as characters / 4",
        },
        "elapsed_ms": {
            "type": "integer",
            "description": "time since the previous line was written (needs the "
            "run's .times file, written by Hallmark's runner)",
        },
        "raw": {"description": "the stream line itself (with --raw)"},
    },
}


class Step:
    """One thing that happened in a run. `detail` (the full text) is built only when asked for."""

    __slots__ = (
        "_block",
        "_detail",
        "chars",
        "elapsed_ms",
        "is_error",
        "kind",
        "line",
        "parent",
        "raw",
        "run",
        "summary",
        "tokens",
        "tool",
        "tool_use_id",
    )

    def __init__(
        self,
        kind: str,
        summary: str,
        raw: Any = None,
        *,
        run: int = 1,
        line: int = 0,
        tool: str | None = None,
        tool_use_id: str | None = None,
        is_error: bool = False,
        parent: str | None = None,
        detail: str | None = None,
        block: Any = None,
    ) -> None:
        self.kind = kind
        self.run = run
        self.summary = summary
        self.raw = raw
        self.line = line
        self.tool = tool
        self.tool_use_id = tool_use_id
        self.is_error = is_error
        self.parent = parent
        self._detail = detail
        self._block = block
        self.tokens: int | None = None  # an assistant step: the output tokens of its message (its usage)
        self.chars: int | None = None  # a tool result: how much text it put back in the context
        self.elapsed_ms: int | None = None  # since the line before it was written (when the run's times are known)

    @property
    def detail(self) -> str:
        if self._detail is None:
            self._detail = _detail_of(self)
        return self._detail

    def to_dict(self, *, raw: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run": self.run,
            "line": self.line,
            "kind": self.kind,
            "summary": self.summary,
            "detail": self.detail,
        }
        if self.tool:
            data["tool"] = self.tool
        if self.tool_use_id:
            data["tool_use_id"] = self.tool_use_id
        if self.is_error:
            data["is_error"] = True
        if self.parent:
            data["parent_tool_use_id"] = self.parent
        if self.tokens is not None:
            data["tokens"] = self.tokens
        if self.chars is not None:
            data["tokens_estimate"] = estimate_tokens(self.chars)
        if self.elapsed_ms is not None:
            data["elapsed_ms"] = self.elapsed_ms
        if raw:
            data["raw"] = self.raw
        return data

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Step({self.kind!r}, run={self.run}, line={self.line}, {self.summary[:40]!r})"


class ToolCall(NamedTuple):
    """A tool call as a later tool_result names it: the tool and what it was asked."""

    name: str
    summary: str  # tool_call_summary: "Read: src/a.py"


def _call_of(tools: Mapping[str, Any] | None, use_id: str | None) -> ToolCall | None:
    found = tools.get(use_id) if tools is not None and use_id else None
    if isinstance(found, ToolCall):
        return found
    if isinstance(found, str) and found:  # a map of id -> name only
        return ToolCall(found, found)
    return None


# -- parse_line -------------------------------------------------------------------------


def parse_line(record: Any, *, run: int = 1, line: int = 0, tools: dict[str, Any] | None = None) -> list[Step]:
    """The steps of one decoded stream-json line. Never raises; garbage becomes an error/unknown step.

    `tools` (tool_use_id -> ToolCall), when given, names the call of each tool_result ("Read:
    a.py → 60 lines") and learns from each tool_use; readers that follow a whole file pass one dict
    for the whole file, and a reader that jumps about may pass a mapping that finds calls on demand.
    """
    try:
        return _parse(record, run, line, tools)
    except Exception as exc:  # noqa: BLE001 - total by contract: a parser bug shows as a step, not a crash
        return [Step("error", f"could not read this line: {type(exc).__name__}: {exc}", record, run=run, line=line)]


def _parse(record: Any, run: int, line: int, tools: dict[str, Any] | None) -> list[Step]:
    if not isinstance(record, dict):
        return [Step("error", f"not a JSON object: {compact(record, 120)}", record, run=run, line=line)]
    kind = record.get("type")
    if kind == "assistant":
        return _assistant(record, run, line, tools)
    if kind == "user":
        return _user(record, run, line, tools)
    if kind == "system":
        return [_system(record, run, line)]
    if kind == "result":
        return [_result(record, run, line)]
    if kind == "hall_run_end":
        return [_end(record, run, line)]
    if kind == "stream_event":
        event = record.get("event")
        label = event.get("type") if isinstance(event, dict) else None
        return [Step("system", f"stream_event {label or ''}".strip(), record, run=run, line=line)]
    label = kind if isinstance(kind, str) and kind else "no type"
    return [Step("unknown", f"{label}: {compact(record, 160)}", record, run=run, line=line)]


def _message(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    return message if isinstance(message, dict) else {}


def _parent(record: dict[str, Any]) -> str | None:
    parent = record.get("parent_tool_use_id")
    return parent if isinstance(parent, str) and parent else None


def _assistant(record: dict[str, Any], run: int, line: int, tools: dict[str, Any] | None) -> list[Step]:
    message = _message(record)
    content = message.get("content")
    parent = _parent(record)
    sub = "[subagent] " if parent else ""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list) or not content:
        error = record.get("error")
        if error:
            return [Step("error", f"assistant error: {one_line(error)}", record, run=run, line=line, parent=parent)]
        return [
            Step(
                "unknown",
                f"assistant message with no content {compact(message, 120)}",
                record,
                run=run,
                line=line,
                parent=parent,
            )
        ]
    steps: list[Step] = []
    for block in content:
        if not isinstance(block, dict):
            steps.append(
                Step(
                    "unknown",
                    f"assistant block {compact(block, 120)}",
                    record,
                    run=run,
                    line=line,
                    parent=parent,
                    block=block,
                )
            )
            continue
        btype = block.get("type")
        if btype == "text":
            text = block.get("text", "")
            steps.append(
                Step(
                    "text",
                    sub + one_line(text),
                    record,
                    run=run,
                    line=line,
                    parent=parent,
                    detail=text if isinstance(text, str) else str(text),
                )
            )
        elif btype in ("thinking", "redacted_thinking"):
            text = block.get("thinking", "") if btype == "thinking" else "[redacted thinking]"
            steps.append(
                Step(
                    "thinking",
                    sub + one_line(text),
                    record,
                    run=run,
                    line=line,
                    parent=parent,
                    detail=text if isinstance(text, str) else str(text),
                )
            )
        elif btype in ("tool_use", "server_tool_use", "mcp_tool_use"):
            name = str(block.get("name") or "tool")
            use_id = block.get("id") if isinstance(block.get("id"), str) else None
            summary = tool_call_summary(name, block.get("input"))
            if tools is not None and use_id:
                tools[use_id] = ToolCall(name, summary)
            steps.append(
                Step(
                    "tool_call",
                    sub + summary,
                    record,
                    run=run,
                    line=line,
                    tool=name,
                    tool_use_id=use_id,
                    parent=parent,
                    block=block,
                )
            )
        else:
            steps.append(
                Step(
                    "unknown",
                    f"{sub}assistant {btype or 'block'}: {compact(block, 120)}",
                    record,
                    run=run,
                    line=line,
                    parent=parent,
                    block=block,
                )
            )
    usage = message.get("usage")
    out = as_number(usage.get("output_tokens")) if isinstance(usage, dict) else None
    if out is not None:
        for step in steps:
            step.tokens = int(out)
    return steps


def _user(record: dict[str, Any], run: int, line: int, tools: Mapping[str, Any] | None) -> list[Step]:
    content = _message(record).get("content")
    parent = _parent(record)
    sub = "[subagent] " if parent else ""
    if isinstance(content, str):
        return [
            Step("text", f"{sub}user: {one_line(content)}", record, run=run, line=line, parent=parent, detail=content)
        ]
    if not isinstance(content, list) or not content:
        return [
            Step(
                "unknown",
                f"user message with no content {compact(record.get('message'), 120)}",
                record,
                run=run,
                line=line,
                parent=parent,
            )
        ]
    steps: list[Step] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            use_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
            call = _call_of(tools, use_id)
            name = call.name if call else None
            is_error = block.get("is_error") is True
            text = content_text(block.get("content"))
            outcome = result_outcome(name, text, is_error)
            said = f"{call.summary} → {outcome}" if call else f"tool result → {outcome}"
            step = Step(
                "tool_result",
                f"{sub}{said}",
                record,
                run=run,
                line=line,
                tool=name,
                tool_use_id=use_id,
                is_error=is_error,
                parent=parent,
                detail=text,
            )
            step.chars = len(text)
            steps.append(step)
        elif isinstance(block, dict) and block.get("type") == "text":
            text = str(block.get("text", ""))
            steps.append(
                Step("text", f"{sub}user: {one_line(text)}", record, run=run, line=line, parent=parent, detail=text)
            )
        else:
            steps.append(
                Step(
                    "unknown",
                    f"{sub}user block {compact(block, 120)}",
                    record,
                    run=run,
                    line=line,
                    parent=parent,
                    block=block,
                )
            )
    return steps


def _system(record: dict[str, Any], run: int, line: int) -> Step:
    sub = record.get("subtype")
    if sub == "init":
        tools = record.get("tools")
        parts = [str(record.get("model") or "model ?")]
        if record.get("cwd"):
            parts.append(f"in {record['cwd']}")
        if record.get("session_id"):
            parts.append(f"session {record['session_id']}")
        if isinstance(tools, list):
            parts.append(f"{len(tools)} tools")
        if record.get("claude_code_version"):
            parts.append(f"claude {record['claude_code_version']}")
        if record.get("plugin_errors"):
            parts.append(f"{len(record['plugin_errors'])} plugin error(s)")
        return Step("init", " · ".join(parts), record, run=run, line=line)
    if sub == "api_retry":
        attempt, most = record.get("attempt"), record.get("max_retries")
        status = record.get("error_status")
        why = one_line(record.get("error"), 120)
        text = f"API retry {attempt}/{most} in {record.get('retry_delay_ms')} ms"
        if status or why:
            text += ": " + " ".join(str(x) for x in (status, why) if x)
        return Step("retry", text, record, run=run, line=line, is_error=True)
    label = f"system/{sub}" if isinstance(sub, str) and sub else "system"
    extra = ""
    if sub == "compact_boundary" and isinstance(record.get("compact_metadata"), dict):
        extra = f" ({record['compact_metadata'].get('trigger', '')})"
    elif isinstance(record.get("hook_name"), str):
        extra = f" {record['hook_name']}"
    elif isinstance(record.get("status"), str):
        extra = f" {record['status']}"
    return Step("system", label + extra, record, run=run, line=line)


def _result(record: dict[str, Any], run: int, line: int) -> Step:
    sub = record.get("subtype") or "result"
    is_error = record.get("is_error") is True or (isinstance(sub, str) and sub.startswith("error"))
    parts = [str(sub) + (" (is_error)" if record.get("is_error") is True else "")]
    if record.get("num_turns") is not None:
        turns = record.get("num_turns")
        parts.append(f"{turns} turn" + ("" if turns == 1 else "s"))
    if record.get("duration_ms") is not None:
        parts.append(seconds(record.get("duration_ms")))
    cost = as_number(record.get("total_cost_usd"))
    if cost is None:
        cost = as_number(record.get("cost_usd"))
    if cost is not None:
        parts.append(f"${cost:.4f}")
    if record.get("structured_output") is not None:
        parts.append("structured output")
    text = record.get("result")
    if isinstance(text, str) and text.strip():
        parts.append(one_line(text, 120))
    elif record.get("errors"):
        parts.append(
            one_line(
                "; ".join(str(e) for e in record["errors"]) if isinstance(record["errors"], list) else record["errors"],
                120,
            )
        )
    return Step("result", " · ".join(parts), record, run=run, line=line, is_error=is_error)


def _end(record: dict[str, Any], run: int, line: int) -> Step:
    failure = record.get("failure")
    parts = [f"run ended: exit {record.get('exit_code')}", seconds(record.get("duration_ms"))]
    if record.get("role"):
        parts.insert(1, str(record["role"]))
    if failure:
        parts.append(f"failed: {one_line(failure, 150)}")
    return Step("end", " · ".join(parts), record, run=run, line=line, is_error=bool(failure))


def _detail_of(step: Step) -> str:
    """The full text of a step, built on demand (tool inputs and whole records are pretty JSON)."""
    raw = step.raw
    if step.kind == "tool_call" and isinstance(step._block, dict):
        return pretty(step._block.get("input"))
    if step.kind == "result" and isinstance(raw, dict):
        parts = []
        if isinstance(raw.get("result"), str):
            parts.append(raw["result"])
        if raw.get("structured_output") is not None:
            parts.append("structured_output:\n" + pretty(raw["structured_output"]))
        if raw.get("errors"):
            parts.append("errors:\n" + pretty(raw["errors"]))
        from .summary import usage_from_result

        usage = usage_from_result(raw)
        if usage["source"]:
            parts.append(
                f"usage ({usage['source']}): "
                + compact(
                    {k: usage[k] for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")},
                    400,
                )
            )
        if raw.get("permission_denials"):
            parts.append("permission denials:\n" + pretty(raw["permission_denials"]))
        return "\n\n".join(parts) if parts else pretty(raw)
    if step._block is not None:
        return pretty(step._block)
    if raw is None:
        return step.summary
    if isinstance(raw, str | bytes):
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return pretty(raw)
