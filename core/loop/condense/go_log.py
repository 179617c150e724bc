"""go test: each `--- FAIL` with its log lines (a parent failing only because a subtest did is
dropped), panics with the project's frames, build failures, FAIL package lines and a count of ok ones."""

from __future__ import annotations

import re

from .found import Found, cap_entry, first_index

_GO_RUN = re.compile(r"^\s*=== (RUN|CONT|PAUSE|NAME)\s+(\S+)")
_GO_RESULT = re.compile(r"^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(([\d.]+s)\)")
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(\(cached\)\s+)?([\d.]+s|\[.*\]|\(.*\)).*$")
_GO_BUILD = re.compile(r"^# (\S+)")
_GO_FILE_LINE = re.compile(r"^\s*\S+\.go:\d+(?::\d+)?:")


def _panic(lines: list[str], i: int, found: Found, after: list[str] | None) -> int:
    """A panic at lines[i] with the project's frames (not Go's own), added to the failure it
    interrupted or as a failure of its own; the index after its trace."""
    entry = [lines[i]]
    j = i + 1
    while j < len(lines) and not _GO_PACKAGE.match(lines[j]) and not lines[j].startswith("exit status"):
        text = lines[j]
        frame = text.strip()
        if (
            (_GO_FILE_LINE.match(text) or (frame.startswith("/") and ".go:" in frame))
            and "/go/src/" not in frame
            and "/libexec/src/" not in frame
        ):
            entry.append("  " + frame.split(" +0x")[0])
        j += 1
    if after is not None and after in found.failures:
        after.extend("  " + e for e in entry)
        cap_entry(after)
    else:
        found.failures.append(entry)
        cap_entry(entry)
    return j


def _log_line(line: str, after: list[str] | None, current: str | None, pending: dict[str, list[str]]) -> None:
    """An indented log line: it belongs to the failure just printed (non -v output), or waits for the
    result of the test that is running (-v output)."""
    if after is not None:
        after.append("  " + line.strip())
    elif current is not None:
        pending.setdefault(current, []).append("  " + line.strip())


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
            j = _panic(lines, i, found, after)
            i = j
            continue
        elif build := _GO_BUILD.match(line):
            recognised = True
            entry = [f"build failed: {build.group(1)}"]
            j = i + 1
            while j < len(lines) and _GO_FILE_LINE.match(lines[j]):
                entry.append("  " + lines[j].strip())
                j += 1
            cap_entry(entry)
            found.failures.append(entry)
            i = j
            continue
        elif line.startswith((" ", "\t")) and line.strip():
            _log_line(line, after, current, pending)
        i += 1
    if not recognised:
        return None
    # A parent test fails because a subtest did; with nothing of its own to say it is noise.
    names = _failed_names(found)
    found.failures = [
        e
        for e in found.failures
        if len(e) > 1 or not any(n.startswith(e[0].split()[2] + "/") for n in names if e[0].startswith("--- FAIL: "))
    ]
    for entry in found.failures:
        cap_entry(entry)
    if ok_packages:
        found.summary.append(f"ok: {ok_packages} package(s)")
    failing = _failed_names(found)
    found.ids = [("", name) for name in failing]
    first = found.failures[0][0] if found.failures else ""
    found.first_line = first_index(lines, first.split(" (")[0] if first.startswith("--- FAIL") else first)
    return found


def _failed_names(found: Found) -> list[str]:
    names = []
    for entry in found.failures:
        match = re.match(r"^--- FAIL: (\S+)", entry[0])
        if match:
            names.append(match.group(1))
    return names
