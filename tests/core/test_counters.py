"""Counters are checked against what exists and never issue an ID twice (reliability F7). On the old
code a stale question counter gave a second Q-2, `{"item": 999999999}` created H-1000000000 (no
command can name it) and `{"item": Infinity}` was an internal error."""

from __future__ import annotations

import json

import pytest
from hallmark.core import ids, items, questions
from hallmark.core.errors import HallError


def _counters(repo, text: str) -> None:
    (repo.state_dir / "counters.json").write_text(text)


def test_a_stale_question_counter_never_reissues_an_id(hall_repo):
    asked = [questions.ask(hall_repo, f"q{i}?")["qid"] for i in range(1, 6)]
    assert asked == ["Q-1", "Q-2", "Q-3", "Q-4", "Q-5"]
    _counters(hall_repo, json.dumps({"item": 0, "question": 1}))  # restored from an older backup
    assert questions.ask(hall_repo, "dup?")["qid"] == "Q-6"


@pytest.mark.parametrize(
    "text", ['{"item": 999999999}', '{"item": Infinity}', '{"item": NaN}', '{"item": 1e999}', '{"item": true}']
)
def test_a_counter_no_id_can_be_typed_as_is_not_trusted(hall_repo, text):
    items.new(hall_repo, title="first")
    _counters(hall_repo, text)
    made = items.new(hall_repo, title="after a bad counter")
    assert made["item"] == "H-0002"
    assert ids.parse_item_id(made["item"]) == "H-0002"
    assert items.status_one(hall_repo, made["item"])["item"] == "H-0002"


def test_the_last_typable_number_is_refused_not_overflowed(hall_repo):
    (hall_repo.paths.items_dir / "H-999999999").mkdir(parents=True)
    with pytest.raises(HallError) as caught:
        ids.allocate(hall_repo.state_dir, "item")
    assert caught.value.code == "WRONG_STATE"
