"""The generic filter: the first 20 and last 40 lines, repeats as [xN], error-looking and file:line
lines rescued from the middle. Every family filter that does not recognise its output falls back here."""

from __future__ import annotations

import re

from .text import collapse_repeats

HEAD_LINES = 20
TAIL_LINES = 40


_ALARM = re.compile(
    r"\b(error|errors|failed|failure|fatal|panic|panicked|exception|traceback)\b"
    r"|^\s*[\w./\\-]+\.\w+:\d+(:\d+)?:? ",
    re.I,
)  # alarm words, or a file:line location


LONG_LINE = 1000  # a longer line is named, not shown: it would be cut, and a cut line misleads


def _whole(lines: list[str]) -> list[str]:
    return [ln if len(ln) <= LONG_LINE else f"[a line of {len(ln)} characters: see the full log]" for ln in lines]


def fit_lines(out: list[str], budget: int | None) -> list[str]:
    """Whole lines from the middle dropped (and counted) until the text fits the budget."""
    if budget is None or sum(len(x) + 1 for x in out) <= budget:
        return out
    used = 80  # the marker
    i, j = 0, len(out) - 1
    while i <= j and used + len(out[i]) + 1 <= budget * 2 // 3:
        used += len(out[i]) + 1
        i += 1
    while j >= i and used + len(out[j]) + 1 <= budget:
        used += len(out[j]) + 1
        j -= 1
    return [*out[:i], f"… {j - i + 1} more line(s) omitted here (see the full log) …", *out[j + 1 :]]


def generic(lines: list[str], exit_code: int | None = None, budget: int | None = None) -> list[str]:
    """The first 20 and last 40 lines, repeats as [xN]; error-looking lines from the middle survive."""
    lines = _whole(collapse_repeats(lines))
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return fit_lines(lines, budget)
    middle = lines[HEAD_LINES:-TAIL_LINES]
    alarms = [ln for ln in middle if _ALARM.search(ln)]
    out = [*lines[:HEAD_LINES], f"… {len(middle)} line(s) omitted …"]
    if alarms:
        out.append(f"error-looking or file:line lines among them ({len(alarms)}):")
        out.extend(alarms[:HEAD_LINES])
        if len(alarms) > HEAD_LINES:
            out.append(f"… and {len(alarms) - HEAD_LINES} more")
    out.extend(lines[-TAIL_LINES:])
    return fit_lines(out, budget)
