"""The typed results' base (core/results.py): frozen, slotted, keyword-only values whose JSON is
exactly their declared keys; a bad construction is a clear error, never a half-built result."""

from __future__ import annotations

from typing import ClassVar

import pytest
from hallmark.core.item_results import Dropped, ItemResult, StatusAll
from hallmark.core.results import Result, hidden, reply_keys
from hallmark.core.run_results import RoundUsage, UsageTotals
from hallmark.core.states import ItemView


class Base(Result):
    """A base with a default."""

    a: int
    b: str = "b"


class Child(Base):
    """A child that hides one field and puts its own first."""

    FIRST: ClassVar[tuple[str, ...]] = ("c",)

    c: int
    secret: str = hidden(default="s")


def test_fields_in_order_with_defaults_hidden_and_first():
    child = Child(a=1, c=3)
    assert child.to_dict() == {"c": 3, "a": 1, "b": "b"} and list(child.to_dict()) == ["c", "a", "b"]
    assert child.secret == "s" and "secret" not in child and reply_keys(Child) == ("c", "a", "b")
    assert Child.json_schema()["required"] == ["c", "a", "b"]
    assert Child.__slots__ == ("c", "secret") and not hasattr(child, "__dict__")


def test_frozen_and_strict_construction():
    child = Child(a=1, c=3)
    with pytest.raises(AttributeError, match="frozen"):
        child.a = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        child.other = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="needs c="):
        Child(a=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="no field 'd'"):
        Child(a=1, c=3, d=4)  # type: ignore[call-arg]
    assert Child(a=1, c=3) == Child(a=1, c=3, secret="other")  # hidden fields are not compared
    assert Child(a=1, c=3) != Child(a=2, c=3) and Base(a=1) != Child(a=1, c=3)


def test_the_item_results_keep_the_replys_order():
    view = ItemView("H-0001", title="t", state="development", cost_usd=0.123456)
    item = ItemResult.of(view)
    assert list(item.to_dict())[:3] == ["item", "title", "state"] and item.cost_usd == 0.1235
    dropped = Dropped.dropping(view, False, "it has uncommitted changes", True)
    assert list(dropped.to_dict())[-2:] == ["worktree_removed", "worktree_kept"] and dropped.stood_in_worktree
    status = StatusAll(items=(item,), counts={}, by_state={})
    assert "damaged" not in status.to_dict() and status["items"] == [item.to_dict()]
    assert list(RoundUsage(round=2).to_dict()) == ["round", *reply_keys(UsageTotals)]
