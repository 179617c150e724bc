"""Failure capture: classify a failed tool call before counting it.

A KNOWLEDGE GAP is a failure that knowing the project would have avoided: a command that does
not exist, a missing npm script or make target, a script path that is not there, a module that
is not installed, an unknown subcommand or option. ITERATION NOISE is the normal work of
changing code: a failing test, a type error, a lint error, a syntax error. Noise is recorded
and never becomes a learning; a knowledge gap seen in two or more items becomes a PROPOSED
learning (never accepted: a person drains it) with the failures as its evidence.

STDLIB ONLY: `hall-hook post-tool-use` calls capture() after failed tool calls; it fails open.
Records go to library/failures.jsonl; anything secret-shaped is dropped, never stored.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

from hallmark.core import journal, secrets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from hallmark.core.paths import RepoPaths

THRESHOLD_ITEMS = 2

# kind: "knowledge_gap" | "iteration_noise"; signature: a stable key for counting, e.g.
# "missing-script:typecheck"; reason: in words. (A namedtuple, not a dataclass: the hook path.)
Classified = namedtuple("Classified", ("kind", "signature", "reason"))


_GAPS: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(r"(?:npm (?:ERR!|error)|pnpm|yarn)[^\n]*missing script:?\s*\"?([\w:.\-]+)\"?", re.I),
        "missing-script:{0}",
        'there is no package script named "{0}"',
    ),
    (
        re.compile(r"ERR_PNPM_NO_SCRIPT[^\n]*?\"?([\w:.\-]+)\"?", re.I),
        "missing-script:{0}",
        'there is no package script named "{0}"',
    ),
    (
        re.compile(r"No rule to make target [`'\"]?([\w./\-]+)", re.I),
        "missing-target:make {0}",
        'make has no target "{0}"',
    ),
    (
        re.compile(r"Justfile does not contain recipe [`'\"]?([\w\-]+)", re.I),
        "missing-target:just {0}",
        'just has no recipe "{0}"',
    ),
    (
        re.compile(r"(?:^|\n|: )([\w./\-]+): (?:command )?not found", re.I),
        "command-not-found:{0}",
        'the command "{0}" is not installed or not on PATH',
    ),
    (
        re.compile(r"command not found:\s*([\w./\-]+)", re.I),
        "command-not-found:{0}",
        'the command "{0}" is not installed or not on PATH',
    ),
    (
        re.compile(r"'([\w.\-]+)' is not recognized as an internal or external command", re.I),
        "command-not-found:{0}",
        'the command "{0}" is not installed or not on PATH',
    ),
    (
        re.compile(
            r"(?:can't open file|No such file or directory)[^\n]*?['\"]?((?:\./)?[\w./\-]+\.(?:sh|py|js|ts|mjs|rb))",
            re.I,
        ),
        "missing-file:{0}",
        'the script "{0}" does not exist',
    ),
    (
        re.compile(r"No module named ['\"]?([\w.]+)", re.I),
        "missing-module:{0}",
        'the Python module "{0}" is not installed in this environment',
    ),
    (
        re.compile(r"Cannot find module ['\"]([^'\"]+)['\"]", re.I),
        "missing-module:{0}",
        'the Node module "{0}" is not installed',
    ),
    (
        re.compile(r"git: '([\w\-]+)' is not a git command", re.I),
        "unknown-subcommand:git {0}",
        'git has no command "{0}"',
    ),
    (
        re.compile(
            r"(?:error: )?(?:unrecognized arguments?|unknown option|unrecognized option|no such option)[:\s]+['\"]?(-{1,2}[\w\-]+)",
            re.I,
        ),
        "unknown-option:{0}",
        'the option "{0}" does not exist for this tool',
    ),
    (
        re.compile(r"Unknown command:?\s*['\"]?([\w:\-]+)", re.I),
        "unknown-subcommand:{0}",
        '"{0}" is not a command of this tool',
    ),
]

_NOISE: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(r"\b(?:FAILED|failed|FAIL)\b.*(?:test|spec)|\d+ failed|AssertionError|assert ", re.I),
        "test-failure",
        "a failing test",
    ),
    (
        re.compile(r"error TS\d+|Type error|TypeError|mypy|Incompatible types|is not assignable to type", re.I),
        "type-error",
        "a type error",
    ),
    (re.compile(r"SyntaxError|IndentationError|ParseError|Unexpected token", re.I), "syntax-error", "a syntax error"),
    (re.compile(r"\b(?:eslint|ruff|flake8|pylint|clippy|lint)\b", re.I), "lint-error", "a lint error"),
]


def classify(text: str) -> Classified:
    """Knowledge gap or iteration noise (the default: an unknown failure is not a lesson)."""
    for pattern, signature, reason in _GAPS:
        match = pattern.search(text or "")
        if match:
            value = match.group(1).strip().strip("'\"`")
            if signature.startswith("command-not-found") and value.lower() in ("command", "line", "bash", "sh", "zsh"):
                continue
            return Classified("knowledge_gap", signature.format(value), reason.format(value))
    for pattern, signature, reason in _NOISE:
        if pattern.search(text or ""):
            return Classified("iteration_noise", signature, reason)
    return Classified("iteration_noise", "other", "a failure during the work")


def _failure_text(payload: dict[str, Any]) -> str | None:
    """The failure's words, or None when this tool call did not fail."""
    if payload.get("error"):
        return str(payload["error"])
    response = payload.get("tool_response")
    if isinstance(response, dict):
        stderr = str(response.get("stderr") or "")
        code = response.get("exit_code", response.get("exitCode", response.get("returncode")))
        if (isinstance(code, int) and code != 0) or re.search(
            r"command not found|missing script|No rule to make", stderr
        ):
            return (stderr + "\n" + str(response.get("stdout") or ""))[-4000:]
    return None


def _item_for(paths: RepoPaths, payload: dict[str, Any]) -> str | None:
    item = os.environ.get("HALL_ITEM", "").strip()
    if item:
        return item
    from hallmark.core.item_lookup import item_for_path

    cwd = payload.get("cwd")
    view = item_for_path(paths, cwd if isinstance(cwd, str) and cwd else paths.toplevel)
    return view.id if view else None


def failures_path(paths: RepoPaths) -> Path:
    return paths.state_dir / "library" / "failures.jsonl"


def capture(paths: RepoPaths, payload: dict[str, Any]) -> None:
    """Record one failed tool call; propose a learning when a knowledge gap reaches two items."""
    if not paths.state_dir.is_dir():
        return
    text = _failure_text(payload)
    if text is None:
        return
    found = classify(text)
    tool_input = raw if isinstance(raw := payload.get("tool_input"), dict) else {}
    whole_command = str(tool_input.get("command") or tool_input.get("file_path") or "")
    command, excerpt = whole_command[:300], text.strip()[:400]
    # judged before the cut (a secret across it would keep its head) and never stored
    margin = secrets.CLIP_MARGIN
    if secrets.scan({"command": whole_command[: 300 + margin], "excerpt": text.strip()[: 400 + margin]}):
        return
    item = _item_for(paths, payload)
    session = str(payload.get("session_id") or "") or None
    record = {
        "kind": found.kind,
        "signature": found.signature,
        "reason": found.reason,
        "tool": payload.get("tool_name"),
        "command": command,
        "excerpt": excerpt,
        "session": session,
    }
    path = failures_path(paths)
    journal.append(path, "failure", item=item, actor="hook", **record)
    if found.kind != "knowledge_gap":
        return
    same = [
        e for e in journal.read(path).events if e.get("event") == "failure" and e.get("signature") == found.signature
    ]
    where = {e.get("item") or f"session:{e.get('session')}" for e in same}
    if len(where) < THRESHOLD_ITEMS:
        return
    _propose(paths, found, same)


def pattern_for(found: Classified) -> str:
    return f"Knowledge gap: {found.reason} (seen as `{found.signature}`); check what the project provides before running it."


def _propose(paths: RepoPaths, found: Classified, events: list[dict[str, Any]]) -> None:
    from . import api

    pattern = pattern_for(found)
    seen_items = {e.get("item") or f"session:{e.get('session')}" for e in events}
    existing = [x for x in api.list_learnings(paths) if x.pattern == pattern]
    if existing:
        # one more item with the same gap: add the latest occurrence as evidence
        if len(seen_items) > existing[0].occurrences:
            latest = events[-1]
            api.propose(
                paths,
                kind="convention",
                pattern=pattern,
                actor="hook",
                origin="failures",
                evidence={
                    "source": "cli_error",
                    "quote": latest.get("excerpt", "")[:300],
                    "item": latest.get("item"),
                    "session": latest.get("session"),
                },
            )
        return
    firsts: dict[str, dict[str, Any]] = {}
    for event in events:
        firsts.setdefault(event.get("item") or f"session:{event.get('session')}", event)
    entries = list(firsts.values())
    first = entries[0]
    api.propose(
        paths,
        kind="convention",
        pattern=pattern,
        actor="hook",
        origin="failures",
        rationale=f"The same failure ({found.signature}) happened in {len(entries)} separate items.",
        evidence={
            "source": "cli_error",
            "quote": first.get("excerpt", "")[:300],
            "item": first.get("item"),
            "session": first.get("session"),
        },
    )
    for event in entries[1:]:
        api.propose(
            paths,
            kind="convention",
            pattern=pattern,
            actor="hook",
            origin="failures",
            evidence={
                "source": "cli_error",
                "quote": event.get("excerpt", "")[:300],
                "item": event.get("item"),
                "session": event.get("session"),
            },
        )
