"""The plan every runner grammar returns (Step), its limits, and the helpers they share: reading a
runner's file with a size cap, joining a path onto a directory we may not know, and the rule that
text mentioning push or release is worth a strict step when it cannot be followed."""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

RUNNERS = frozenset({"make", "gmake", "just", "npm", "pnpm", "yarn", "bun"})
FILE_LIMIT = 1_048_576
MENTION = r"(?i)(?<![a-z])(push|release)(?![a-z])"  # do_release and git-push count too
SHELL_NAMES = ("sh", "bash", "zsh", "dash", "ksh", "ash")
MAX_FOLLOW = 64  # targets/recipes/scripts followed for one command (prerequisites included)


class Step:
    __slots__ = ("cwd", "kind", "label", "text")

    def __init__(self, kind: str, label: str, text: str = "", cwd: str | None = None) -> None:
        self.kind = kind  # "run" or "strict"
        self.label = label  # "Makefile target publish" (run) or the reason (strict)
        self.text = text
        self.cwd = cwd

    def __repr__(self) -> str:
        return f"Step({self.kind!r}, {self.label!r})"


def mentions(text: str) -> bool:
    return bool(re.search(MENTION, text))


def read_capped(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read(FILE_LIMIT + 1)
    if len(data) > FILE_LIMIT:
        raise ValueError(f"over {FILE_LIMIT} bytes")
    return data.decode("utf-8", "replace")


def join(cwd: str | None, path: str | None) -> str | None:
    """path made absolute against cwd; None when either is unknown (and path is relative)."""
    if path is None:
        return None
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd, path)) if cwd else None


def unreadable(what: str, error: Exception) -> Step:
    return Step("strict", f"{what} cannot be read ({type(error).__name__}: {error})")


def find_up(start: str, names: tuple[str, ...]) -> str | None:
    """The first of names in start or the nearest directory above it."""
    directory = start
    while True:
        for name in names:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def follow(
    first: list[str | None],
    visit: Callable[[str, list[str | None]], list[Step]],
    unknown: Callable[[], Step | None],
    too_many: str,
    resolve: Callable[[str], str | None] = lambda name: name,
) -> list[Step]:
    """Targets or recipes breadth first from `first`, each once: visit(name, queue) gives a name's
    steps and queues what it needs. None in the queue is a name we cannot know (unknown() says
    whether that is strict); resolve() turns a name into the one followed (None: skip it); past
    MAX_FOLLOW names, a strict step saying too_many ends it."""
    steps: list[Step] = []
    seen: set[str] = set()
    queue = list(first)
    while queue:
        name = queue.pop(0)
        if name is None:
            found = unknown()
            if found is not None:
                steps.append(found)
            continue
        resolved = resolve(name)
        if resolved is None or resolved in seen:
            continue
        seen.add(resolved)
        if len(seen) > MAX_FOLLOW:
            steps.append(Step("strict", too_many))
            break
        steps += visit(resolved, queue)
    return steps
