"""Journal lines are checked against their envelope (reliability F13): an event of another item, an
unknown journal version or a line without `event` is not folded, and doctor reports it. On the old
code a `v: 2` drop and an H-0002 drop written into H-0001's journal both dropped H-0001."""

from __future__ import annotations

import json

from hallmark.core import doctor, items, journal
from hypothesis import given
from hypothesis import strategies as st


def _line(path, **record) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def _drop(item: str, **extra) -> dict:
    return {"v": 1, "t": "2026-12-02T00:00:00.000Z", "actor": "you", "event": "dropped", "item": item, "reason": "x"}


def _journal_check(repo):
    report = doctor.run(repo.root)
    return next(c for c in report.checks if c.check == "journal")


def test_another_items_event_is_not_folded_and_doctor_names_it(hall_repo):
    first = items.new(hall_repo, title="first")["item"]
    second = items.new(hall_repo, title="second")["item"]
    path = hall_repo.paths.item_journal(first)
    _line(path, **_drop(second))
    assert items.fold_item(hall_repo, first).state == "development"
    assert items.fold_item(hall_repo, second).state == "development"
    assert {v.id: v.state for v in hall_repo.index.items()} == {first: "development", second: "development"}
    check = _journal_check(hall_repo)
    assert check.ok is False and f"an event of '{second}' in {first}'s journal" in check.detail


def test_an_unknown_version_is_not_folded(hall_repo):
    item = items.new(hall_repo, title="versions")["item"]
    path = hall_repo.paths.item_journal(item)
    _line(path, **{**_drop(item), "v": 2})
    _line(path, **{**_drop(item), "v": "banana"})
    _line(path, **{**_drop(item), "v": True})
    assert items.fold_item(hall_repo, item).state == "development"
    reasons = [b.reason for b in journal.read(path).bad]
    assert len(reasons) == 3 and all("journal version" in r for r in reasons)
    assert "journal version 2" in _journal_check(hall_repo).detail


def test_a_line_without_event_is_reported(hall_repo):
    item = items.new(hall_repo, title="no event")["item"]
    path = hall_repo.paths.item_journal(item)
    _line(path, v=1, t="2026-12-02T00:00:00.000Z", actor="you", item=item, reason="x")
    assert items.fold_item(hall_repo, item).state == "development"
    assert "missing 'event'" in _journal_check(hall_repo).detail


def test_the_repo_journal_keeps_events_naming_items(tmp_path):
    """Only an item's own journal is checked for its item: the repo journal's events may name any."""
    path = tmp_path / "events.jsonl"
    _line(path, v=1, t="t", actor="you", event="note", item="H-0003")
    assert len(journal.read(path).events) == 1


@given(
    version=st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none(), st.floats(allow_nan=False)),
    item=st.one_of(st.none(), st.sampled_from(["H-0001", "H-0002", "H-1"])),
)
def test_only_this_journals_version_1_events_fold(tmp_path_factory, version, item):
    path = tmp_path_factory.mktemp("j") / "items" / "H-0001" / "events.jsonl"
    path.parent.mkdir(parents=True)
    record = {"t": "t", "actor": "you", "event": "note", "v": version}
    if item is not None:
        record["item"] = item
    _line(path, **record)
    folded = journal.read(path).events
    belongs = type(version) is int and version == 1 and item in (None, "H-0001")
    assert (len(folded) == 1) == belongs
