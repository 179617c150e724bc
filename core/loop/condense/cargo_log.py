"""cargo: rustc and clippy diagnostics (each error block once, repeated errors by location, warnings
once with a count), `cargo test` and `cargo nextest` failures with their panics and result lines, and
`cargo fmt --check` hunks."""

from __future__ import annotations

import re

from .found import BLOCK_LINES, Found, cap_entry, first_index

_RUST_DIAG = re.compile(r"^(error|warning)(\[\w+\])?: (.*)$")
_RUST_LOCATION = re.compile(r"^\s*--> (\S+:\d+(?::\d+)?)")
_CARGO_NOISE = re.compile(
    r"^\s*(Compiling|Checking|Downloaded|Downloading|Updating|Fresh|Blocking|Locking|Adding|"
    r"Documenting|Finished|Running|Doc-tests|Installing|Installed|Packaging|Verifying)\b"
)
_CARGO_SUMMARY = re.compile(
    r"^(warning: `[^`]+` \(.*\) generated \d+ warnings?|error: could not compile|"
    r"error: test failed|error: test run failed|error: \d+ target failed|Some errors have detailed|"
    r"For more information about)"
)
_RUST_PANIC = re.compile(r"^thread '([^']+)'(?: \(\d+\))? panicked at (.*)$")  # rust 1.9x adds the thread id
_FRAME = re.compile(r"^\s+\d+: (\S.*)$")
_FRAME_AT = re.compile(r"^\s+at (\S+)$")


def _project_frames(body: list[str]) -> list[str]:
    """A backtrace's frames in the project only: the standard library's and dependencies' go."""
    out: list[str] = []
    i = 0
    while i < len(body):
        text = body[i]
        if text.strip() in ("stack backtrace:",) or text.startswith("note: Some details are omitted"):
            i += 1
            continue
        frame = _FRAME.match(text)
        if frame:
            at = _FRAME_AT.match(body[i + 1]) if i + 1 < len(body) else None
            where = at.group(1) if at else ""
            if where and not where.startswith("/rustc/") and "/.cargo/registry/" not in where:
                out.append(f"at {where.removeprefix('./')} ({frame.group(1)})")
            i += 2 if at else 1
            continue
        out.append(text)
        i += 1
    return out


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
        if found.first_line is None and diag.group(1) == "error":
            found.first_line = i
        block = [line]
        j = i + 1
        while (
            j < len(lines) and lines[j].strip() and not _RUST_DIAG.match(lines[j]) and not _CARGO_NOISE.match(lines[j])
        ):
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
    found.same_bodies = False
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
            while (
                j < len(lines)
                and not _NEXTEST_OUTPUT.match(lines[j])
                and not re.match(r"^\s+(PASS|FAIL|SKIP|SIGSEGV|TIMEOUT)\s+\[", lines[j])
                and not _NEXTEST_SUMMARY.match(lines[j])
                and not lines[j].startswith("------------")
            ):
                text = lines[j]
                panic = _RUST_PANIC.match(text)
                if panic:
                    keep = True
                    entry.append(f"  panicked at {panic.group(2)}")
                elif keep and text.strip() and not text.startswith("note: run with `RUST_BACKTRACE"):
                    entry.append("  " + text)
                j += 1
            cap_entry(entry)
            i = j
            continue
        elif _NEXTEST_SUMMARY.match(line):
            found.summary.append(line.strip())
        i += 1
    _test_ids(found, lines, "{name}")
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
            body: list[str] = []
            j = i + 1
            while j < len(lines) and not lines[j].startswith("---- ") and lines[j] != "failures:":
                text = lines[j]
                if text.strip() and not text.startswith("note: run with `RUST_BACKTRACE"):
                    panic = _RUST_PANIC.match(text)
                    body.append(f"panicked at {panic.group(2)}" if panic else text)
                j += 1
            entry += ["  " + x for x in _project_frames(body)]
            short = name.rpartition("::")[2]
            signature = tuple(x for x in entry[1:] if short not in x)
            if len(signature) > 1:  # the panic and its message, the test's own frames left out
                found.signatures[len(found.failures)] = signature
            cap_entry(entry)
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
    _test_ids(found, lines, "---- {name} ")
    return found


def _test_ids(found: Found, lines: list[str], marker: str) -> None:
    """The failing tests (module path, test) and where the first one's output begins in the log."""
    for entry in found.failures:
        word, _, name = entry[0].partition(" ")
        if word not in ("FAILED", "FAIL", "SIGSEGV", "SIGABRT", "SIGKILL", "TIMEOUT", "LEAK-FAIL", "ABORT"):
            continue
        name = name.split(" ", 1)[-1] if " " in name else name  # nextest: "<binary> <path>"
        group, _sep, test = name.rpartition("::")
        found.ids.append((group, test))
    first = next((e[0].partition(" ")[2] for e in found.failures if e[0].startswith(("FAILED ", "FAIL "))), "")
    found.first_line = first_index(lines, marker.format(name=first.split(" ")[-1])) if first else None


_FMT_DIFF = re.compile(r"^Diff in (\S+?)(?: at line (\d+)|:(\d+)):\s*$")


def filter_cargo_fmt(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    found.same_bodies = False
    blocks: list[list[str]] = []
    for number, line in enumerate(lines):
        match = _FMT_DIFF.match(line)
        if match:
            if found.first_line is None:
                found.first_line = number
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
