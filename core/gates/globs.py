"""A command word bash expands as a pattern: `/usr/bin/g?t`, `gi*`, `./g[i]t`.

bash matches an unquoted word holding `*`, `?` or `[` against the files in the command's
directory, and runs the first match with the others as its first arguments; with no match the
word stays as written (and names no program). `expand` gives those matches; `could_be` says
whether a word that matches nothing now names, as a pattern, a command the gate reads (a file an
earlier command creates could make it match). Loaded only for such a word.
"""

from __future__ import annotations

import fnmatch
import os

from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

GLOB_CHARS = frozenset("*?[")


def is_pattern(text: str) -> bool:
    return any(ch in GLOB_CHARS for ch in text) and text not in ("[", "[[")


def expand(text: str, cwd: str | None) -> list[str] | None:
    """bash's matches for the word, sorted, written as the word wrote them (relative stays
    relative); None when nothing matches or the directory is unknown."""
    import glob

    if "\x00" in text:
        return None  # no path holds a NUL: bash would match nothing
    try:
        if os.path.isabs(text):
            found = sorted(glob.glob(text))
        elif cwd is not None and os.path.isdir(cwd):
            found = sorted(glob.glob(text, root_dir=cwd))
        else:
            return None
    except (OSError, ValueError):
        return None  # an unreadable directory or a name the OS refuses: nothing to expand
    return found or None


def could_be(text: str, names: frozenset[str]) -> str | None:
    """A name the gate reads that the word's last component matches as a pattern, or None."""
    pattern = text.rsplit("/", 1)[-1]
    for name in sorted(names):
        if fnmatch.fnmatchcase(name, pattern):
            return name
    return None


def head_words(an: Analyzer, words: list[Word], cmd: Command, cwd: str | None) -> list[Word] | None:
    """The command's words once bash has expanded a pattern command word: its matches first; the
    words as they were when it is no pattern or matches nothing harmless; None when denied (it
    matches nothing now but names, as a pattern, a command the gate reads)."""
    from .names import COMMAND_WORDS

    raw = words[0].text
    if not is_pattern(raw):
        return words
    matches = expand(raw, cwd)
    if matches:
        return [Word(m) for m in matches] + words[1:]
    known = could_be(raw, COMMAND_WORDS)
    if known is None:
        return words
    an.add(
        "strict",
        f"the command word {raw!r} is a pattern bash may expand to {known}; write the command's own name",
        cmd,
        cwd,
        always=True,
    )
    return None
