"""Cleaning a tool's output before any filter reads it: ANSI gone, `\\r` redraws collapsed, repeats counted."""

from __future__ import annotations

import re

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b"
)  # a stray ESC goes too


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def clean(text: str) -> list[str]:
    """ANSI gone, `\\r` redraws collapsed to what the terminal finally showed, lines split.

    Line i of the result is line i+1 of the log, so filters can point into the full log."""
    text = strip_ansi(text).replace("\r\n", "\n")
    lines = []
    for line in text.split("\n"):
        if "\r" in line:
            parts = [p for p in line.split("\r") if p.strip()]
            line = parts[-1] if parts else ""
        lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def collapse_repeats(lines: list[str]) -> list[str]:
    """Consecutive identical lines become one line with `[xN]`."""
    out: list[str] = []
    previous: str | None = None
    count = 0
    for line in lines:
        if line == previous:
            count += 1
            continue
        if previous is not None:
            out.append(previous if count == 1 else f"{previous} [x{count}]")
        previous, count = line, 1
    if previous is not None:
        out.append(previous if count == 1 else f"{previous} [x{count}]")
    return out
