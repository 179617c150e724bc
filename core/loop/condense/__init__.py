"""Turn a command's output into what a fixer should read: lossless on disk, lossy in context.

Evidence (`git diff|show|log`) passes untouched; small output (<= 2 KB and <= 60 lines) passes
verbatim; otherwise one pure filter per tool family (a module each: pytest, unittest, cargo, go,
jest and vitest; the generic head-and-tail filter when none recognises its output) finds the
failures, the totals and the failing test IDs, and found.py renders them within a budget:
whole lines only, whole failure blocks dropped from the middle and counted, identical
tracebacks folded with a count, the totals, the ID list and the footer (the full log, and the
line range where the first failure is) always kept. Stdlib only, no I/O.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .cargo_log import filter_cargo_build, filter_cargo_fmt, filter_cargo_test
from .command import EVIDENCE, family_of, is_evidence, segments  # noqa: F401 - the public surface
from .found import BLOCK_LINES, BUDGET, Found  # noqa: F401
from .generic import HEAD_LINES, TAIL_LINES, generic  # noqa: F401
from .go_log import filter_go_test
from .js_log import filter_jest, filter_vitest
from .pytest_log import filter_pytest
from .sniff import sniff
from .text import clean, collapse_repeats, strip_ansi  # noqa: F401
from .unittest_log import filter_unittest

SMALL_BYTES = 2048
SMALL_LINES = 60
PART_LINES = 60  # the footer's "a part of it": this many lines from the first failure


@dataclass
class Condensed:
    """The text a fixer reads plus honest measurements of what was cut."""

    text: str
    family: (
        str  # pytest, unittest, cargo-test, cargo-build, cargo-fmt, go-test, jest, vitest, generic, verbatim, evidence
    )
    exit_code: int | None
    bytes_in: int
    bytes_out: int
    lines_in: int
    lines_out: int
    log_path: str | None = None

    @property
    def condensed(self) -> bool:
        return self.family not in ("verbatim", "evidence")

    @property
    def tokens_saved_estimate(self) -> int:
        """An estimate (bytes/4), labelled as one wherever it is shown."""
        return max(0, (self.bytes_in - self.bytes_out) // 4)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["condensed"] = self.condensed
        data["tokens_saved_estimate"] = self.tokens_saved_estimate
        return data


Filter = Callable[[list[str], "int | None"], "Found | None"]
FILTERS: dict[str, Filter] = {
    "pytest": filter_pytest,
    "unittest": filter_unittest,
    "cargo-test": filter_cargo_test,
    "cargo-build": filter_cargo_build,
    "cargo-fmt": filter_cargo_fmt,
    "go-test": filter_go_test,
    "jest": filter_jest,
    "vitest": filter_vitest,
}


def condense_lines(
    family: str, lines: list[str], exit_code: int | None, budget: int | None = BUDGET
) -> tuple[str, list[str], int | None]:
    """The family actually used (a filter that does not recognise its output falls back), the body,
    and the log line where the first failure is (0-based), when the filter knows it."""
    chosen = FILTERS.get(family)
    found = chosen(lines, exit_code) if chosen else None
    if found is None:
        return "generic", generic(lines, exit_code, budget), None
    return family, found.render(lines, exit_code, budget), found.first_line


def footer(
    log_path: str | None, bytes_in: int, lines_in: int, bytes_out: int, lines_out: int, first_line: int | None = None
) -> str:
    saved = max(0, (bytes_in - bytes_out) // 4)
    if log_path:
        start = (first_line or 0) + 1
        end = start + PART_LINES - 1
        where = (
            (
                f"full log: {log_path} (the first failure, lines {start}-{end}: "
                f"sed -n '{start},{end}p' {shlex.quote(log_path)})"
            )
            if first_line is not None
            else f"full log: {log_path} (a part of it: sed -n '1,{PART_LINES}p' {shlex.quote(log_path)})"
        )
    else:
        where = "full log: not kept"
    return (
        f"[condensed {bytes_in} B/{lines_in} lines -> {bytes_out} B/{lines_out} lines; "
        f"~{saved} tokens saved (estimate, bytes/4)] {where}"
    )


def condense(
    command: str, output: str, exit_code: int | None, log_path: str | None = None, budget: int = BUDGET
) -> Condensed:
    """What a fixer should read of one command's output, in at most about `budget` characters."""
    bytes_in = len(output.encode("utf-8", "replace"))
    raw_lines = output.count("\n") + (1 if output and not output.endswith("\n") else 0)
    if is_evidence(command):
        return Condensed(output, "evidence", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    if bytes_in <= SMALL_BYTES and raw_lines <= SMALL_LINES:
        return Condensed(output, "verbatim", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    lines = clean(output)
    family = family_of(command)
    if family == "generic":
        family = sniff(lines)
    head = f"$ {command}  (exit {exit_code if exit_code is not None else '?'})"
    room = max(
        1000, budget - len(head) - 1 - len(footer(log_path, bytes_in, raw_lines, bytes_in, raw_lines, 10**6)) - 1
    )
    family, body, first_line = condense_lines(family, lines, exit_code, room)
    if sum(len(x) + 1 for x in body) >= bytes_in:  # condensing would not save anything: say it all
        return Condensed(output, "verbatim", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    text_lines = [head, *body]
    draft = "\n".join(text_lines) + "\n"
    lines_out = len(text_lines) + 1
    bytes_out = len(draft.encode("utf-8"))
    for _ in range(4):  # the footer states the size of the text that includes it: settle the digits
        text = draft + footer(log_path, bytes_in, raw_lines, bytes_out, lines_out, first_line) + "\n"
        if len(text.encode("utf-8")) == bytes_out:
            break
        bytes_out = len(text.encode("utf-8"))
    return Condensed(text, family, exit_code, bytes_in, bytes_out, raw_lines, lines_out, log_path)
