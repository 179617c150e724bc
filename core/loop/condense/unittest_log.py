"""unittest (`python -m unittest`): each FAIL/ERROR with its test file, the test's own line, the frames
below it and the exception; failures with the same frames below the test are folded together; the
`Ran N tests` line and the `FAILED (failures=…, errors=…)` totals."""

from __future__ import annotations

import re

from .found import BLOCK_LINES, Found

_RULE = re.compile(r"^={20,}$")
_DASH = re.compile(r"^-{20,}$")
_HEAD = re.compile(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \((\S+)\)(.*)$")
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)')
_RAN = re.compile(r"^Ran \d+ tests? in [\d.]+s$")
_TOTALS = re.compile(r"^(FAILED|OK) ?(\(.*\))?$")


def _relative(path: str, dotted: str) -> str:
    """The test file as the project names it: the tail of the path matching the test's module."""
    parts = dotted.split(".")
    for width in range(len(parts), 0, -1):
        tail = "/".join(parts[:width]) + ".py"
        if path.endswith("/" + tail) or path == tail:
            return tail
    return path


def filter_unittest(lines: list[str], exit_code: int | None) -> Found | None:
    found = Found.empty()
    recognised = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _RAN.match(line.strip()):
            found.summary.append(line.strip())
            recognised = True
        elif _TOTALS.match(line.strip()) and found.summary:
            found.summary.append(line.strip())
        elif _RULE.match(line) and i + 1 < len(lines) and _HEAD.match(lines[i + 1]):
            recognised = True
            head = _HEAD.match(lines[i + 1])
            assert head is not None
            kind, dotted = head.group(1), head.group(3)
            if found.first_line is None:
                found.first_line = i + 1
            j = i + 2
            if j < len(lines) and _DASH.match(lines[j]):
                j += 1
            body: list[str] = []
            while j < len(lines) and not _RULE.match(lines[j]) and not _DASH.match(lines[j]):
                body.append(lines[j])
                j += 1
            frames = [(m.group(1), idx) for idx, m in ((k, _FRAME.match(x)) for k, x in enumerate(body)) if m]
            test_file = next((f for f, _k in frames), "")
            short_file = _relative(test_file, dotted) if test_file else ""
            entry = [f"{kind} {dotted}" + (f" ({short_file})" if short_file else "")]
            kept = [
                x.rstrip()
                for x in body
                if x.strip() and x.strip() != "Traceback (most recent call last):" and not set(x.strip()) <= {"^", "~"}
            ]
            below = []
            if len(frames) > 1:  # the frames under the test's own: the cause, when many tests share it
                start = frames[1][1]
                below = [x.rstrip() for x in body[start:] if x.strip() and not set(x.strip()) <= {"^", "~"}]
            entry += ["  " + x for x in kept]
            if len(entry) > BLOCK_LINES + 1:  # keep the exception, the last line, after the marker
                hidden = len(entry) - BLOCK_LINES - 1
                entry = [*entry[:BLOCK_LINES], f"    … {hidden} more line(s) in the full log", entry[-1]]
            if below:
                found.signatures[len(found.failures)] = tuple(below)
            found.failures.append(entry)
            where, _dot, method = dotted.rpartition(".")
            found.ids.append((where, method))  # `python -m unittest <where>.<method>` runs it
            i = j
            continue
        i += 1
    if not recognised:
        return None
    return found
