"""jest and vitest: each failing test once (its suite file in the heading), its message, the failing
source line and the first project frame; console warnings once with a count; the Tests/Test Suites totals."""

from __future__ import annotations

import re

from .found import BLOCK_LINES, Found, first_index

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
    entry.extend("  " + m for m in message[: BLOCK_LINES - 2])
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
        elif stripped.startswith(("Test Suites:", "Tests:")) or (
            stripped.startswith("Snapshots:") and "failed" in stripped
        ):
            found.summary.append(stripped)
            recognised = True
        elif stripped.startswith("● "):
            title = stripped[2:].strip()
            j = i + 1
            body: list[str] = []
            while j < len(lines):
                nxt = lines[j].strip()
                if nxt.startswith(("● ", "PASS ", "FAIL ", "Test Suites:", "Summary of all failing")) or nxt in (
                    "console.log",
                    "console.warn",
                    "console.error",
                    "console.info",
                    "console.debug",
                ):
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
    _ids(found, lines, "● ", " › ")
    return found


def _ids(found: Found, lines: list[str], mark: str, separator: str) -> None:
    """(suite file, test) for each failure, and the log line where the first one is told."""
    for entry in found.failures:
        title = entry[0].removeprefix(mark).removeprefix("FAIL ").strip()
        suite, sep, rest = title.partition(separator)
        found.ids.append((suite, rest) if sep and "." in suite else ("", title))
    if found.failures:
        title = found.failures[0][0].removeprefix(mark).removeprefix("FAIL ").strip()
        found.first_line = first_index(lines, title.partition(separator)[2] or title)


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
        elif (failed := _VITEST_FAIL.match(line)) and (" > " in stripped or "[" in stripped):
            recognised = True
            title = failed.group(1).strip()
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
    _ids(found, lines, "FAIL ", " > ")
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
    entry.extend("  " + m for m in message[: BLOCK_LINES - 2])
    if len(message) > BLOCK_LINES - 2:
        entry.append(f"    … {len(message) - BLOCK_LINES + 2} more line(s) in the full log")
    if where:
        entry.append(f"  at {where}")
    if code_line:
        entry.append(f"  {code_line}")
    return entry
