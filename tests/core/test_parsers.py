"""Property tests for the parsers: journal lines, item IDs, durations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hallmark.core import clock, ids, journal
from hallmark.core.errors import HallError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
_EVENT = st.fixed_dictionaries(
    {
        "v": st.just(1),
        "t": st.just("2026-01-01T00:00:00.000Z"),
        "actor": _TEXT,
        "event": _TEXT,
        "item": st.none() | st.just("H-0001"),
    },
    optional={"note": _TEXT, "n": st.integers(), "list": st.lists(_TEXT, max_size=3)},
)
# A bad line never contains a newline, and is never itself a valid event object.
_GARBAGE = st.binary(max_size=60).filter(lambda b: b"\n" not in b and journal.parse_line(b)[0] is None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.one_of(_EVENT.map(lambda e: ("good", e)), _GARBAGE.map(lambda b: ("bad", b))), max_size=30),
    torn=st.binary(max_size=30).filter(lambda b: b"\n" not in b),
)
def test_read_returns_exactly_the_good_lines_and_reports_the_rest(tmp_path: Path, lines, torn: bytes):
    path = tmp_path / "events.jsonl"
    data = b"".join(journal.encode(v) if kind == "good" else v + b"\n" for kind, v in lines) + torn
    path.write_bytes(data)
    result = journal.read(path)
    good = [(n, v) for n, (kind, v) in enumerate(lines, start=1) if kind == "good"]
    assert result.events == [json.loads(json.dumps(v)) for _, v in good]
    assert result.numbers == [n for n, _ in good]
    expected_bad = [n for n, (kind, v) in enumerate(lines, start=1) if kind == "bad" and v.strip()]
    if torn:
        expected_bad.append(len(lines) + 1)
    assert [b.line for b in result.bad] == expected_bad
    assert result.offset == len(data) - len(torn) and result.lines == len(lines)
    # reading on from any line boundary gives the rest, with the same numbers
    if lines:
        cut = journal.read(path, include_tail=False)
        assert cut.offset == result.offset


@given(number=st.integers(min_value=1, max_value=999_999_999))
def test_every_spelling_of_an_item_id_means_the_same_item(number: int):
    expected = ids.item_id(number)
    for text in (str(number), f"H-{number}", f"h{number}", f"H-{number:04d}", f"H-{number:09d}"):
        assert ids.parse_item_id(text) == expected
    assert ids.parse_item_id(expected) == expected


@given(text=st.text(max_size=12))
def test_a_bad_item_id_is_a_usage_error_never_a_crash(text: str):
    try:
        parsed = ids.parse_item_id(text)
    except HallError as exc:
        assert exc.code == "USAGE"
    else:
        assert parsed.startswith("H-") and int(parsed[2:]) > 0


@given(amount=st.integers(min_value=0, max_value=10_000), unit=st.sampled_from(["s", "m", "h", "d", "w"]))
def test_durations(amount: int, unit: str):
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[unit]
    assert clock.parse_duration(f"{amount}{unit}") == amount * seconds


def test_a_bad_duration_is_a_value_error():
    with pytest.raises(ValueError):
        clock.parse_duration("soon")


_JSONISH = st.one_of(
    _EVENT.map(json.dumps),
    st.recursive(
        st.none() | st.booleans() | st.integers() | _TEXT,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    ).map(json.dumps),
    _TEXT,
)


@settings(max_examples=300)
@given(line=_JSONISH, pad=st.sampled_from(["", " ", "\r", "\t ", " x", "}", "\x1c"]))
def test_the_fast_path_accepts_exactly_what_the_exact_parser_accepts(line: str, pad: str):
    text = line + pad
    fast = journal._fast_parse(text)
    exact, _ = journal.parse_line(text.encode("utf-8"))
    if fast is not None:  # whatever the fast path takes, the exact parser takes too, as the same value
        assert fast == exact


@given(event=_EVENT, pad=st.sampled_from(["", " ", "\r", "\t "]))
def test_the_fast_path_takes_every_well_formed_event(event: dict, pad: str):
    assert journal._fast_parse(json.dumps(event, ensure_ascii=False) + pad) == event
