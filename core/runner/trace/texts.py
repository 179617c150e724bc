"""The one-line texts both faces print from a run's steps, the same in `hall trace` and the app:
`Read: module_1.py → 60 lines (0.3 s, ~1.2k tok)`. What a tool call is about, what its result says,
the figures after a step. Split from parse.py (which turns a line into steps) so each holds one job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .codec import compact

if TYPE_CHECKING:
    from .parse import Step

SUMMARY_MAX = 200


def one_line(text: Any, limit: int = SUMMARY_MAX) -> str:
    """The first non-blank line of text, cut to limit characters (with an ellipsis when cut)."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    stripped = text.strip()
    if not stripped:
        return ""
    first, _, rest = stripped.partition("\n")
    first = first.strip()
    more = bool(rest.strip())
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + (" …" if more else "")


def as_number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (a bool is not a number here)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    return None


def seconds(ms: Any) -> str:
    """Milliseconds as "1.2 s" ("?" when it is not a number)."""
    value = as_number(ms)
    return "?" if value is None else f"{value / 1000:.1f} s"


def content_text(content: Any) -> str:
    """A tool_result's or message's content (string or blocks) as plain text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                kind = block.get("type")
                if kind == "text":
                    parts.append(str(block.get("text", "")))
                elif kind == "image":
                    parts.append("[image]")
                elif kind == "tool_reference":
                    parts.append(f"[tool {block.get('tool_name', '')}]")
                else:
                    parts.append(compact(block, 2000))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    if content is None:
        return ""
    return compact(content, 100_000)


_TOOL_ARG_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
    "skill",
    "subagent_type",
)


def tool_call_summary(name: str, tool_input: Any) -> str:
    """`Bash: git status`, `Read: src/a.py`, `Grep: TODO in src` — what the call is about, on one line."""
    if not isinstance(tool_input, dict):
        return f"{name}: {compact(tool_input, 120)}" if tool_input is not None else name
    if name in ("Task", "Agent"):
        who = tool_input.get("subagent_type") or "agent"
        return f"{name} ({who}): {one_line(tool_input.get('description') or tool_input.get('prompt'), 150)}"
    if name == "TodoWrite":
        todos = tool_input.get("todos")
        if isinstance(todos, list):
            active = [t.get("content") for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"]
            tail = f"; now: {one_line(active[0], 100)}" if active else ""
            return f"TodoWrite: {len(todos)} todo(s){tail}"
    if name in ("Grep", "Glob") and tool_input.get("pattern") is not None:
        where = tool_input.get("path")
        return f"{name}: {one_line(tool_input.get('pattern'), 120)}" + (f" in {where}" if where else "")
    if name == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        return f"MultiEdit: {tool_input.get('file_path', '?')} ({len(tool_input['edits'])} edits)"
    for key in _TOOL_ARG_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return f"{name}: {one_line(value, 180)}"
    return f"{name}: {compact(tool_input, 150)}" if tool_input else name


def result_outcome(tool: str | None, text: str, is_error: bool) -> str:
    """What a tool result says, in a few words: "60 lines" for a file read, else its first line
    (and how many lines there are), "ERROR: …" for a failure, "(no output)" for nothing."""
    stripped = text.strip()
    lines = stripped.count("\n") + 1 if stripped else 0
    if is_error:
        return "ERROR: " + (one_line(stripped, 160) or "(no output)")
    if not stripped:
        return "(no output)"
    if tool == "Read":
        return f"{lines} line{'s' if lines != 1 else ''}"
    first = one_line(stripped, 160)
    if lines > 1:
        first = first.removesuffix(" …") + f" … ({lines} lines)"
    return first


def estimate_tokens(chars: int) -> int:
    """Tokens from characters, the usual estimate (÷ 4): shown with a "~" wherever it appears."""
    return (chars + 3) // 4


def _tok(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def step_facts(step: Step) -> str:
    """The figures after a step, as `hall trace` and the app both show them: "0.3 s, ~1.2k tok"."""
    parts = []
    if step.elapsed_ms is not None:
        parts.append(f"{step.elapsed_ms / 1000:.1f} s")
    if step.chars is not None and step.chars:
        parts.append(f"~{_tok(estimate_tokens(step.chars))} tok")
    elif step.tokens:
        parts.append(f"{_tok(step.tokens)} tok out")
    return ", ".join(parts)


def step_text(step: Step) -> str:
    """One step on one line, the same in `hall trace` and the app:
    `Read: module_1.py → 60 lines (0.3 s, ~1.2k tok)`."""
    facts = step_facts(step)
    return f"{step.summary} ({facts})" if facts else step.summary
