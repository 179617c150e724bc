"""Path globs as people write them: `src/**/*.ts`, `docs/`, `*.md`, `core/memory/*`.

`**/` matches zero or more directories, `*` and `?` stay inside one path component, a glob
ending in `/` means everything under that directory, and a glob without a `/` matches the file
name at any depth (like .gitignore). Stdlib only.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1024)
def compile_glob(glob: str) -> re.Pattern[str]:
    text = glob.strip()
    if text.startswith("./"):
        text = text[2:]
    if text.endswith("/"):
        text += "**"
    anywhere = "/" not in text.rstrip("/")
    out, index = [], 0
    while index < len(text):
        if text.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif text.startswith("**", index):
            out.append(".*")
            index += 2
        elif text[index] == "*":
            out.append("[^/]*")
            index += 1
        elif text[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(text[index]))
            index += 1
    body = "".join(out)
    return re.compile(("(?:.*/)?" if anywhere else "") + body + "$")


def match(path: str, glob: str) -> bool:
    clean = path.strip().lstrip("/")
    if clean.startswith("./"):
        clean = clean[2:]
    return bool(compile_glob(glob).match(clean))


def any_match(paths: list[str], globs: list[str]) -> bool:
    """True when a changed path falls under a glob, or a changed glob names the same place."""
    for glob in globs:
        for path in paths:
            if (
                match(path, glob)
                or path.strip() == glob.strip()
                or (any(c in path for c in "*?") and match(glob.rstrip("*/") or glob, path))
            ):
                return True
    return False
