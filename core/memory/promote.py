"""Promotion: an accepted learning written where Claude Code loads it, and taken back exactly.

Per kind:
- convention, rule -> CLAUDE.md, inside a per-learning marked block
  (`<!-- hallmark:learning L-0001 -->` … `<!-- /hallmark:learning L-0001 -->`)
- enforcement -> .claude/rules/<name>.md with its path globs in the front matter
- skill -> .claude/skills/<name>/SKILL.md
- automation -> a hook entry in .claude/settings.local.json (its command carries `# hallmark:L-0001`)
- workflow -> .claude/commands/<name>.md
- false-positive, map, decision -> the library only (they reach reviewer briefings)

Every write is atomic (temp file + rename) and touches nothing outside its block or file; the
digest of what was written is kept so `reconcile` can tell when a person edited or deleted it.
Stdlib only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import atomic
from ..errors import HallError
from .store import Learning

TARGETS = {
    "convention": "claude_md", "rule": "claude_md", "enforcement": "rule_file", "skill": "skill",
    "automation": "hook", "workflow": "command",
}
TARGET_WORDS = {
    "claude_md": "a marked block in CLAUDE.md", "rule_file": "a rule file under .claude/rules/",
    "skill": "a skill under .claude/skills/", "hook": "a hook entry in .claude/settings.local.json",
    "command": "a command under .claude/commands/", "library": "the library only (reviewer briefings)",
}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def start_marker(lid: str) -> str:
    return f"<!-- hallmark:learning {lid} -->"


def end_marker(lid: str) -> str:
    return f"<!-- /hallmark:learning {lid} -->"


def slug(text: str, limit: int = 48) -> str:
    value = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return value[:limit].rstrip("-") or "learning"


def name_of(learning: Learning) -> str:
    given = str((learning.details or {}).get("name") or (learning.details or {}).get("rule_name") or "")
    return slug(given or learning.pattern, 48)


@dataclass
class Plan:
    target: str  # claude_md, rule_file, skill, hook, command, library
    path: Path | None
    text: str  # the block, file or hook entry as it will be written
    problem: str = ""  # why it cannot be written (then accepting keeps it in the library)

    def to_dict(self, root: Path) -> dict[str, Any]:
        rel = str(self.path.relative_to(root)) if self.path else None
        return {"target": self.target, "where": TARGET_WORDS[self.target], "path": rel, "text": self.text,
                "problem": self.problem or None}


def _inner(learning: Learning) -> str:
    lines = [f"- {learning.pattern.strip()}"]
    if learning.rationale:
        lines.append(f"  Why: {learning.rationale.strip()}")
    if learning.paths:
        lines.append("  Applies to: " + ", ".join(f"`{p}`" for p in learning.paths))
    return "\n".join(lines)


def _block(learning: Learning) -> str:
    return f"{start_marker(learning.id)}\n{_inner(learning)}\n{end_marker(learning.id)}\n"


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


def _rule_file(learning: Learning) -> str:
    head = _front({"paths": learning.paths}) if learning.paths else ""
    body = f"{start_marker(learning.id)}\n# {name_of(learning)}\n\n{learning.pattern.strip()}\n"
    if learning.rationale:
        body += f"\nWhy: {learning.rationale.strip()}\n"
    return head + body


def _skill_file(learning: Learning) -> str:
    details = learning.details or {}
    head = _front({"name": name_of(learning), "description": learning.pattern.strip().splitlines()[0][:200]})
    body = f"{start_marker(learning.id)}\n# {name_of(learning)}\n\n{learning.pattern.strip()}\n"
    if learning.rationale:
        body += f"\nWhy: {learning.rationale.strip()}\n"
    if details.get("canonical_example"):
        body += f"\n## Example\n\n{details['canonical_example']}\n"
    if details.get("key_points"):
        body += "\n## Key points\n\n" + "\n".join(f"- {p}" for p in details["key_points"]) + "\n"
    return head + body


def _command_file(learning: Learning) -> str:
    details = learning.details or {}
    head = _front({"description": learning.pattern.strip().splitlines()[0][:200]})
    body = f"{start_marker(learning.id)}\n{learning.pattern.strip()}\n"
    steps = details.get("steps") or []
    if steps:
        body += "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)) + "\n"
    if learning.rationale:
        body += f"\nWhy: {learning.rationale.strip()}\n"
    return head + body


def _hook_entry(learning: Learning) -> dict[str, Any] | None:
    details = learning.details or {}
    action = str(details.get("action") or details.get("command") or "").strip()
    if not action:
        return None
    return {"matcher": str(details.get("hook_matcher") or details.get("matcher") or ""),
            "hooks": [{"type": "command", "command": f"{action}  # hallmark:{learning.id}"}]}


def plan(root: Path, learning: Learning) -> Plan:
    """Where accepting this learning would write, and exactly what."""
    target = TARGETS.get(learning.kind, "library")
    if target == "claude_md":
        return Plan(target, root / "CLAUDE.md", _block(learning))
    if target == "rule_file":
        return Plan(target, _free(root / ".claude" / "rules", name_of(learning), ".md", learning), _rule_file(learning))
    if target == "skill":
        folder = _free(root / ".claude" / "skills", name_of(learning), "", learning)
        return Plan(target, folder / "SKILL.md", _skill_file(learning))
    if target == "command":
        return Plan(target, _free(root / ".claude" / "commands", name_of(learning), ".md", learning),
                    _command_file(learning))
    if target == "hook":
        entry = _hook_entry(learning)
        event = str((learning.details or {}).get("hook_event") or "PostToolUse")
        if entry is None:
            return Plan(target, root / ".claude" / "settings.local.json", "",
                        "an automation needs details.action (the command to run) before it can become a hook")
        return Plan(target, root / ".claude" / "settings.local.json", json.dumps({event: [entry]}, indent=2))
    return Plan("library", None, _inner(learning))


def _free(folder: Path, name: str, suffix: str, learning: Learning) -> Path:
    """name, unless a file not written by this learning already has it (then name-l-0001)."""
    candidate = folder / f"{name}{suffix}"
    probe = candidate / "SKILL.md" if not suffix else candidate
    if probe.exists():
        try:
            if start_marker(learning.id) in probe.read_text(encoding="utf-8"):
                return candidate
        except OSError:
            pass
        return folder / f"{name}-{learning.id.lower()}{suffix}"
    return candidate


# -- writing and removing ------------------------------------------------------------------
def write(root: Path, learning: Learning) -> dict[str, Any] | None:
    """Write the promotion; returns the record kept on the learning, or None for library-only kinds."""
    target_plan = plan(root, learning)
    if target_plan.target == "library":
        return None
    if target_plan.problem:
        raise HallError("WRONG_STATE", f"{learning.id} cannot be promoted: {target_plan.problem}.",
                        [f"hall library show {learning.id}"])
    path = target_plan.path
    assert path is not None
    rel = str(path.relative_to(root))
    if target_plan.target == "claude_md":
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        _remove_block_text(text, learning.id)  # validates markers
        existing = _find_block(text, learning.id)
        if existing:
            start, end = existing
            updated = text[:start] + target_plan.text + text[end:]
            sep = ""
        else:
            sep = "" if (not text or text.endswith("\n\n")) else ("\n" if text.endswith("\n") else "\n\n")
            updated = text + sep + target_plan.text
        atomic.write_text(path, updated)
        return {"target": "claude_md", "path": rel, "digest": digest(_inner(learning)), "sep": sep}
    if target_plan.target == "hook":
        event = str((learning.details or {}).get("hook_event") or "PostToolUse")
        entry = _hook_entry(learning)
        settings = _read_settings(path)
        hooks = settings.setdefault("hooks", {})
        entries = [e for e in hooks.get(event, []) if not _is_ours(e, learning.id)]
        entries.append(entry)
        hooks[event] = entries
        atomic.write_text(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        return {"target": "hook", "path": rel, "event": event,
                "digest": digest(json.dumps(entry, sort_keys=True))}
    created_dir = not path.parent.exists()
    atomic.write_text(path, target_plan.text)
    return {"target": target_plan.target, "path": rel, "digest": digest(target_plan.text),
            "created_dir": created_dir and target_plan.target == "skill"}


def remove(root: Path, learning: Learning) -> str:
    """Take the promotion back: exactly its block, file or hook entry. Returns what happened."""
    promo = learning.promotion or {}
    if not promo:
        return "nothing promoted"
    path = root / promo["path"]
    if promo["target"] == "claude_md":
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return "CLAUDE.md is gone"
        span = _find_block(text, learning.id)
        if not span:
            return "block already gone"
        start, end = span
        sep = promo.get("sep") or ""
        if sep and start >= len(sep) and text[start - len(sep):start] == sep:
            start -= len(sep)  # the separator promotion added goes with the block
        atomic.write_text(path, text[:start] + text[end:])
        return "block removed"
    if promo["target"] == "hook":
        settings = _read_settings(path)
        hooks = settings.get("hooks", {})
        event = promo.get("event") or "PostToolUse"
        before = list(hooks.get(event, []))
        after = [e for e in before if not _is_ours(e, learning.id)]
        if before == after:
            return "hook entry already gone"
        if after:
            hooks[event] = after
        else:
            hooks.pop(event, None)
        if not hooks:
            settings.pop("hooks", None)
        atomic.write_text(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        return "hook entry removed"
    try:
        path.unlink()
    except FileNotFoundError:
        return "file already gone"
    if promo.get("created_dir"):
        try:
            path.parent.rmdir()
        except OSError:
            pass
    return "file removed"


def inspect(root: Path, learning: Learning) -> dict[str, Any]:
    """How the promoted block/file looks now: {state: intact|edited|deleted, current: text|None}."""
    promo = learning.promotion or {}
    path = root / promo.get("path", "")
    if promo.get("target") == "claude_md":
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"state": "deleted", "current": None}
        span = _find_block(text, learning.id)
        if not span:
            return {"state": "deleted", "current": None}
        block = text[span[0]:span[1]]
        inner = block[len(start_marker(learning.id)) + 1: block.rfind(end_marker(learning.id))].rstrip("\n")
        state = "intact" if digest(inner) == promo.get("digest") else "edited"
        return {"state": state, "current": inner}
    if promo.get("target") == "hook":
        settings = _read_settings(path) if path.exists() else {}
        for entry in settings.get("hooks", {}).get(promo.get("event") or "PostToolUse", []):
            if _is_ours(entry, learning.id):
                same = digest(json.dumps(entry, sort_keys=True)) == promo.get("digest")
                return {"state": "intact" if same else "edited", "current": json.dumps(entry)}
        return {"state": "deleted", "current": None}
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return {"state": "deleted", "current": None}
    return {"state": "intact" if digest(text) == promo.get("digest") else "edited", "current": text}


def _find_block(text: str, lid: str) -> tuple[int, int] | None:
    start = text.find(start_marker(lid))
    if start == -1:
        return None
    end_at = text.find(end_marker(lid), start)
    if end_at == -1:
        return None
    end = end_at + len(end_marker(lid))
    if text[end:end + 1] == "\n":
        end += 1
    return start, end


def _remove_block_text(text: str, lid: str) -> None:
    if text.count(start_marker(lid)) > 1:
        raise HallError("WRONG_STATE", f"CLAUDE.md holds {lid}'s block more than once; fix it by hand.",
                        ["hall library reconcile"])


def _read_settings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HallError("WRONG_STATE", f"{path} is not valid JSON ({exc}); nothing was changed.",
                        [f"fix {path}"]) from exc
    if not isinstance(data, dict):
        raise HallError("WRONG_STATE", f"{path} is not a JSON object; nothing was changed.", [f"fix {path}"])
    return data


def _is_ours(entry: Any, lid: str) -> bool:
    if not isinstance(entry, dict):
        return False
    return any(isinstance(h, dict) and str(h.get("command", "")).endswith(f"# hallmark:{lid}")
               for h in entry.get("hooks", []) or [])
