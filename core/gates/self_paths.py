"""Paths that name the writing process itself: `/proc/self/cwd/x`, `/dev/fd/../cwd/x`,
`/proc/thread-self/root/…`, read for the process that will open them, never the hook's own.

`/dev/fd` is `/proc/self/fd`, so `/dev/fd/..` is `/proc/self` and `/dev/fd/../cwd/.hallmark.toml` is
the command's own directory's `.hallmark.toml`; a lexical normpath would make it `/dev/cwd/…`, a
file that does not exist. The components are walked the way the kernel follows them, with those
links replaced by what they are for the command: its directory (cwd) and the root. Stdlib only.
"""

from __future__ import annotations

import re

UNKNOWN_PROCESS = "\x00process"  # /proc/<pid>/cwd of some other process: the gate cannot know
_LINKS = {
    "/dev/fd": "/proc/self/fd",
    "/dev/stdin": "/proc/self/fd/0",
    "/dev/stdout": "/proc/self/fd/1",
    "/dev/stderr": "/proc/self/fd/2",
    "/proc/thread-self": "/proc/self",
}


def names_self(path: str) -> bool:
    """Does the path go through /proc or /dev/fd anywhere (`x/../../dev/fd/..` too)?"""
    return "/proc/" in path or "/dev/fd" in path or "/dev/std" in path or path in ("/proc", "/proc/self")


def resolve(path: str, cwd: str) -> str | None:
    """The path with the process's own links followed for a process running in cwd: None for a
    file descriptor (`/dev/fd/3`: whatever file it already is), UNKNOWN_PROCESS for another
    process's directory; any other path as it is."""
    if not names_self(path):
        return path
    stack: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack:
                stack.pop()
            continue
        stack.append(part)
        joined = "/" + "/".join(stack)
        if joined in _LINKS:
            stack = _LINKS[joined].strip("/").split("/")
        if len(stack) == 4 and stack[:2] == ["proc", "self"] and stack[2] == "task":
            stack = ["proc", "self"]  # /proc/self/task/<tid> is the process again
        if len(stack) == 3 and stack[0] == "proc" and stack[2] in ("cwd", "root"):
            if stack[1] != "self":
                return UNKNOWN_PROCESS if re.fullmatch(r"\d+", stack[1]) else "/" + "/".join(stack)
            stack = [p for p in cwd.split("/") if p] if stack[2] == "cwd" else []
        elif len(stack) == 4 and stack[:3] == ["proc", "self", "fd"]:
            return None
    return "/" + "/".join(stack)
