"""The outside programs the app starts (`claude`, `$EDITOR`, `git`): found before a key needs them.

A key whose program is missing is greyed in the footer, and pressing it says what to install
instead of ending the app with a traceback. Lookups are cached for the app's life (a PATH search
per footer repaint would be waste); `forget()` clears them.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Program:
    command: tuple[str, ...]  # argv before the target (e.g. ("code", "--wait"))
    missing: str  # "" when found; else what to do about it, in a sentence

    @property
    def found(self) -> bool:
        return not self.missing


INSTALL = {
    "claude": "Install Claude Code (npm install -g @anthropic-ai/claude-code), or set HALL_CLAUDE.",
    "git": "Install git and put it on PATH.",
}


@lru_cache(maxsize=32)
def find(command: tuple[str, ...]) -> Program:
    if not command:
        return Program((), "No program is configured.")
    if shutil.which(command[0]) is None:
        name = os.path.basename(command[0])
        hint = INSTALL.get(name, f"Install {name} or put it on PATH.")
        return Program(command, f"{command[0]} is not on PATH. {hint}")
    return Program(command, "")


def editor() -> Program:
    """$EDITOR, else $VISUAL, else vi (a value may carry arguments: "code --wait")."""
    raw = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    try:
        command = tuple(shlex.split(raw))
    except ValueError:
        return Program((), f"$EDITOR ({raw!r}) does not parse as a command line.")
    found = find(command)
    if found.missing and not (os.environ.get("EDITOR") or os.environ.get("VISUAL")):
        return Program(command, "No editor: set $EDITOR (for example export EDITOR=nano), or install vi.")
    return found


def claude() -> Program:
    """What `T` (take over) starts: HALL_CLAUDE, else `claude` (core.takeover.claude_command)."""
    from hallmark.core.takeover import claude_command

    return find(tuple(claude_command()))


def git() -> Program:
    return find(("git",))


def forget() -> None:
    find.cache_clear()
