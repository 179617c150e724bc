"""Turn a command's output into what a fixer should read: lossless on disk, lossy in context.

Evidence (`git diff|show|log`) passes untouched; small output (<= 2 KB and <= 60 lines)
passes verbatim; otherwise one pure filter per tool family keeps the exit code, every failing
test or error with its file:line, the first message block of each failure, the summary line
and distinct warnings once with a count, and drops ANSI, `\\r` redraws, progress, passing
tests, repeats and timing. A family filter that does not recognise its output falls back to
the generic head-and-tail filter. Stdlib only, no I/O: every filter is a function over text.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

SMALL_BYTES = 2048
SMALL_LINES = 60
HEAD_LINES = 20
TAIL_LINES = 40
BLOCK_LINES = 12  # the first message block of one failure, at most this many lines
MAX_FAILURES = 40  # failures listed in full; the rest are counted
EVIDENCE = frozenset({"diff", "show", "log"})  # git subcommands never condensed (can only grow)

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


@dataclass
class Condensed:
    """The text a fixer reads plus honest measurements of what was cut."""

    text: str
    family: str  # pytest, cargo-test, cargo-build, cargo-fmt, go-test, jest, vitest, generic, verbatim, evidence
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


# -- cleaning ---------------------------------------------------------------------------


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def clean(text: str) -> list[str]:
    """ANSI gone, `\\r` redraws collapsed to what the terminal finally showed, lines split."""
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


def _block(lines: list[str], start: int, stop: Callable[[str], bool], limit: int = BLOCK_LINES) -> list[str]:
    """Lines from start until stop(line) or a blank run, capped at limit (with a marker)."""
    block: list[str] = []
    i = start
    while i < len(lines) and not stop(lines[i]):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
    if len(block) > limit:
        hidden = len(block) - limit
        block = block[:limit] + [f"    … {hidden} more line(s) in the full log"]
    return block


def _cap_failures(entries: list[list[str]]) -> list[str]:
    out: list[str] = []
    for entry in entries[:MAX_FAILURES]:
        out.extend(entry)
    if len(entries) > MAX_FAILURES:
        out.append(f"… and {len(entries) - MAX_FAILURES} more failure(s) in the full log")
    return out


def _warnings(found: dict[str, int]) -> list[str]:
    if not found:
        return []
    out = [f"warnings ({sum(found.values())}, {len(found)} distinct):"]
    for text, count in found.items():
        out.append(f"  {text}" + (f" [x{count}]" if count > 1 else ""))
    return out


# -- command line -----------------------------------------------------------------------


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a line, split on && || ; | and stripped of env assignments."""
    segments: list[list[str]] = [[]]
    for word in _words(command):
        if word in ("&&", "||", ";", "|", "&"):
            segments.append([])
            continue
        segments[-1].append(word)
    cleaned = []
    for seg in segments:
        while seg and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", seg[0]) or seg[0] in ("env", "time", "nice", "exec")):
            seg = seg[1:]
        if seg:
            cleaned.append(seg)
    return cleaned


def is_evidence(command: str) -> bool:
    """`git diff`, `git show`, `git log` (with git's global options) are never condensed."""
    segs = _segments(command)
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
    for words in _segments(command):
        exe = words[0].rsplit("/", 1)[-1]
        rest = words[1:]
        if exe in ("python", "python3", "py") and rest[:2] == ["-m", "pytest"]:
            found = "pytest"
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


# -- the entry point --------------------------------------------------------------------


def footer(log_path: str | None, bytes_in: int, lines_in: int, bytes_out: int, lines_out: int) -> str:
    saved = max(0, (bytes_in - bytes_out) // 4)
    where = f"full log: {log_path} (show a part: sed -n '100,200p' {shlex.quote(log_path)})" if log_path else "full log: not kept"
    return (f"[condensed {bytes_in} B/{lines_in} lines -> {bytes_out} B/{lines_out} lines; "
            f"~{saved} tokens saved (estimate, bytes/4)] {where}")


def condense(command: str, output: str, exit_code: int | None, log_path: str | None = None) -> Condensed:
    """What a fixer should read of one command's output."""
    bytes_in = len(output.encode("utf-8", "replace"))
    raw_lines = output.count("\n") + (1 if output and not output.endswith("\n") else 0)
    if is_evidence(command):
        return Condensed(output, "evidence", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    if bytes_in <= SMALL_BYTES and raw_lines <= SMALL_LINES:
        return Condensed(output, "verbatim", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    lines = clean(output)
    family = family_of(command)
    body: list[str] | None = None
    if family in FILTERS:
        body = FILTERS[family](lines, exit_code)
    if body is None:
        family = "generic"
        body = generic(lines, exit_code)
    head = f"$ {command}  (exit {exit_code if exit_code is not None else '?'})"
    text_lines = [head, *body]
    draft = "\n".join(text_lines)
    bytes_out = len(draft.encode("utf-8")) + 1
    lines_out = len(text_lines) + 1
    text = draft + "\n" + footer(log_path, bytes_in, raw_lines, bytes_out, lines_out) + "\n"
    bytes_out = len(text.encode("utf-8"))
    return Condensed(text, family, exit_code, bytes_in, bytes_out, raw_lines, lines_out, log_path)


# -- the generic filter -----------------------------------------------------------------


def generic(lines: list[str], exit_code: int | None = None) -> list[str]:
    """The first 20 and last 40 lines, repeats as [xN]."""
    lines = collapse_repeats(lines)
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return lines
    hidden = len(lines) - HEAD_LINES - TAIL_LINES
    return [*lines[:HEAD_LINES], f"… {hidden} line(s) omitted …", *lines[-TAIL_LINES:]]


Filter = Callable[[list[str], "int | None"], "list[str] | None"]
FILTERS: dict[str, Filter] = {}
