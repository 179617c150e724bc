"""PreToolUse: the edit gate, the push gate and the note gate (core/gates/decide.py).

Answers `deny` or `ask` with a reason, or nothing; never `allow`, so every command we do not
deny falls through to the person's own permission rules.
"""

from __future__ import annotations

from . import reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    from hallmark.core.gates.decide import pre_tool_use

    gate = pre_tool_use(payload, paths, cwd)
    if gate is None:
        return None
    try:
        from hallmark.core.item_lookup import item_for_path
        from hallmark.hooks.common import clip, record

        view = item_for_path(paths, cwd)
        tool_input = raw if isinstance(raw := payload.get("tool_input"), dict) else {}
        what = tool_input.get("command") or tool_input.get("file_path") or tool_input.get("notebook_path") or ""
        record(
            paths,
            view.id if view else None,
            "gate_denied" if gate.decision == "deny" else "gate_asked",
            tool=str(payload.get("tool_name")),
            message=clip(gate.message, 500),
            input=clip(str(what), 500),
            session=str(payload.get("session_id") or ""),
        )
    except Exception:  # noqa: BLE001 - recording a decision must not change it
        pass
    return reply.gate(gate)
