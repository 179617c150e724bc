"""Reading the command line: evidence that is never condensed, and which family's filter applies."""

from __future__ import annotations

import re
import shlex

EVIDENCE = frozenset({"diff", "show", "log"})  # git subcommands never condensed (can only grow)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def segments(command: str) -> list[list[str]]:
    """The simple commands of a line, split on && || ; | and stripped of env assignments."""
    parts: list[list[str]] = [[]]
    for word in _words(command):
        if word in ("&&", "||", ";", "|", "&"):
            parts.append([])
            continue
        parts[-1].append(word)
    cleaned = []
    for seg in parts:
        while seg and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", seg[0]) or seg[0] in ("env", "time", "nice", "exec")):
            seg = seg[1:]
        if seg:
            cleaned.append(seg)
    return cleaned


def is_evidence(command: str) -> bool:
    """`git diff`, `git show`, `git log` (with git's global options) are never condensed."""
    segs = segments(command)
    if len(segs) != 1:
        return False
    words = segs[0]
    if not words or words[0].rsplit("/", 1)[-1] != "git":
        return False
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    return i < len(words) and words[i] in EVIDENCE


def family_of(command: str) -> str:
    """Pick the filter from the command line (the last recognised tool wins)."""
    found = "generic"
    for words in segments(command):
        exe = words[0].rsplit("/", 1)[-1]
        rest = words[1:]
        python = exe.startswith("python") or exe == "py"
        if python and rest[:2] == ["-m", "pytest"]:
            found = "pytest"
        elif python and rest[:2] == ["-m", "unittest"]:
            found = "unittest"
        elif exe in ("pytest", "py.test") or (exe in ("uv", "poetry", "pdm", "hatch") and "pytest" in rest):
            found = "pytest"
        elif exe == "cargo" and rest:
            sub = next((w for w in rest if not w.startswith("-") and not w.startswith("+")), "")
            if sub in ("test", "nextest"):
                found = "cargo-test"
            elif sub in ("build", "check", "clippy", "b", "c"):
                found = "cargo-build"
            elif sub == "fmt":
                found = "cargo-fmt"
        elif exe == "go" and rest[:1] == ["test"]:
            found = "go-test"
        elif exe in ("jest", "vitest"):
            found = exe
        elif exe in ("npx", "pnpm", "yarn", "bunx", "npm", "bun"):
            if "vitest" in rest:
                found = "vitest"
            elif "jest" in rest:
                found = "jest"
    return found
