"""What promotion writes for each kind: the learning's words rendered as inert text (blocks.py),
the files' front matter, and an automation's hook entry with the token a person confirms.

Pure functions of a learning; promote.py decides where and how it is written. Stdlib only.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from . import blocks
from .blocks import digest, inline
from .store import Learning

TARGETS = {
    "convention": "claude_md",
    "rule": "claude_md",
    "enforcement": "rule_file",
    "skill": "skill",
    "automation": "hook",
    "workflow": "command",
}
TARGET_WORDS = {
    "claude_md": "a marked block in CLAUDE.md",
    "rule_file": "a rule file under .claude/rules/",
    "skill": "a skill under .claude/skills/",
    "hook": "a hook entry in .claude/settings.local.json",
    "command": "a command under .claude/commands/",
    "library": "the library only (reviewer briefings)",
}
HOOK_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
    "Notification",
    "PreCompact",
)
SETTINGS = ".claude/settings.local.json"


def slug(text: str, limit: int = 48) -> str:
    value = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return value[:limit].rstrip("-") or "learning"


def name_of(learning: Learning) -> str:
    given = str((learning.details or {}).get("name") or (learning.details or {}).get("rule_name") or "")
    return slug(given or learning.pattern, 48)


def _path_text(glob: str) -> str:
    return inline(glob, lead=False).replace("`", "'")


def inner_lines(learning: Learning) -> list[str]:
    lines = [f"- {inline(learning.pattern)}"]
    if learning.rationale:
        lines.append(f"  Why: {inline(learning.rationale, lead=False)}")
    if learning.paths:
        lines.append("  Applies to: " + ", ".join(f"`{_path_text(p)}`" for p in learning.paths))
    return lines


def _front(fields: dict[str, Any]) -> str:
    lines = ["---"]
    for key, value in fields.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  - {json.dumps(v)}" for v in value]
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _description(learning: Learning) -> str:
    return inline(learning.pattern, lead=False)[:200]


def _why(learning: Learning) -> str:
    return f"\nWhy: {inline(learning.rationale, lead=False)}\n" if learning.rationale else ""


def file_text(learning: Learning, target: str) -> str:
    details = learning.details or {}
    if target == "rule_file":
        head = _front({"paths": [str(p) for p in learning.paths]}) if learning.paths else ""
        body = f"# {name_of(learning)}\n\n{inline(learning.pattern)}\n" + _why(learning)
    elif target == "skill":
        head = _front({"name": name_of(learning), "description": _description(learning)})
        body = f"# {name_of(learning)}\n\n{inline(learning.pattern)}\n" + _why(learning)
        if details.get("canonical_example"):
            body += f"\n## Example\n\n{blocks.code_fence(str(details['canonical_example']))}\n"
        if details.get("key_points"):
            points = details["key_points"] if isinstance(details["key_points"], list) else [details["key_points"]]
            body += "\n## Key points\n\n" + "\n".join(f"- {inline(str(p))}" for p in points) + "\n"
    else:  # command
        head = _front({"description": _description(learning)})
        body = f"{inline(learning.pattern)}\n"
        steps = details.get("steps") or []
        if not isinstance(steps, list):
            steps = [steps]
        if steps:
            body += "\n" + "\n".join(f"{i}. {inline(str(s))}" for i, s in enumerate(steps, 1)) + "\n"
        body += _why(learning)
    return blocks.with_file_marker(learning.id, head, body, "\n")


def automation_of(learning: Learning) -> dict[str, Any]:
    """The hook an automation becomes: {event, matcher, action, command, confirm} or {problem}."""
    details = learning.details or {}
    action = str(details.get("action") or details.get("command") or "").strip()
    event = str(details.get("hook_event") or "PostToolUse").strip()
    matcher = str(details.get("hook_matcher") or details.get("matcher") or "")
    if not action:
        return {"problem": "an automation needs details.action (the command to run) before it can become a hook"}
    if event not in HOOK_EVENTS:
        return {"problem": f"'{event}' is not a Claude Code hook event (one of: {', '.join(HOOK_EVENTS)})"}
    if "\n" in action or "\r" in action or "\x00" in action:
        return {"problem": "the command spans several lines; an automation is one command line"}
    try:
        shlex.split(action, comments=True)
    except ValueError as exc:
        return {"problem": f"the command does not parse as one shell command line ({exc})"}
    token = digest(json.dumps([event, matcher, action]))
    return {
        "event": event,
        "matcher": matcher,
        "action": action,
        "confirm": token,
        "command": f"{action}  # hallmark:{learning.id} {token}",
    }


def hook_entry(auto: dict[str, Any]) -> dict[str, Any]:
    return {"matcher": auto["matcher"], "hooks": [{"type": "command", "command": auto["command"]}]}


def ours(lid: str) -> Callable[[Any], bool]:
    mark = re.compile(r"# hallmark:" + re.escape(lid) + r"(?: [0-9a-f]{16})?$")

    def is_ours(entry: Any) -> bool:
        if not isinstance(entry, dict):
            return False
        return any(isinstance(h, dict) and mark.search(str(h.get("command", ""))) for h in entry.get("hooks", []) or [])

    return is_ours


def entry_digest(entry: dict[str, Any]) -> str:
    return digest(json.dumps(entry, sort_keys=True))
