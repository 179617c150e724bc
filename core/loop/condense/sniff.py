"""A command that names no tool (make test, npm test, ./ci.sh): guess the family from the output."""

from __future__ import annotations

import re


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
    if re.search(r"^Ran \d+ tests? in [\d.]+s$", text, re.M) and re.search(r"^(FAIL|ERROR): \S+ \(", text, re.M):
        return "unittest"
    if re.search(r"^(--- FAIL: |=== RUN |(ok|FAIL)\t\S+)", text, re.M):
        return "go-test"
    return "generic"
