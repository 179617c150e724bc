"""Each filter pinned by logs of 1, 20 and 200 failures (tests/stream/fixtures/output: pytest, unittest
and cargo logs from really running failing projects; go, jest and vitest in their exact format).

What a fixer relies on, checked on every log: no word is ever cut; the text stays within the budget;
the totals line, every failing test's ID (or a count of the few left out) and the footer naming the
full log are there; whole blocks dropped from the middle are counted so that every failure is
accounted for; identical tracebacks are folded with a count; headings carry the test's file."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from hallmark.core.loop import condense as cd

OUTPUT = Path(__file__).parent / "fixtures" / "output"
INDEX = json.loads((OUTPUT / "index.json").read_text())
LOG_PATH = "/state/items/H-0002/checks/20261201T120000000Z-1-gate.log"
SUMMARY = {  # the totals line each tool prints, as it must appear
    "pytest": r"{n} failed, 3 passed in [\d.]+s",
    "unittest": r"FAILED \((failures|errors)=",
    "cargo": r"test result: FAILED\. 1 passed; {n} failed",
    "go": r"FAIL example\.com/shop/timed",
    "jest": r"Tests: +{n} failed",
    "vitest": r"Tests {n} failed",
}
HEADING = {  # what every failure heading must carry: its test's file, where the tool tells it
    "pytest": r"^(FAILED|ERROR) tests/test_\w+\.py::",
    "unittest": r"^(FAIL|ERROR) \S+ \(tests/test_\w+\.py\)$",
    "jest": r"^● src/\w+\.test\.js › ",
    "vitest": r"^FAIL src/\w+\.test\.ts > ",
}
SHARED = {"pytest", "unittest", "jest", "vitest"}  # logs where 3/4 of the failures share one traceback
OUR_WORDS = set(
    """failures failing tests summary: warnings the same traceback also failed: and more failure block(s)
omitted here test(s)); test(s) test(s package(s every one is in list of below full log … condensed lines ~ tokens
saved estimate bytes/4)] log: first failure, sed -n -> B/ $ (exit at ok:""".split()
)


def _load(name: str) -> tuple[str, cd.Condensed]:
    text = gzip.decompress((OUTPUT / f"{name}.log.gz").read_bytes()).decode("utf-8")
    meta = INDEX[name]
    return text, cd.condense(meta["command"], text, meta["exit_code"], LOG_PATH)


def _cases() -> list[tuple[str, str, int]]:
    found = []
    for name in sorted(INDEX):
        tool, _, count = name.rpartition("-")
        found.append((name, tool, int(count)))
    return found


def test_every_tool_has_its_three_logs():
    assert {(tool, n) for _name, tool, n in _cases()} == {(t, n) for t in SUMMARY for n in (1, 20, 200)}


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


def _listed(text: str) -> tuple[int, int]:
    """(names in the failing-tests list, the count of those left out)."""
    names, more = 0, 0
    for line in _section(text, "failing tests ("):
        body = line.strip()
        extra = re.match(r"^… and (\d+) more failing test", body)
        if extra:
            more += int(extra.group(1))
            continue
        if re.match(r"^[\w./-]+: ", body) and not body.startswith("["):
            body = body.split(": ", 1)[1]
        names += len(body.split(" | ")) if " | " in body or " › " in body or " > " in body else len(body.split())
    return names, more


def _tokens_whole(output: str, source: str) -> list[str]:
    """Tokens of output that appear in source only as a piece of a longer word: a cut word."""
    cut = []
    for line in output.splitlines()[1:-1]:  # the command line and the footer are ours
        for token in line.split():
            word = token.strip("()[],:;'\"")
            if not word or word in OUR_WORDS or token in OUR_WORDS or re.fullmatch(r"[\d.x/-]+", word):
                continue
            if re.fullmatch(r"x\d+", word) or (word.startswith("x") and word[1:].isdigit()):
                continue
            if not re.search(r"(?<![\w])" + re.escape(word) + r"(?![\w])", source):
                cut.append(word)
    return cut


@pytest.mark.parametrize(("name", "tool", "n"), _cases())
def test_the_condensed_text_keeps_what_a_fixer_needs(name, tool, n):
    source, result = _load(name)
    text = result.text
    if result.family == "verbatim":  # small, or condensing saves nothing: passed as it was, complete
        assert text == source and n <= 20
        return
    assert result.family == {"cargo": "cargo-test", "go": "go-test"}.get(tool, tool)
    assert len(text) <= cd.BUDGET + 200, len(text)
    assert not _tokens_whole(text, source), _tokens_whole(text, source)[:5]
    assert re.search(SUMMARY[tool].format(n=n), text), "the totals line is kept"
    footer = text.rstrip("\n").splitlines()[-1]
    assert footer.startswith("[condensed ") and f"full log: {LOG_PATH}" in footer
    start, end = (int(x) for x in re.search(r"lines (\d+)-(\d+)", footer).groups())
    first_heading = text.splitlines()[2]
    first_name = re.split(r"::|\.| › | > |: ", first_heading.split(" (")[0].split("[")[0])[-1].strip()
    assert first_name and first_name in source.splitlines()[start - 1], (first_name, source.splitlines()[start - 1])
    assert end == start + 59
    names, more = _listed(text)
    assert names + more == n and f"failing tests ({n}):" in text
    shown = 0
    for line in text.splitlines():
        fold = re.match(r"^  \[x(\d+)\] the same traceback", line)
        omitted = re.match(r"^… \d+ failure block\(s\) omitted here \((\d+) failing test\(s\)\)", line)
        if fold:
            shown += int(fold.group(1)) - 1
        elif omitted:
            shown += int(omitted.group(1))
        elif re.match(r"^(FAILED|ERROR|FAIL|●|--- FAIL)", line):
            shown += 1
    assert shown == n, "every failure is shown, folded into a shared traceback, or counted as omitted"
    if tool in HEADING:
        headings = [ln for ln in text.splitlines() if re.match(r"^(FAILED|ERROR|FAIL|●) ", ln)]
        assert headings and all(re.match(HEADING[tool], h) for h in headings), headings[:3]
    if tool in SHARED and n >= 20:
        shared = n - n // 4 if n != 20 else 15
        assert f"[x{shared}] the same traceback also failed" in text
    if n == 200:
        assert "failure block(s) omitted here" in text
    if n <= 20:
        assert "omitted here" not in text


def test_two_tests_with_one_name_in_two_files_get_two_headings():
    _source, result = _load("pytest-20")
    assert "tests/test_timed.py::TestTimedSerializer::test_bad_payload_exception[payload-0]" in result.text
    assert "tests/test_url_safe.py: TestTimedSerializer::test_bad_payload_exception[payload-0]" in result.text


def test_the_review_case_fits_whole_where_the_old_cut_fell_at_8000_characters():
    source, result = _load("pytest-200")
    assert len(source) > 300_000 and result.bytes_out < 12_500
    assert result.text.count("E           shop.timed.BadTimeSignature: Malformed timestamp") == 1  # 150, told once


def test_a_budget_drops_whole_blocks_never_lines_of_one():
    source, _ = _load("unittest-200")
    small = cd.condense("python -m unittest", source, 1, LOG_PATH, budget=3000)
    assert len(small.text) <= 3200
    blocks = small.text.split("failures (200):\n", 1)[1].split("failing tests (", 1)[0]
    for chunk in re.split(r"\n(?=(?:FAIL|ERROR) )", blocks.strip()):
        if chunk.startswith(("FAIL", "ERROR")):
            assert chunk.splitlines()[-1].lstrip().startswith(("AssertionError", "shop.timed", "[x", "…")), chunk
