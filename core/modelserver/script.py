"""The model's script: per role, a queue of runs; per run, the turns the model answers in order.

A turn is what the model says to one request: text, tool calls (Bash, Edit, Write, Read, or the
`StructuredOutput` tool Claude Code offers when `--json-schema` is given), the usage figures the
API reports, or an error answer (429 with rate-limit headers, 529 overloaded, 500). Scripts are
plain JSON so a test, the demo or a person can write one:

    {"roles": {"review": [[{"structured": {...}, "usage": {"output_tokens": 120}}]],
               "fix": [[{"tool": "Edit", "input": {...}}, {"tool": "Bash", "input": {...}}, {"text": "done"}]]}}

Which role a request belongs to is read from the system prompt Claude Code sends (the agent's own
words), so one server answers the reviewer, the fixer and an interactive session at once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

STRUCTURED_TOOL = "StructuredOutput"
DEFAULT_USAGE = {
    "input_tokens": 100,
    "output_tokens": 20,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
# words each Hallmark agent's definition says of itself: the system prompt of its runs carries them
ROLE_MARKERS = (
    ("review", "principal engineer of this repository's Assay Office"),
    ("fix", "You are Hallmark's fixer"),
    ("librarian", "You are Hallmark's librarian"),
    ("intake", "You are Hallmark's intake"),
)


@dataclass
class Turn:
    """One answer of the model."""

    text: str = ""
    tools: list[dict[str, Any]] = field(default_factory=list)  # [{"name": "Bash", "input": {...}}]
    usage: dict[str, int] = field(default_factory=dict)
    error: int | None = None  # an HTTP status: the API refuses this request
    error_message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    repeat: int = 1  # an error answered this many times in a row (Claude Code retries some)
    model: str = ""

    @classmethod
    def from_json(cls, data: Any) -> Turn:
        if isinstance(data, str):
            return cls(text=data)
        if not isinstance(data, dict):
            raise ValueError(f"a turn is a JSON object or a string, not {type(data).__name__}")
        known = {
            "text",
            "tool",
            "input",
            "tools",
            "structured",
            "usage",
            "error",
            "message",
            "headers",
            "repeat",
            "model",
        }
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"a turn has unknown keys: {', '.join(sorted(unknown))}")
        tools = [dict(t) for t in data.get("tools", [])]
        if "tool" in data:
            tools.append({"name": str(data["tool"]), "input": data.get("input", {})})
        if "structured" in data:
            tools.append({"name": STRUCTURED_TOOL, "input": data["structured"]})
        for tool in tools:
            if not isinstance(tool.get("name"), str) or not isinstance(tool.get("input", {}), dict):
                raise ValueError(f"a tool call needs a name and an input object: {tool!r}")
        error = data.get("error")
        if error is not None and int(error) not in ERROR_TYPES:
            raise ValueError(f"error must be one of {sorted(ERROR_TYPES)}, not {error!r}")
        return cls(
            text=str(data.get("text", "")),
            tools=tools,
            usage=dict(data.get("usage", {})),
            error=int(error) if error is not None else None,
            error_message=str(data.get("message", "")),
            headers={str(k): str(v) for k, v in (data.get("headers") or {}).items()},
            repeat=max(1, int(data.get("repeat", 1))),
            model=str(data.get("model", "")),
        )

    def full_usage(self) -> dict[str, int]:
        return {**DEFAULT_USAGE, **{k: int(v) for k, v in self.usage.items()}}


def classify_role(body: dict[str, Any]) -> str:
    """The Hallmark role of a request, from the system prompt; `session` for anything else."""
    system = system_text(body)
    for role, marker in ROLE_MARKERS:
        if marker in system:
            return role
    return "session"


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return ""


def conversation_key(body: dict[str, Any], headers: dict[str, str]) -> str:
    """Which run a request belongs to: Claude Code's session header, else the first user message."""
    session = headers.get("x-claude-code-session-id", "")
    if session:
        return "session:" + session
    metadata = body.get("metadata")
    if isinstance(metadata, dict) and metadata.get("user_id"):
        return "user:" + str(metadata["user_id"])
    messages = body.get("messages") or []
    first = messages[0] if messages else {}
    return "first:" + hashlib.sha256(json.dumps(first, sort_keys=True).encode()).hexdigest()[:16]


class Script:
    """Per role, the runs still to come; per conversation, the run it is in and how far it got."""

    def __init__(
        self,
        roles: dict[str, list[list[Turn]]] | None = None,
        *,
        classify: Callable[[dict[str, Any]], str] = classify_role,
        default_text: str = "Done.",
    ) -> None:
        self._pending: dict[str, list[list[Turn]]] = {
            r: [list(run) for run in runs] for r, runs in (roles or {}).items()
        }
        self._active: dict[str, tuple[list[Turn], list[int]]] = {}
        self._lock = threading.Lock()
        self.classify = classify
        self.default_text = default_text

    @classmethod
    def from_json(cls, data: Any, **kw: Any) -> Script:
        if not isinstance(data, dict) or not isinstance(data.get("roles", {}), dict):
            raise ValueError('a script is {"roles": {"<role>": [[turn, …], …]}}')
        roles: dict[str, list[list[Turn]]] = {}
        for role, runs in data.get("roles", {}).items():
            if not isinstance(runs, list) or not all(isinstance(run, list) for run in runs):
                raise ValueError(f"roles.{role} is a list of runs, each a list of turns")
            roles[role] = [[Turn.from_json(t) for t in run] for run in runs]
        return cls(roles, **kw)

    def add(self, role: str, *runs: list[Turn | dict[str, Any] | str]) -> None:
        """Queue more runs for a role (a test may script as it goes)."""
        with self._lock:
            self._pending.setdefault(role, []).extend(
                [t if isinstance(t, Turn) else Turn.from_json(t) for t in run] for run in runs
            )

    def remaining(self, role: str) -> int:
        with self._lock:
            return len(self._pending.get(role, []))

    def next_turn(self, role: str, key: str) -> Turn | None:
        """The next answer in this conversation's run; None when the script has nothing for it."""
        with self._lock:
            if key not in self._active:
                queue = self._pending.get(role) or []
                self._active[key] = (queue.pop(0) if queue else [], [0, 0])
            turns, where = self._active[key]
            index, answered = where
            if index >= len(turns):
                return None
            turn = turns[index]
            where[1] = answered + 1
            if where[1] >= turn.repeat:
                where[0], where[1] = index + 1, 0
            return turn
