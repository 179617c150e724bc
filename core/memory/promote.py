"""Promotion: an accepted learning written where Claude Code loads it, and taken back exactly.

Per kind:
- convention, rule -> CLAUDE.md, inside a marked block bound to the learning's ID and a digest
- enforcement -> .claude/rules/<name>.md with its path globs in the front matter
- skill -> .claude/skills/<name>/SKILL.md
- automation -> one hook entry in .claude/settings.local.json (its command ends `# hallmark:L-0001 <digest>`)
- workflow -> .claude/commands/<name>.md
- false-positive, map, decision -> the library only (they reach reviewer briefings)

What is written comes from rendering.py. Every write touches exactly the bytes Hallmark wrote
(blocks.py, settings_edit.py), keeps the file's mode and line endings (safe_write.py), and never
overwrites a file Hallmark did not write. When the person edited what was written, taking it back
keeps their version where it is and says so (`kept`); overwriting it (restore) first copies their
version to library/kept/. Stdlib only.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallmark.core import clock
from hallmark.core.errors import HallError

from . import blocks, safe_write, settings_edit
from .blocks import digest
from .rendering import (
    HOOK_EVENTS,
    SETTINGS,
    TARGET_WORDS,
    TARGETS,
    automation_of,
    entry_digest,
    file_text,
    hook_entry,
    inner_lines,
    name_of,
    ours,
    slug,
)
from .store import Learning

__all__ = [
    "HOOK_EVENTS",
    "SETTINGS",
    "TARGETS",
    "TARGET_WORDS",
    "Plan",
    "Where",
    "automation_of",
    "digest",
    "entry_digest",
    "file_text",
    "hook_entry",
    "inner_lines",
    "inspect",
    "name_of",
    "plan",
    "remove",
    "slug",
    "write",
]


@dataclass(frozen=True)
class Where:
    """The checkout promotion writes into, and Hallmark's state dir (temp files, kept copies)."""

    root: Path
    state_dir: Path

    @property
    def tmp(self) -> Path:
        return self.state_dir / "tmp"

    @property
    def kept(self) -> Path:
        return self.state_dir / "library" / "kept"

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))


@dataclass
class Plan:
    target: str  # claude_md, rule_file, skill, hook, command, library
    path: Path | None
    text: str  # the block, file or hook entry as it will be written
    problem: str = ""  # why it cannot be written (then accepting keeps it in the library)
    automation: dict[str, Any] | None = None  # for a hook: the exact command, event, matcher and file

    def to_dict(self, root: Path) -> dict[str, Any]:
        rel = str(self.path.relative_to(root)) if self.path else None
        out: dict[str, Any] = {
            "target": self.target,
            "where": TARGET_WORDS[self.target],
            "path": rel,
            "text": self.text,
            "problem": self.problem or None,
        }
        if self.automation is not None:
            out["automation"] = self.automation
        return out


def plan(root: Path, learning: Learning) -> Plan:
    """Where accepting this learning would write, and exactly what (nothing is written)."""
    target = TARGETS.get(learning.kind, "library")
    if target == "claude_md":
        return Plan(target, root / "CLAUDE.md", blocks.render_block(learning.id, inner_lines(learning), "\n"))
    if target == "hook":
        auto = automation_of(learning)
        path = root / SETTINGS
        if "problem" in auto:
            return Plan(target, path, "", auto["problem"])
        shown = {k: auto[k] for k in ("event", "matcher", "command", "confirm")} | {"file": SETTINGS}
        return Plan(target, path, json.dumps({auto["event"]: [hook_entry(auto)]}, indent=2), automation=shown)
    if target in ("rule_file", "skill", "command"):
        return Plan(target, _target_path(root, learning, target), file_text(learning, target))
    return Plan("library", None, "\n".join(inner_lines(learning)))


def _target_path(root: Path, learning: Learning, target: str) -> Path:
    promo = learning.promotion or {}
    if promo.get("target") == target and promo.get("path"):
        return root / promo["path"]
    folder = {
        "rule_file": root / ".claude" / "rules",
        "skill": root / ".claude" / "skills",
        "command": root / ".claude" / "commands",
    }[target]
    base = name_of(learning)
    for candidate in (
        base,
        f"{base}-{learning.id.lower()}",
        *(f"{base}-{learning.id.lower()}-{n}" for n in range(2, 50)),
    ):
        path = folder / candidate / "SKILL.md" if target == "skill" else folder / f"{candidate}.md"
        if not path.exists() and not (
            target == "skill" and path.parent.exists() and not _file_is_ours(path, learning.id)
        ):
            return path
        if _file_is_ours(path, learning.id):
            return path
    raise HallError("WRONG_STATE", f"no free file name for {learning.id} under {folder}", [f"look at {folder}"])


def _file_is_ours(path: Path, lid: str) -> bool:
    try:
        found = blocks.file_marker(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
    return bool(found and found[0] == lid and found[1] and digest(found[2]) == found[1])


# -- writing ------------------------------------------------------------------------------------
def _keep_copy(where: Where, lid: str, rel: str, text: str) -> str:
    """Save the person's version before overwriting it; returns where it went."""
    stamp = clock.stamp().replace(":", "").replace("-", "").replace(".", "")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", rel)
    path = where.kept / f"{lid}-{stamp}-{name}"
    safe_write.write_text(path, text, state_tmp=where.tmp)
    return str(path)


def write(
    where: Where, learning: Learning, *, overwrite_edit: bool = False, keep_copy: bool = True
) -> dict[str, Any] | None:
    """Write the promotion; returns the record kept on the learning, or None for library-only kinds.

    An existing promotion of this learning is replaced in place. If the person edited it, this
    stops (WRONG_STATE) unless overwrite_edit, and then their version is copied to library/kept/."""
    target_plan = plan(where.root, learning)
    if target_plan.target == "library":
        return None
    if target_plan.problem:
        raise HallError(
            "WRONG_STATE",
            f"{learning.id} cannot be promoted: {target_plan.problem}.",
            [f"hall library show {learning.id}"],
        )
    path = target_plan.path
    assert path is not None
    rel = where.rel(path)
    if target_plan.target == "claude_md":
        return _write_block(where, learning, path, rel, overwrite_edit, keep_copy)
    if target_plan.target == "hook":
        return _write_hook(where, learning, path, rel, overwrite_edit, keep_copy)
    text = target_plan.text
    current = safe_write.read_text(path)
    kept = None
    if (
        current is not None
        and current != text
        and not _file_is_ours(path, learning.id)
        and not _matches(learning, current)
    ):
        if not overwrite_edit:
            raise _edited_error(learning, rel)
        kept = _keep_copy(where, learning.id, rel, current) if keep_copy else None
    created_dir = not path.parent.exists()
    if current != text:
        safe_write.write_text(path, text, state_tmp=where.tmp)
    previous = learning.promotion or {}
    record = {
        "target": target_plan.target,
        "path": rel,
        "digest": digest(text),
        "created_dir": bool(previous.get("created_dir")) or (created_dir and target_plan.target == "skill"),
    }
    if kept:
        record["kept"] = kept
    return record


def _matches(learning: Learning, current: str) -> bool:
    return digest(current) == (learning.promotion or {}).get("digest")


def _edited_error(learning: Learning, rel: str) -> HallError:
    return HallError(
        "WRONG_STATE",
        f"{learning.id}'s promoted text in {rel} was edited by hand; Hallmark will not "
        "overwrite it. Adopt the edit, or write ours back (the edit is then kept in library/kept/).",
        [f"hall library reconcile --update {learning.id}", f"hall library reconcile --restore {learning.id}"],
    )


def _write_block(
    where: Where, learning: Learning, path: Path, rel: str, overwrite_edit: bool, keep_copy: bool
) -> dict[str, Any]:
    text = safe_write.read_text(path)
    text = text or ""
    nl = safe_write.newline_of(text) if text else "\n"
    found, problems = blocks.find_blocks(text)
    mine = [b for b in found if b.lid == learning.id]
    if len(mine) > 1 or any(learning.id in p for p in problems):
        raise HallError(
            "WRONG_STATE",
            f"CLAUDE.md holds {learning.id}'s block more than once, or unclosed; fix it by hand. Nothing was changed.",
            ["hall library reconcile"],
        )
    lines = inner_lines(learning)
    block = blocks.render_block(learning.id, lines, nl)
    previous = learning.promotion or {}
    kept = None
    if mine:
        b = mine[0]
        if digest(b.inner) not in (previous.get("digest"), b.sha, digest("\n".join(lines))):
            if not overwrite_edit:
                raise _edited_error(learning, rel)
            kept = _keep_copy(where, learning.id, rel, b.inner + nl) if keep_copy else None
        updated = text[: b.start] + block + text[b.end :]
        sep = previous.get("sep", "")
    else:
        if not text or text.endswith(nl + nl) or text.endswith("\n\n"):
            sep = ""
        elif text.endswith("\n"):
            sep = nl
        else:
            sep = nl + nl
        updated = text + sep + block
    if updated != text:
        safe_write.write_text(path, updated, state_tmp=where.tmp)
    record = {"target": "claude_md", "path": rel, "digest": digest("\n".join(lines)), "sep": sep}
    if kept:
        record["kept"] = kept
    return record


def _write_hook(
    where: Where, learning: Learning, path: Path, rel: str, overwrite_edit: bool, keep_copy: bool
) -> dict[str, Any]:
    auto = automation_of(learning)
    entry = hook_entry(auto)
    text = safe_write.read_text(path)
    previous = learning.promotion or {}
    kept = None
    if text is not None and text.strip():
        data, _ = settings_edit.parse(text, rel)
        mine = [e for e in (data.get("hooks") or {}).get(auto["event"], []) if ours(learning.id)(e)]
        if mine and mine[0] == entry:
            return {
                "target": "hook",
                "path": rel,
                "event": auto["event"],
                "digest": entry_digest(entry),
                "edit": previous.get("edit") or {},
            }
        if any(ours(learning.id)(e) for es in (data.get("hooks") or {}).values() if isinstance(es, list) for e in es):
            if previous and _hook_state(where, learning)["state"] == "edited" and not overwrite_edit:
                raise _edited_error(learning, rel)
            old = _hook_state(where, learning)
            if old["state"] == "edited" and keep_copy:
                kept = _keep_copy(where, learning.id, rel, old["current"] or "")
            text = _without_hook(where, learning, text, rel) or text
    updated, edit = settings_edit.add_hook(text, auto["event"], entry, rel)
    safe_write.write_text(path, updated, state_tmp=where.tmp)
    record = {"target": "hook", "path": rel, "event": auto["event"], "digest": entry_digest(entry), "edit": edit}
    if kept:
        record["kept"] = kept
    return record


def _without_hook(where: Where, learning: Learning, text: str, rel: str) -> str | None:
    promo = learning.promotion or {}
    event = promo.get("event") or automation_of(learning).get("event") or "PostToolUse"
    for candidate in (event, *HOOK_EVENTS):
        updated = settings_edit.remove_hook(text, candidate, promo.get("edit") or {}, ours(learning.id), rel)
        if updated is not None:
            return updated
    return None


# -- taking back ---------------------------------------------------------------------------------
def remove(where: Where, learning: Learning) -> dict[str, Any]:
    """Take the promotion back: exactly its block, file or hook entry. When the person edited it,
    their version stays where it is (the markers go) and the result says where: {did, path, kept}."""
    promo = learning.promotion or {}
    if not promo:
        return {"did": "nothing promoted"}
    path = where.root / promo["path"]
    rel = promo["path"]
    if promo["target"] == "claude_md":
        return _remove_block(where, learning, promo, path, rel)
    if promo["target"] == "hook":
        return _remove_hook(where, learning, promo, path, rel)
    return _remove_file(promo, path, rel)


def _remove_block(where: Where, learning: Learning, promo: dict[str, Any], path: Path, rel: str) -> dict[str, Any]:
    """A CLAUDE.md block: removed with its separator, or only its markers when the person edited it."""
    text = safe_write.read_text(path)
    if text is None:
        return {"did": "CLAUDE.md is gone", "path": rel}
    b = _my_block(text, learning.id)
    if b is None:
        return {"did": "block already gone", "path": rel}
    if digest(b.inner) in (promo.get("digest"), b.sha):
        start = b.start
        sep = promo.get("sep") or ""
        if sep and start >= len(sep) and text[start - len(sep) : start] == sep:
            start -= len(sep)  # the separator promotion added goes with the block
        safe_write.write_text(path, text[:start] + text[b.end :], state_tmp=where.tmp)
        return {"did": "block removed", "path": rel}
    # edited by hand: only our two marker lines go; the person's text stays where it was
    kept_text = text[b.inner_start : b.inner_end]
    safe_write.write_text(path, text[: b.start] + kept_text + text[b.end :], state_tmp=where.tmp)
    line = text[: b.start].count("\n") + 1
    return {
        "did": "kept your edit",
        "path": rel,
        "kept": f"{rel}:{line}",
        "why": "the block was edited by hand; its markers were removed and your text left in place",
    }


def _remove_hook(where: Where, learning: Learning, promo: dict[str, Any], path: Path, rel: str) -> dict[str, Any]:
    """A hook entry in Claude Code's settings: removed unless the person edited it."""
    text = safe_write.read_text(path)
    if text is None:
        return {"did": "settings file is gone", "path": rel}
    state = _hook_state(where, learning)
    if state["state"] == "deleted":
        return {"did": "hook entry already gone", "path": rel}
    if state["state"] == "edited":
        return {
            "did": "kept your edit",
            "path": rel,
            "kept": rel,
            "why": "the hook entry was edited by hand; it was left in place and is yours now",
        }
    updated = _without_hook(where, learning, text, rel)
    if updated is None:
        return {"did": "hook entry already gone", "path": rel}
    if updated == "" and (promo.get("edit") or {}).get("created_file"):
        path.unlink()
    else:
        safe_write.write_text(path, updated, state_tmp=where.tmp)
    return {"did": "hook entry removed", "path": rel}


def _remove_file(promo: dict[str, Any], path: Path, rel: str) -> dict[str, Any]:
    """A file the promotion wrote: removed (and the folder it made) unless the person edited it."""
    try:
        current = safe_write.read_text(path)
    except HallError:
        return {"did": "kept your edit", "path": rel, "kept": rel, "why": "the file is no longer text Hallmark wrote"}
    if current is None:
        return {"did": "file already gone", "path": rel}
    if digest(current) != promo.get("digest"):
        return {
            "did": "kept your edit",
            "path": rel,
            "kept": rel,
            "why": "the file was edited by hand; it was left in place and is yours now",
        }
    path.unlink()
    if promo.get("created_dir"):
        with contextlib.suppress(OSError):
            path.parent.rmdir()
    return {"did": "file removed", "path": rel}


def _my_block(text: str, lid: str) -> blocks.Block | None:
    return next((b for b in blocks.find_blocks(text)[0] if b.lid == lid), None)


def inspect(where: Where, learning: Learning) -> dict[str, Any]:
    """How the promoted block/file looks now: {state: intact|edited|deleted, current: text|None}."""
    promo = learning.promotion or {}
    path = where.root / promo.get("path", "")
    if promo.get("target") == "claude_md":
        try:
            text = safe_write.read_text(path)
        except HallError:
            return {"state": "edited", "current": None}
        if text is None:
            return {"state": "deleted", "current": None}
        block = _my_block(text, learning.id)
        if block is None:
            return {"state": "deleted", "current": None}
        inner = block.inner.replace("\r\n", "\n")
        return {"state": "intact" if digest(inner) == promo.get("digest") else "edited", "current": inner}
    if promo.get("target") == "hook":
        return _hook_state(where, learning)
    try:
        text = safe_write.read_text(path)
    except HallError:
        return {"state": "edited", "current": None}
    if text is None:
        return {"state": "deleted", "current": None}
    return {"state": "intact" if digest(text) == promo.get("digest") else "edited", "current": text}


def _hook_state(where: Where, learning: Learning) -> dict[str, Any]:
    promo = learning.promotion or {}
    path = where.root / (promo.get("path") or SETTINGS)
    try:
        text = safe_write.read_text(path)
        data = json.loads(text) if text and text.strip() else {}
    except (HallError, ValueError):
        return {"state": "edited", "current": None}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for entries in (hooks or {}).values() if isinstance(hooks, dict) else []:
        for entry in entries if isinstance(entries, list) else []:
            if ours(learning.id)(entry):
                same = entry_digest(entry) == promo.get("digest")
                return {"state": "intact" if same else "edited", "current": json.dumps(entry)}
    return {"state": "deleted", "current": None}
