"""The per-item folded snapshot (core/fold_cache.py) always equals a fresh fold of the journal.

Real files on disk, the product's own journal writer; nothing mocked. The property: any sequence of
appends (whole events, torn lines, garbage) interleaved with lookups gives, at every lookup, exactly
`states.fold(journal.read(path).events)`; a journal rewritten, truncated or replaced behind the
snapshot's back refolds.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hallmark.core import fold_cache, journal, states
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ITEM = "H-0001"
NAMES = [
    *sorted({*states.TRANSITIONS, *states.CREATION_EVENTS}),
    "question",
    "answered",
    "question_defaulted",
    "usage",
    "held",
    "released",
    "run_ended",
    "rebased",
    "titled",
    "session_bound",
    "proposed_summary",
    "prompt",
]
SHAS = st.sampled_from(["a" * 40, "b" * 40, ""])
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "sha": SHAS,
        "round": st.integers(-2, 5) | st.just("x"),
        "qid": st.sampled_from(["q1", "q2"]),
        "held": st.booleans(),
        "kind": st.just("checks"),
        "next": st.lists(st.text(max_size=5), max_size=2),
        "input_tokens": st.integers(0, 10**12),
        "cost_usd": st.floats(0, 5, allow_nan=False) | st.just("bad"),
        "failed": st.booleans(),
        "carried": st.booleans(),
        "title": st.text(max_size=20),
        "worktree": st.just("/w"),
        "summary": st.text(max_size=20),
        "open_findings": st.integers(0, 3),
    },
)
ACTORS = st.sampled_from(["you", "assayer", "shipper", "fixer"])
EVENT = st.builds(
    lambda name, actor, fields: journal.make_event(name, ITEM, actor, fields), st.sampled_from(NAMES), ACTORS, FIELDS
)
# what a step does to the journal: append events, leave a torn line, add a garbage line, or look
STEP = st.one_of(
    st.tuples(st.just("append"), st.lists(EVENT, min_size=1, max_size=4)),
    st.tuples(st.just("torn"), EVENT),
    st.tuples(st.just("garbage"), st.binary(min_size=1, max_size=12).filter(lambda b: b"\n" not in b)),
    st.tuples(st.just("look"), st.none()),
)


def fresh(path: Path) -> object:
    """The full fold's outcome: the view, or the error the fold raises (a bad value in an event
    can make states.fold raise; the snapshot path must then raise the same)."""
    try:
        return states.fold(ITEM, journal.read(path).events).to_dict()
    except (TypeError, ValueError) as exc:
        return ("raises", type(exc).__name__, str(exc))


def cached(path: Path) -> object:
    try:
        view = fold_cache.folded(path, ITEM)
    except (TypeError, ValueError) as exc:
        return ("raises", type(exc).__name__, str(exc))
    return None if view is None else view.to_dict()


def _apply(path: Path, kind: str, value: object) -> None:
    if kind == "append":
        for event in value:  # type: ignore[attr-defined]
            journal.append_unlocked(path, event)
    elif kind == "torn":  # a writer that died mid-line; the next append starts a new line
        with open(path, "ab") as handle:
            handle.write(journal.encode(value)[:-5])  # type: ignore[arg-type]
    elif kind == "garbage":
        with open(path, "ab") as handle:
            handle.write(value + b"\n")  # type: ignore[operator]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=EVENT, steps=st.lists(STEP, max_size=12))
def test_the_snapshot_fold_equals_the_full_fold_after_any_appends(first: dict, steps: list):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ITEM / "events.jsonl"
        path.parent.mkdir()
        journal.append_unlocked(path, first)
        assert cached(path) == fresh(path)
        for kind, value in steps:
            _apply(path, kind, value)
            assert cached(path) == fresh(path), kind
        assert cached(path) == fresh(path)
        if not isinstance(fresh(path), tuple):  # a fold that raises leaves no snapshot
            assert fold_cache.snapshot_path(path).exists()


REWRITES = ["truncate", "edit-first-line", "edit-last-line", "replace-file", "same-size-touch", "emptied"]


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(EVENT, min_size=2, max_size=8), rewrite=st.sampled_from(REWRITES), more=st.lists(EVENT, max_size=3)
)
def test_a_rewritten_or_torn_journal_invalidates_the_snapshot(events: list, rewrite: str, more: list):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ITEM / "events.jsonl"
        path.parent.mkdir()
        for event in events:
            journal.append_unlocked(path, event)
        assert cached(path) == fresh(path)  # the snapshot is written here
        data = path.read_bytes()
        lines = data.splitlines(keepends=True)
        if rewrite == "truncate":
            with open(path, "r+b") as handle:
                handle.truncate(len(data) - len(lines[-1]) // 2)
        elif rewrite in ("edit-first-line", "edit-last-line", "same-size-touch"):
            index = 0 if rewrite == "edit-first-line" else -1
            record = json.loads(lines[index])
            record["event"] = "dropped" if record["event"] != "dropped" else "ready"
            new = json.dumps(record, separators=(",", ":")).encode() + b"\n"
            if rewrite == "same-size-touch":  # the same bytes written again: only the mtime moves
                new = lines[index]
            lines[index] = new
            stat = path.stat()
            with open(path, "r+b") as handle:  # in place: the same inode
                handle.truncate(0)
                handle.write(b"".join(lines))
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        elif rewrite == "replace-file":
            other = path.with_name("new.jsonl")
            other.write_bytes(b"".join(reversed(lines)))
            os.replace(other, path)
        elif rewrite == "emptied":
            path.write_bytes(b"")
        assert cached(path) == fresh(path), rewrite
        for event in more:
            journal.append_unlocked(path, event)
            assert cached(path) == fresh(path), rewrite


def test_an_unchanged_journal_is_not_parsed_again(tmp_path: Path):
    """The point of the snapshot: with nothing appended, a lookup reads the snapshot, not the journal.
    Proof without a mock: a line changed in the middle of a long journal, in place, at the same size,
    with the first and last bytes and the mtime left as they were, is not seen (a full read would)."""
    path = tmp_path / ITEM / "events.jsonl"
    path.parent.mkdir()
    journal.append_unlocked(path, journal.make_event("created", ITEM, "you", {"title": "t", "worktree": "/w"}))
    for n in range(200):
        journal.append_unlocked(path, journal.make_event("usage", ITEM, "fixer", {"input_tokens": n % 10}))
    view = fold_cache.folded(path, ITEM)
    assert view is not None and view.tokens == sum(n % 10 for n in range(200))
    stat = path.stat()
    data = bytearray(path.read_bytes())
    middle = data.index(b'"input_tokens":3', len(data) // 2)
    data[middle + 15 : middle + 16] = b"9"
    with open(path, "r+b") as handle:
        handle.write(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert fold_cache.folded(path, ITEM) == view  # the snapshot answered
    assert fresh(path) != view.to_dict()  # while a full fold would have seen the change


def test_appends_fold_only_what_was_added(tmp_path: Path):
    """After a snapshot at offset N, the lookup folds the events after N onto it: the result equals
    the full fold, and the snapshot moves to the journal's end."""
    path = tmp_path / ITEM / "events.jsonl"
    path.parent.mkdir()
    journal.append_unlocked(path, journal.make_event("created", ITEM, "you", {"title": "t", "worktree": "/w"}))
    fold_cache.folded(path, ITEM)
    journal.append_unlocked(path, journal.make_event("ready", ITEM, "you", {"sha": "a" * 40, "round": 1}))
    assert cached(path) == fresh(path)
    snap = json.loads(fold_cache.snapshot_path(path).read_text())
    assert snap["offset"] == path.stat().st_size and snap["view"]["state"] == states.CHECKS


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b"[]", b'{"v": 1}', b'{"v": 1, "ino": "x"}', b"\xff" * 10],
    ids=["empty", "garbage", "list", "partial", "bad-type", "binary"],
)
def test_a_damaged_snapshot_is_refolded(tmp_path: Path, content: bytes):
    path = tmp_path / ITEM / "events.jsonl"
    path.parent.mkdir()
    journal.append_unlocked(path, journal.make_event("created", ITEM, "you", {"title": "t", "worktree": "/w"}))
    fold_cache.snapshot_path(path).write_bytes(content)
    assert cached(path) == fresh(path)
    assert json.loads(fold_cache.snapshot_path(path).read_text())["offset"] == path.stat().st_size


def test_a_snapshot_of_another_item_is_not_used(tmp_path: Path):
    path = tmp_path / ITEM / "events.jsonl"
    path.parent.mkdir()
    journal.append_unlocked(path, journal.make_event("created", ITEM, "you", {"title": "t", "worktree": "/w"}))
    fold_cache.folded(path, ITEM)
    view = fold_cache.folded(path, "H-0002")
    assert view is not None and view.id == "H-0002" and view.events == 1


def test_no_journal_is_none_and_writes_nothing(tmp_path: Path):
    path = tmp_path / ITEM / "events.jsonl"
    path.parent.mkdir()
    assert fold_cache.folded(path, ITEM) is None
    assert list(path.parent.iterdir()) == []
