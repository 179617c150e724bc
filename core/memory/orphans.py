"""Finding what Hallmark wrote in a checkout without asking the store: every marked block, file
and hook entry, whether it is still what its own marker says (intact), and removing one that is.

reconcile.py uses this for orphans (a block for a learning that is not promoted) and intents.py
for a decision killed half-way. Stdlib only.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from hallmark.core.errors import HallError

from . import blocks, safe_write, settings_edit
from .blocks import digest
from .promote import Where
from .rendering import SETTINGS, entry_digest, ours


def found_markers(where: Where) -> list[dict[str, Any]]:
    """Every Hallmark-written block, file and hook entry in the checkout: {lid, path, target, intact}."""
    out: list[dict[str, Any]] = []
    claude = where.root / "CLAUDE.md"
    try:
        text = safe_write.read_text(claude)
    except HallError:
        text = None
    if text:
        found, _ = blocks.find_blocks(text)
        out += [
            {
                "lid": b.lid,
                "path": "CLAUDE.md",
                "target": "claude_md",
                "intact": b.self_intact,
                "digest": digest(b.inner),
            }
            for b in found
        ]
    for folder, pattern, target in (
        (".claude/rules", "*.md", "rule_file"),
        (".claude/commands", "*.md", "command"),
        (".claude/skills", "*/SKILL.md", "skill"),
    ):
        for path in sorted((where.root / folder).glob(pattern)):
            try:
                whole = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            marker = blocks.file_marker(whole)
            if marker:
                out.append(
                    {
                        "lid": marker[0],
                        "path": where.rel(path),
                        "target": target,
                        "intact": bool(marker[1]) and digest(marker[2]) == marker[1],
                        "digest": digest(whole),
                    }
                )
    settings = where.root / SETTINGS
    try:
        text = safe_write.read_text(settings)
        data = json.loads(text) if text and text.strip() else {}
    except (HallError, ValueError):
        data = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, entries in hooks.items() if isinstance(hooks, dict) else []:
        for entry in entries if isinstance(entries, list) else []:
            for hook in (entry.get("hooks") or []) if isinstance(entry, dict) else []:
                command = str(hook.get("command", "")) if isinstance(hook, dict) else ""
                match = re.search(r"^(.*)  # hallmark:(L-\d{4,})(?: ([0-9a-f]{16}))?$", command, re.S)
                if match:
                    token = digest(json.dumps([event, str(entry.get("matcher") or ""), match.group(1)]))
                    out.append(
                        {
                            "lid": match.group(2),
                            "path": SETTINGS,
                            "target": "hook",
                            "event": event,
                            "intact": match.group(3) == token,
                            "digest": entry_digest(entry),
                        }
                    )
    return out


def remove_found(where: Where, found: dict[str, Any]) -> bool:
    """Remove one intact Hallmark-written piece found by found_markers (an orphan). True when removed."""
    if not found.get("intact"):
        return False
    path = where.root / found["path"]
    if found["target"] == "claude_md":
        text = safe_write.read_text(path) or ""
        mine = [b for b in blocks.find_blocks(text)[0] if b.lid == found["lid"] and b.self_intact]
        if len(mine) != 1:
            return False
        b = mine[0]
        start = b.start
        nl = safe_write.newline_of(text)
        if (
            start >= 2 * len(nl)
            and text[start - len(nl) : start] == nl
            and text[:start].endswith(nl + nl)
            and not text[: start - len(nl)].endswith(nl + nl)
        ):
            start -= len(nl)  # the blank line promotion put before it
        safe_write.write_text(path, text[:start] + text[b.end :], state_tmp=where.tmp)
        return True
    if found["target"] == "hook":
        text = safe_write.read_text(path) or ""
        updated = settings_edit.remove_hook(text, found["event"], {}, ours(found["lid"]), found["path"])
        if updated is None:
            return False
        safe_write.write_text(path, updated, state_tmp=where.tmp)
        return True
    path.unlink()
    if found["target"] == "skill":
        with contextlib.suppress(OSError):
            path.parent.rmdir()
    return True
