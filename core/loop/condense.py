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

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b")  # a stray ESC goes too


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


# -- the generic filter -----------------------------------------------------------------


_ALARM = re.compile(r"\b(error|errors|failed|failure|fatal|panic|panicked|exception|traceback)\b"
                    r"|^\s*[\w./\\-]+\.\w+:\d+(:\d+)?:? ", re.I)  # alarm words, or a file:line location


def generic(lines: list[str], exit_code: int | None = None) -> list[str]:
    """The first 20 and last 40 lines, repeats as [xN]; error-looking lines from the middle survive."""
    lines = collapse_repeats(lines)
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return lines
    middle = lines[HEAD_LINES:-TAIL_LINES]
    alarms = [ln for ln in middle if _ALARM.search(ln)]
    out = [*lines[:HEAD_LINES], f"… {len(middle)} line(s) omitted …"]
    if alarms:
        out.append(f"error-looking or file:line lines among them ({len(alarms)}):")
        out.extend(alarms[:HEAD_LINES])
        if len(alarms) > HEAD_LINES:
            out.append(f"… and {len(alarms) - HEAD_LINES} more")
    out.extend(lines[-TAIL_LINES:])
    return out


# -- what a family filter finds ---------------------------------------------------------


@dataclass
class Found:
    """What a family filter pulled out of a log, rendered the same way for every family."""

    failures: list[list[str]]
    summary: list[str]
    warnings: dict[str, int]
    notes: list[str]

    @classmethod
    def empty(cls) -> Found:
        return cls([], [], {}, [])

    def render(self, lines: list[str], exit_code: int | None) -> list[str]:
        out: list[str] = []
        if self.failures:
            out.append(f"failures ({len(self.failures)}):")
            out.extend(_cap_failures(self.failures))
        out.extend(_warnings(self.warnings))
        out.extend(self.notes)
        if self.summary:
            out.append("summary:")
            out.extend(f"  {s}" for s in self.summary)
        if exit_code not in (0, None) and not self.failures:
            # Red, yet nothing recognisable failed: show how the output ended rather than hide it.
            tail = collapse_repeats([ln for ln in lines if ln.strip()])[-TAIL_LINES // 2:]
            out.append("last lines of the output:")
            out.extend(tail)
        return out


_SECTION = re.compile(r"^={3,} ?(.*?) ?={3,}$")


def _strip_rule(line: str, char: str = "=") -> str:
    return line.strip().strip(char).strip()


# -- pytest -----------------------------------------------------------------------------

_PY_TITLE = re.compile(r"^_{3,} (.+?) _{3,}$")
_PY_LOCATION = re.compile(r"^(\S+?\.py):(\d+):(.*)$")
_PY_CAPTURED = re.compile(r"^-{3,} Captured .* -{3,}$")
_PY_WARNING = re.compile(r"^\s+(\S+:\d+: \w*Warning: .*)$")
_PY_QUIET_SUMMARY = re.compile(r"^(\d+ (passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)"
                               r"\b.*|no tests ran) in [\d.]+s\b")
_PY_SUMMARY = re.compile(r"\b(\d+ (passed|failed|error|errors|skipped|xfailed|xpassed|warnings?|deselected)|no tests ran)\b")


def filter_pytest(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    section = ""
    current: list[str] | None = None
    skipping_capture = False
    warning_ids = 0
    recognised = False
    for line in lines:
        match = _SECTION.match(line)
        if match and len(line) >= 20:
            section = match.group(1).lower()
            current = None
            skipping_capture = False
            if "test session starts" in section:
                recognised = True
            elif _PY_SUMMARY.search(section):
                found.summary.append(match.group(1))
                recognised = True
            continue
        if _PY_QUIET_SUMMARY.match(line):  # -q prints the summary line without its rule
            found.summary.append(line.strip())
            recognised = True
            continue
        if line.startswith("!!!") and "!!!" in line[3:]:
            found.summary.append(_strip_rule(line, "!"))
            continue
        if section in ("failures", "errors"):
            title = _PY_TITLE.match(line)
            if title:
                current = [f"{'ERROR' if section == 'errors' else 'FAILED'} {title.group(1)}"]
                found.failures.append(current)
                skipping_capture = False
                continue
            if _PY_CAPTURED.match(line):
                skipping_capture = True
                continue
            if current is None or skipping_capture:
                continue
            stripped = line.strip()
            if stripped.startswith(">") or line.startswith("E ") or stripped.startswith("E   "):
                current.append("  " + line.rstrip())
            elif _PY_LOCATION.match(stripped):
                current.append("  " + stripped.rstrip(": ").rstrip())
            continue
        if section == "warnings summary":
            warn = _PY_WARNING.match(line)
            if warn:
                found.warnings[warn.group(1)] = found.warnings.get(warn.group(1), 0) + max(1, warning_ids)
                warning_ids = 0
            elif line and not line[0].isspace() and "::" in line:
                warning_ids += 1
            continue
        if section == "short test summary info" and line.startswith(("FAILED ", "ERROR ")):
            found.notes.append(line)
            continue
    if not recognised and not found.failures:
        return None
    for entry in found.failures:
        _cap_entry(entry)
    if found.notes:
        found.notes.insert(0, "short test summary:")
    return found


def _cap_entry(entry: list[str]) -> None:
    if len(entry) > BLOCK_LINES + 1:
        hidden = len(entry) - BLOCK_LINES - 1
        del entry[BLOCK_LINES + 1:]
        entry.append(f"    … {hidden} more line(s) in the full log")


# -- cargo ------------------------------------------------------------------------------

_RUST_DIAG = re.compile(r"^(error|warning)(\[\w+\])?: (.*)$")
_RUST_LOCATION = re.compile(r"^\s*--> (\S+:\d+(?::\d+)?)")
_CARGO_NOISE = re.compile(r"^\s*(Compiling|Checking|Downloaded|Downloading|Updating|Fresh|Blocking|Locking|Adding|"
                          r"Documenting|Finished|Running|Doc-tests|Installing|Installed|Packaging|Verifying)\b")
_CARGO_SUMMARY = re.compile(r"^(warning: `[^`]+` \(.*\) generated \d+ warnings?|error: could not compile|"
                            r"error: test failed|error: test run failed|error: \d+ target failed|Some errors have detailed|"
                            r"For more information about)")
_RUST_PANIC = re.compile(r"^thread '([^']+)' panicked at (.*)$")


def _rust_diagnostics(lines: list[str], found: Found) -> bool:
    """rustc/clippy diagnostics: each error block kept (capped), warnings once with a count."""
    seen = False
    error_heads: set[str] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if _CARGO_SUMMARY.match(line):
            found.summary.append(line)
            seen = True
            i += 1
            continue
        diag = _RUST_DIAG.match(line)
        if not diag:
            i += 1
            continue
        seen = True
        block = [line]
        j = i + 1
        while j < len(lines) and lines[j].strip() and not _RUST_DIAG.match(lines[j]) and not _CARGO_NOISE.match(lines[j]):
            block.append(lines[j])
            j += 1
        where = next((m.group(1) for m in map(_RUST_LOCATION.match, block) if m), None)
        if diag.group(1) == "error":
            if line in error_heads:  # the same error again: its location is what is new
                entry = [line, f"  --> {where} (explained above)" if where else "  (explained above)"]
            else:
                error_heads.add(line)
                entry = block[:BLOCK_LINES]
                if len(block) > BLOCK_LINES:
                    entry.append(f"    … {len(block) - BLOCK_LINES} more line(s) in the full log")
            found.failures.append(entry)
        else:
            key = f"{line}" + (f" --> {where}" if where else "")
            headline_seen = next((k for k in found.warnings if k.startswith(line + " -->") or k == line), None)
            if headline_seen:  # the same warning elsewhere: count it under its first location
                found.warnings[headline_seen] += 1
            else:
                found.warnings[key] = 1
        i = j
    return seen


def filter_cargo_build(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    seen = _rust_diagnostics(lines, found)
    if not seen and not any(_CARGO_NOISE.match(ln) for ln in lines):
        return None
    finished = [ln.strip() for ln in lines if ln.strip().startswith("Finished ")]
    found.summary.extend(finished[-1:])
    return found


_NEXTEST_STATUS = re.compile(r"^\s*(FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|LEAK-FAIL|ABORT)\s+\[\s*[\d.]+s\]\s+(.+?)\s*$")
_NEXTEST_OUTPUT = re.compile(r"^[\s\-─]*(STDOUT|STDERR):\s+(.+?)[\s\-─]*$")
_NEXTEST_SUMMARY = re.compile(r"^\s*Summary \[")


def _filter_nextest(lines: list[str], found: Found) -> Found:
    """`cargo nextest run`: FAIL lines, each failing test's panic from its captured output, the Summary."""
    by_name: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        status = _NEXTEST_STATUS.match(line)
        output = _NEXTEST_OUTPUT.match(line)
        if status:
            name = status.group(2)
            if name not in by_name:
                by_name[name] = [f"{status.group(1)} {name}"]
                found.failures.append(by_name[name])
        elif output:
            name = output.group(2)
            entry = by_name.setdefault(name, [f"FAIL {name}"])
            if entry not in found.failures:
                found.failures.append(entry)
            j = i + 1
            keep = False
            while j < len(lines) and not _NEXTEST_OUTPUT.match(lines[j]) and not re.match(r"^\s+(PASS|FAIL|SKIP|SIGSEGV|TIMEOUT)\s+\[", lines[j]) \
                    and not _NEXTEST_SUMMARY.match(lines[j]) and not lines[j].startswith("------------"):
                text = lines[j]
                panic = _RUST_PANIC.match(text)
                if panic:
                    keep = True
                    entry.append(f"  panicked at {panic.group(2)}")
                elif keep and text.strip() and not text.startswith("note: run with `RUST_BACKTRACE"):
                    entry.append("  " + text)
                j += 1
            _cap_entry(entry)
            i = j
            continue
        elif _NEXTEST_SUMMARY.match(line):
            found.summary.append(line.strip())
        i += 1
    return found


def filter_cargo_test(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    if any(_NEXTEST_SUMMARY.match(ln) or re.match(r"^\s*Starting \d+ tests? across", ln) for ln in lines):
        _rust_diagnostics(lines, found)
        return _filter_nextest(lines, found)
    recognised = _rust_diagnostics(lines, found)
    results: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("test result:"):
            results.append(line)
            recognised = True
        elif line.startswith("---- ") and line.rstrip().endswith(" ----"):
            recognised = True
            name = line.strip("- ").removesuffix(" stdout").removesuffix(" stderr")
            entry = [f"FAILED {name}"]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("---- ") and lines[j] != "failures:":
                text = lines[j]
                if text.strip() and not text.startswith("note: run with `RUST_BACKTRACE"):
                    panic = _RUST_PANIC.match(text)
                    entry.append("  " + (f"panicked at {panic.group(2)}" if panic else text))
                j += 1
            _cap_entry(entry)
            found.failures.append(entry)
            i = j
            continue
        elif re.match(r"^test \S+ \.\.\. FAILED$", line):
            recognised = True
        i += 1
    if not recognised:
        return None
    failing = [r for r in results if "FAILED" in r]
    found.summary[:0] = failing
    passing = len(results) - len(failing)
    if passing:
        found.summary.append(f"{passing} test binar{'y' if passing == 1 else 'ies'} ok")
    # compile errors in a test build end with "could not compile"; listed tests come from the ---- blocks
    return found


_FMT_DIFF = re.compile(r"^Diff in (\S+?)(?: at line (\d+)|:(\d+)):\s*$")


def filter_cargo_fmt(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    blocks: list[list[str]] = []
    for line in lines:
        match = _FMT_DIFF.match(line)
        if match:
            where = f"{match.group(1)}:{match.group(2) or match.group(3)}"
            blocks.append([f"not formatted: {where}"])
        elif blocks and line[:1] in ("+", "-"):
            blocks[-1].append(line)
    if not blocks:
        return None
    for number, block in enumerate(blocks):
        added = sum(1 for ln in block[1:] if ln.startswith("+"))
        removed = sum(1 for ln in block[1:] if ln.startswith("-"))
        entry = [f"{block[0]} (+{added} -{removed})"]
        if number < 3:
            entry.extend("    " + ln for ln in block[1:BLOCK_LINES])
        found.failures.append(entry)
    files = sorted({b[0].split(": ", 1)[1].rsplit(":", 1)[0] for b in blocks})
    found.summary.append(f"{len(blocks)} unformatted hunk(s) in {len(files)} file(s); `cargo fmt` rewrites them")
    return found


# -- go test ----------------------------------------------------------------------------

_GO_RUN = re.compile(r"^\s*=== (RUN|CONT|PAUSE|NAME)\s+(\S+)")
_GO_RESULT = re.compile(r"^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(([\d.]+s)\)")
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(\(cached\)\s+)?([\d.]+s|\[.*\]|\(.*\)).*$")
_GO_BUILD = re.compile(r"^# (\S+)")
_GO_FILE_LINE = re.compile(r"^\s*\S+\.go:\d+(?::\d+)?:")


def filter_go_test(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    pending: dict[str, list[str]] = {}
    current: str | None = None
    after: list[str] | None = None  # the failure whose indented log lines follow it (non -v output)
    ok_packages = 0
    recognised = False
    i = 0
    while i < len(lines):
        line = lines[i]
        run = _GO_RUN.match(line)
        result = _GO_RESULT.match(line)
        package = _GO_PACKAGE.match(line)
        if run:
            current = run.group(2)
            after = None
            recognised = True
        elif result:
            recognised = True
            name = result.group(3)
            logs = pending.pop(name, [])
            if result.group(2) == "FAIL":
                entry = [f"--- FAIL: {name} ({result.group(4)})", *logs]
                found.failures.append(entry)
                after = entry
            else:
                after = None
        elif package:
            recognised = True
            after = None
            if package.group(1) == "ok":
                ok_packages += 1
            else:
                found.summary.append(re.sub(r"\s+", " ", line))
        elif line.startswith("panic: "):
            recognised = True
            entry = [line]
            j = i + 1
            while j < len(lines) and not _GO_PACKAGE.match(lines[j]) and not lines[j].startswith("exit status"):
                text = lines[j]
                frame = text.strip()
                if _GO_FILE_LINE.match(text) or (frame.startswith("/") and ".go:" in frame):
                    if "/go/src/" not in frame and "/libexec/src/" not in frame:
                        entry.append("  " + frame.split(" +0x")[0])
                j += 1
            if after is not None and after in found.failures:
                after.extend("  " + e for e in entry)
            else:
                found.failures.append(entry)
            _cap_entry(after if after is not None and after in found.failures else entry)
            i = j
            continue
        elif _GO_BUILD.match(line):
            recognised = True
            entry = [f"build failed: {_GO_BUILD.match(line).group(1)}"]
            j = i + 1
            while j < len(lines) and _GO_FILE_LINE.match(lines[j]):
                entry.append("  " + lines[j].strip())
                j += 1
            _cap_entry(entry)
            found.failures.append(entry)
            i = j
            continue
        elif line.startswith((" ", "\t")) and line.strip():
            if after is not None:
                after.append("  " + line.strip())
            elif current is not None:
                pending.setdefault(current, []).append("  " + line.strip())
        i += 1
    if not recognised:
        return None
    # A parent test fails because a subtest did; with nothing of its own to say it is noise.
    names = _failed_names(found)
    found.failures = [e for e in found.failures if len(e) > 1 or not any(
        n.startswith(e[0].split()[2] + "/") for n in names if e[0].startswith("--- FAIL: "))]
    for entry in found.failures:
        _cap_entry(entry)
    if ok_packages:
        found.summary.append(f"ok: {ok_packages} package(s)")
    return found


def _failed_names(found: Found) -> list[str]:
    names = []
    for entry in found.failures:
        match = re.match(r"^--- FAIL: (\S+)", entry[0])
        if match:
            names.append(match.group(1))
    return names


# -- jest and vitest --------------------------------------------------------------------

_JS_AT = re.compile(r"^\s*at .*?\(?((?:[A-Za-z]:)?[^()\s]+:\d+:\d+)\)?\s*$")
_JS_FRAME_LINE = re.compile(r"^\s*(>?)\s*\d+\s*\|")


def _js_entry(title: str, body: list[str]) -> list[str]:
    """A failure's message lines, the failing source line and the first project frame."""
    entry = [title]
    message: list[str] = []
    code_line = None
    where = None
    for text in body:
        stripped = text.strip()
        if not stripped:
            continue
        frame = _JS_FRAME_LINE.match(text)
        if frame:
            if frame.group(1) == ">" and code_line is None:
                code_line = stripped
            continue
        if stripped.startswith("|"):
            continue
        at = _JS_AT.match(text)
        if at:
            if where is None and "node_modules" not in at.group(1):
                where = at.group(1)
            continue
        if stripped.startswith("❯ ") and where is None:
            where = stripped[2:]
            continue
        if code_line is None and where is None:
            message.append(stripped)
    entry.extend("  " + m for m in message[:BLOCK_LINES - 2])
    if len(message) > BLOCK_LINES - 2:
        entry.append(f"    … {len(message) - BLOCK_LINES + 2} more line(s) in the full log")
    if code_line:
        entry.append("  " + code_line)
    if where:
        entry.append(f"  at {where}")
    return entry


def filter_jest(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    titles: set[str] = set()
    suite = ""
    recognised = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("FAIL "):
            suite = stripped[4:].strip()
            recognised = True
        elif stripped.startswith("PASS "):
            recognised = True
        elif stripped.startswith(("Test Suites:", "Tests:")) or (stripped.startswith("Snapshots:") and "failed" in stripped):
            found.summary.append(stripped)
            recognised = True
        elif stripped.startswith("● "):
            title = stripped[2:].strip()
            j = i + 1
            body: list[str] = []
            while j < len(lines):
                nxt = lines[j].strip()
                if nxt.startswith(("● ", "PASS ", "FAIL ", "Test Suites:", "Summary of all failing")) or \
                        nxt in ("console.log", "console.warn", "console.error", "console.info", "console.debug"):
                    break
                body.append(lines[j])
                j += 1
            key = f"{suite} › {title}" if suite else title
            if key not in titles and title not in titles:
                titles.add(key)
                titles.add(title)
                found.failures.append(_js_entry(f"● {key}", body))
            i = j
            continue
        elif stripped in ("console.warn", "console.error"):
            message = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if message:
                key = f"{stripped}: {message}"
                found.warnings[key] = found.warnings.get(key, 0) + 1
        i += 1
    if not recognised and not found.failures:
        return None
    return found


_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(.+)$")
_VITEST_RULE = re.compile(r"^[⎯\-]{5,}")


def filter_vitest(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    recognised = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(("Test Files ", "Tests ")) and ("passed" in stripped or "failed" in stripped):
            found.summary.append(re.sub(r"\s+", " ", stripped))
            recognised = True
        elif stripped.startswith(("RUN  v", "✓ ")) or re.match(r"^[❯×] \S", stripped):
            recognised = True
        elif _VITEST_FAIL.match(line) and (" > " in stripped or "[" in stripped):
            recognised = True
            title = _VITEST_FAIL.match(line).group(1).strip()
            j = i + 1
            body: list[str] = []
            while j < len(lines) and not _VITEST_RULE.match(lines[j].strip()) and not _VITEST_FAIL.match(lines[j]):
                if lines[j].strip().startswith(("Test Files ", "Tests ")):
                    break
                body.append(lines[j])
                j += 1
            found.failures.append(_vitest_entry(title, body))
            i = j
            continue
        elif stripped.startswith("⎯") and "Unhandled" in stripped:
            found.notes.append(stripped.strip("⎯ "))
        i += 1
    if not recognised and not found.failures:
        return None
    return found


def _vitest_entry(title: str, body: list[str]) -> list[str]:
    """FAIL title, the error lines, the location and the source line the caret points at."""
    entry = [f"FAIL {title}"]
    message: list[str] = []
    where = None
    code_line = None
    previous_frame = None
    for text in body:
        stripped = text.strip()
        if not stripped:
            continue
        if stripped.startswith("❯ ") and where is None:
            where = stripped[2:]
            continue
        frame = re.match(r"^\s*(\d+)\|(.*)$", text)
        if frame:
            previous_frame = f"{frame.group(1)}| {frame.group(2).strip()}"
            continue
        if stripped.startswith("|") and "^" in stripped:
            code_line = code_line or previous_frame
            continue
        if where is None:
            message.append(stripped)
    entry.extend("  " + m for m in message[:BLOCK_LINES - 2])
    if len(message) > BLOCK_LINES - 2:
        entry.append(f"    … {len(message) - BLOCK_LINES + 2} more line(s) in the full log")
    if where:
        entry.append(f"  at {where}")
    if code_line:
        entry.append(f"  {code_line}")
    return entry


# -- sniffing: a command that names no tool (make test, npm test, ./ci.sh) ---------------


def sniff(lines: list[str]) -> str:
    """Guess the family from the output itself when the command line named no known tool."""
    head = lines[:400] + lines[-200:]
    text = "\n".join(head)
    if re.search(r"^=+ test session starts =+$", text, re.M):
        return "pytest"
    if re.search(r"^Test Suites: ", text, re.M):
        return "jest"
    if re.search(r"^\s*Test Files\s+\d", text, re.M):
        return "vitest"
    if re.search(r"^test result: ", text, re.M) or re.search(r"^---- \S+ stdout ----$", text, re.M):
        return "cargo-test"
    if re.search(r"^Diff in \S+( at line \d+|:\d+):$", text, re.M):
        return "cargo-fmt"
    if re.search(r"^error(\[E\d+\])?: ", text, re.M) and re.search(r"^\s+--> \S+:\d+", text, re.M):
        return "cargo-build"
    if re.search(r"^(--- FAIL: |=== RUN |(ok|FAIL)\t\S+)", text, re.M):
        return "go-test"
    return "generic"


Filter = Callable[[list[str], "int | None"], "Found | None"]
FILTERS: dict[str, Filter] = {
    "pytest": filter_pytest,
    "cargo-test": filter_cargo_test,
    "cargo-build": filter_cargo_build,
    "cargo-fmt": filter_cargo_fmt,
    "go-test": filter_go_test,
    "jest": filter_jest,
    "vitest": filter_vitest,
}


def condense_lines(family: str, lines: list[str], exit_code: int | None) -> tuple[str, list[str]]:
    """The family actually used (a filter that does not recognise its output falls back) and the body."""
    chosen = FILTERS.get(family)
    found = chosen(lines, exit_code) if chosen else None
    if found is None:
        return "generic", generic(lines, exit_code)
    return family, found.render(lines, exit_code)
# -- the entry point --------------------------------------------------------------------


def footer(log_path: str | None, bytes_in: int, lines_in: int, bytes_out: int, lines_out: int) -> str:
    saved = max(0, (bytes_in - bytes_out) // 4)
    if log_path:
        where = f"full log: {log_path} (a part of it: sed -n '120,180p' {shlex.quote(log_path)})"
    else:
        where = "full log: not kept"
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
    if family == "generic":
        family = sniff(lines)
    family, body = condense_lines(family, lines, exit_code)
    head = f"$ {command}  (exit {exit_code if exit_code is not None else '?'})"
    if sum(len(x) + 1 for x in body) >= bytes_in:  # condensing would not save anything: say it all
        return Condensed(output, "verbatim", exit_code, bytes_in, bytes_in, raw_lines, raw_lines, log_path)
    text_lines = [head, *body]
    draft = "\n".join(text_lines) + "\n"
    lines_out = len(text_lines) + 1
    bytes_out = len(draft.encode("utf-8"))
    for _ in range(4):  # the footer states the size of the text that includes it: settle the digits
        text = draft + footer(log_path, bytes_in, raw_lines, bytes_out, lines_out) + "\n"
        if len(text.encode("utf-8")) == bytes_out:
            break
        bytes_out = len(text.encode("utf-8"))
    return Condensed(text, family, exit_code, bytes_in, bytes_out, raw_lines, lines_out, log_path)


