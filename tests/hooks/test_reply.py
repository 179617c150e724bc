"""hooks/reply.py builds every answer a hook gives, and a gate's reason is HallError's body."""

from __future__ import annotations

import json

import pytest
from hallmark.core.errors import HallError
from hallmark.core.gates.edit import Gate
from hallmark.hooks import reply
from hallmark.hooks.main import EVENT_NAMES, run


def test_each_event_gets_its_exact_shape():
    assert reply.deny("no") == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert reply.ask("sure?")["hookSpecificOutput"]["permissionDecision"] == "ask"
    for event in ("session-start", "user-prompt-submit"):
        assert reply.context(event, "text") == {
            "hookSpecificOutput": {"hookEventName": EVENT_NAMES[event], "additionalContext": "text"}
        }
        assert reply.context(event, "") is None  # nothing to say: no output at all


def test_a_hook_never_answers_allow_and_context_goes_only_where_claude_reads_it():
    for decision in ("allow", "", "Deny"):
        with pytest.raises(ValueError):
            reply.decide(decision, "x")
    for event in ("pre-tool-use", "stop", "notification", "post-tool-use"):
        with pytest.raises(ValueError):
            reply.context(event, "x")


def test_the_gate_reason_is_the_error_body_nobody_formats_twice():
    gate = Gate("deny", "edits outside an item's worktree are denied", ['hall new --title "…"'])
    answer = reply.gate(gate)
    body = json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])
    assert body == HallError("GATE_DENIED", gate.message, gate.next).to_dict()
    failed = json.loads(reply.gate_failed(RuntimeError("boom"))["hookSpecificOutput"]["permissionDecisionReason"])
    assert failed["error"]["code"] == "GATE_FAILED" and failed["error"]["next"] == ["hall doctor"]
    assert "RuntimeError: boom" in failed["error"]["message"]


def test_a_real_denial_carries_the_same_body(shared_repo):
    """Through hall-hook's run(): the edit gate's denial parses to HallError's body, keys and order."""
    import os

    payload = {"tool_name": "Edit", "cwd": str(shared_repo.main), "tool_input": {"file_path": "app.py"}}
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(shared_repo.env)
    try:
        answer = run("pre-tool-use", json.dumps(payload).encode())
    finally:
        os.environ.clear()
        os.environ.update(saved)
    body = json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])
    assert list(body) == ["error"] and list(body["error"]) == ["code", "message", "next"]
    assert body["error"]["code"] == "GATE_DENIED" and any("hall new" in step for step in body["error"]["next"])
