"""`hall doctor`'s checks for the review loop: can the gates and the ship command run, do the checks
test the worktree's own code, and are the files Hallmark copies into worktrees ignored by git?"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

from .doctor_check import check as _check
from .setup_results import Check

# Words that are not the program a simple command starts.
WRAPPERS = frozenset({"env", "exec", "command", "nohup", "time", "nice", "builtin"})
BUILTINS = frozenset(
    {
        "test",
        "[",
        "[[",
        "true",
        "false",
        ":",
        "echo",
        "printf",
        "cd",
        "exit",
        "export",
        "set",
        "unset",
        "read",
        "eval",
        "source",
        ".",
        "shift",
        "trap",
        "wait",
        "return",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "function",
        "!",
        "{",
        "}",
        "(",
        ")",
        "local",
        "pwd",
        "type",
        "umask",
        "ulimit",
        "alias",
        "break",
        "continue",
    }
)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = {"&&", "||", ";", "|", "&", ";;", "(", ")", "|&"}


def programs_of(command: str) -> list[str]:
    """The programs a shell command line starts: the first word of each simple command, past
    assignments and wrappers; shell builtins and keywords left out. No duplicates, in order."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        words = command.split()
    found: list[str] = []
    start = True
    for word in words:
        if word in _OPERATORS:
            start = True
            continue
        if not start:
            continue
        if _ASSIGNMENT.match(word) or word in WRAPPERS or word.startswith("-"):
            continue
        start = False
        if word in BUILTINS or word.startswith("$") or "{" in word:
            continue
        if word not in found:
            found.append(word)
    return found


def _on_path(program: str, root: Path) -> bool:
    if "/" in program:
        candidate = Path(program) if os.path.isabs(program) else root / program
        return candidate.is_file() and os.access(candidate, os.X_OK)
    return shutil.which(program) is not None


def missing_programs(command: str, root: Path) -> list[str]:
    return [p for p in programs_of(command) if not _on_path(p, root)]


def programs_checks(root: Path, ship: str, gates: list[str]) -> list[Check]:
    """A failed check for each of the ship command and the gates that starts a program not on PATH."""
    out = []
    ship_missing = missing_programs(ship, root)
    if ship_missing:
        out.append(
            _check(
                "ship_programs",
                False,
                f"the ship command starts {', '.join(ship_missing)}, which "
                "is not on PATH: every hallmarked item would be held at shipping",
                f"install {ship_missing[0]}, or set ship in .hallmark.toml",
            )
        )
    else:
        out.append(
            _check(
                "ship_programs",
                True,
                "every program the ship command starts is on PATH: " + (", ".join(programs_of(ship)) or "(none)"),
            )
        )
    missing = {g: m for g in gates if (m := missing_programs(g, root))}
    if missing:
        shown = "; ".join(f"`{g}` starts {', '.join(m)}" for g, m in missing.items())
        first = next(iter(missing.values()))[0]
        out.append(
            _check(
                "gate_programs",
                False,
                f"not on PATH: {shown}; those checks would fail on every item",
                f"install {first}, or edit gates in .hallmark.toml",
            )
        )
    elif gates:
        out.append(_check("gate_programs", True, "every program the gates start is on PATH"))
    return out


def worktree_checks(root: Path, gates: list[str], copies: list[str]) -> list[Check]:
    """Warnings (optional checks): the checks would test the main checkout's code, or a copied file
    is not git-ignored."""
    from .worktree_copy import not_ignored
    from .worktree_env import init_warnings

    out = []
    warnings = init_warnings(root, gates)
    if warnings:
        out.append(
            _check(
                "worktree_code",
                False,
                " ".join(w["text"] for w in warnings),
                "nothing to do for Hallmark's checks; in a worktree run tests with PYTHONPATH=src first",
                optional=True,
            )
        )
    else:
        out.append(_check("worktree_code", True, "no environment the gates use imports from the main checkout"))
    loose = not_ignored(root, copies)
    if loose:
        out.append(
            _check(
                "worktree_copy",
                False,
                f"[worktree] copy lists {', '.join(loose)}, which git does not "
                "ignore: your own git commands in a worktree would show it as a change",
                f"add {loose[0]} to .gitignore",
                optional=True,
            )
        )
    elif copies:
        out.append(_check("worktree_copy", True, "every [worktree] copy path is git-ignored"))
    return out


def loop_checks(root: Path) -> list[Check]:
    """Every loop check, or none when the config does not load (its own check names that)."""
    from .config import load
    from .errors import HallError

    try:
        config = load(root)
    except HallError:
        return []
    return programs_checks(root, config.ship, list(config.gates)) + worktree_checks(
        root, list(config.gates), config.worktree_copy
    )
