"""Which Claude Code is installed, and is it new enough: one owner for `claude --version`.

The gate hooks fail closed only through `"onFailure": "block"`, which Claude Code honours from
2.1.295 (older versions ignore it, so a gate hook that cannot start lets the tool call through).
Hallmark's tests pin one exact version (PINNED, installed by `.ci/run`). Stdlib only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from .errors import HallError

MINIMUM = (2, 1, 295)  # the first version that honours onFailure: "block" on a hook
PINNED = "2.1.332"  # what the tests install and what every behaviour in core/runner was confirmed with
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)\.(\d+)\S*\s+\(Claude Code\)")
_cache: dict[tuple[str, float], str | None] = {}


def minimum_text() -> str:
    return ".".join(map(str, MINIMUM))


def parse_version(text: str) -> tuple[int, int, int] | None:
    """`2.1.332 (Claude Code)` -> (2, 1, 332); anything else (a stand-in, a wrapper) -> None."""
    match = _VERSION.match(text or "")
    return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


def version_text(command: list[str], timeout: float = 20.0) -> str | None:
    """What `<command> --version` prints (cached per executable and its mtime); None if it fails."""
    exe = shutil.which(command[0]) or command[0]
    try:
        key = (str(Path(exe).resolve()) + " " + " ".join(command[1:]), os.path.getmtime(exe))
    except OSError:
        return None
    if key in _cache:
        return _cache[key]
    try:
        proc = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        text: str | None = proc.stdout.strip() if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        text = None
    _cache[key] = text
    return text


def is_claude_code(command: list[str]) -> bool:
    """True when the command is the real Claude Code CLI (it prints `X.Y.Z (Claude Code)`)."""
    return parse_version(version_text(command) or "") is not None


def check_minimum(command: list[str]) -> tuple[int, int, int] | None:
    """The version when it is Claude Code; raises RUN_FAILED when it is older than MINIMUM.

    A command that is not Claude Code (a wrapper script, Hallmark's stand-in) returns None: there
    is nothing to compare, and `hall doctor` says so."""
    version = parse_version(version_text(command) or "")
    if version is not None and version < MINIMUM:
        shown = ".".join(map(str, version))
        raise HallError(
            "RUN_FAILED",
            f"Claude Code {shown} is older than {minimum_text()}, the first version whose gate hooks "
            "fail closed (onFailure); Hallmark will not start a headless run with it.",
            ["claude update", f"npm install -g @anthropic-ai/claude-code@{PINNED}", "hall doctor"],
        )
    return version


def find_claude() -> list[str] | None:
    """The `claude` on PATH, when it is the real Claude Code."""
    found = shutil.which("claude")
    if found and is_claude_code([found]):
        return [found]
    return None
