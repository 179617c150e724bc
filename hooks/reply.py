"""Every answer a hook gives Claude Code, built in one place: the exact JSON each event expects.

Claude Code reads a hook's stdout as JSON (formats/claude-code.md):
- PreToolUse: `hookSpecificOutput.permissionDecision` ("deny" or "ask"; Hallmark never answers
  "allow", so what it does not deny falls through to the person's own rules) with its reason;
- SessionStart and UserPromptSubmit: `hookSpecificOutput.additionalContext`, text Claude reads;
- every other event Hallmark handles answers nothing (None: no output, exit 0).
A gate's reason is Hallmark's error body, `HallError(...).to_json()`: nobody formats it twice.
Stdlib only: the hook path imports this on every call.
"""

from __future__ import annotations

from .main import EVENT_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.gates.edit import Gate

DECISIONS = frozenset({"deny", "ask"})
CONTEXT_EVENTS = frozenset({"session-start", "user-prompt-submit"})


def decide(decision: str, reason: str) -> dict[str, Any]:
    """A PreToolUse permission decision: deny or ask, with the reason Claude (and the person) reads."""
    if decision not in DECISIONS:
        raise ValueError(f"a hook never answers {decision!r}: only deny or ask")
    return {
        "hookSpecificOutput": {
            "hookEventName": EVENT_NAMES["pre-tool-use"],
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def deny(reason: str) -> dict[str, Any]:
    return decide("deny", reason)


def ask(reason: str) -> dict[str, Any]:
    return decide("ask", reason)


def gate(found: Gate) -> dict[str, Any]:
    """A gate's answer: its decision, and its error body as the reason."""
    return decide(found.decision, found.reason())


def gate_failed(exc: BaseException) -> dict[str, Any]:
    """A gate that broke denies (fail closed), naming what broke and `hall doctor`."""
    from hallmark.core.errors import HallError

    detail = f"{type(exc).__name__}: {exc}"[:300]
    error = HallError(
        "GATE_FAILED", f"Hallmark's gate failed ({detail}); it denies until this is fixed.", ["hall doctor"]
    )
    return deny(error.to_json())


def context(event: str, text: str) -> dict[str, Any] | None:
    """Text added to Claude's context (SessionStart, UserPromptSubmit); None when there is none."""
    if event not in CONTEXT_EVENTS:
        raise ValueError(f"{event} carries no additionalContext")
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": text}}
