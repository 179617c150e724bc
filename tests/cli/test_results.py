"""Core verbs answer with typed results (core/results.py); the CLI turns them into JSON and adds
`next`; `hall schema <command>` describes each reply from the same types. These tests hold the
three together: a result's `to_dict()` keys are the schema's required keys, in order, and a real
reply carries exactly them, then `next`."""

from __future__ import annotations

import importlib
import typing
from pathlib import Path

import jsonschema
import pytest
from hallmark.core import item_results, results, run_results
from hallmark.core.loop import findings
from hallmark.tui.cli import commands, framework

from ..conftest import git
from .replies import all_samples, check_reply, reply_of, schema_of


def _all_result_types() -> set[type[results.Result]]:
    for info in commands.COMMANDS.values():  # every module that may declare a reply
        importlib.import_module(info.module)
    found: set[type[results.Result]] = set()
    todo = [results.Result]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("hallmark."):  # the project's (a test may declare its own)
                found.add(sub)
    return found


def _declared() -> dict[str, tuple[type[results.Result], ...]]:
    """Each command (and subcommand) that declares its reply, with the types it declares."""
    out: dict[str, tuple[type[results.Result], ...]] = {}
    for name in commands.COMMANDS:
        spec = commands.load(name)
        children = spec.commands.items() if isinstance(spec, framework.Group) else [("", spec)]
        for child_name, child in children:
            if child.replies:
                out[f"{name} {child_name}".strip()] = child.replies
    return out


def _shapes(schema: dict) -> list[dict]:
    reply = schema["definitions"]["reply"]
    return reply.get("anyOf") or [reply]


def _sample(cls: type[results.Result]) -> results.Result:
    """A result of each type, from the `SAMPLES` of every `tests/cli/samples_*.py` (one per area)."""
    made = all_samples()
    assert cls in made, f"{cls.__name__}: add a sample to a tests/cli/samples_*.py"
    return made[cls]()


def _nested(cls: type) -> set[type]:
    """The result types a result's fields may hold (a listing's rows, a breakdown's totals, inside a
    tuple or a union), each with its subclasses (an inbox's question is one kind of entry)."""
    found: set[type] = set()
    todo = [hint for hint in typing.get_type_hints(cls).values()]
    while todo:
        part = todo.pop()
        todo.extend(typing.get_args(part))
        if isinstance(part, type) and issubclass(part, results.Result) and part not in found:
            kinds = {part, *_subclasses(part)}
            found |= kinds
            for kind in kinds:
                found |= _nested(kind)
    return found


def _subclasses(cls: type) -> set[type]:
    return {sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))}


def test_every_result_type_is_the_reply_of_some_command():
    """A result type no command declares (as its reply, or inside one) would have no schema: `hall
    schema` could not describe it."""
    declared = {cls for replies in _declared().values() for cls in replies}
    declared |= {inner for cls in set(declared) for inner in _nested(cls)}
    # a declared type's bases too: their keys are a prefix of it (open_command's SessionPlan, the
    # session `hall new --open` answers with once it has run)
    declared |= {base for cls in set(declared) for base in cls.__mro__ if issubclass(base, results.Result)}
    assert _all_result_types() <= declared, sorted(c.__name__ for c in _all_result_types() - declared)


def test_to_dict_keys_are_the_schemas_required_keys_in_order(hall_repo, monkeypatch):
    seen = set()
    for command, replies in _declared().items():
        shapes = {shape["title"]: shape for shape in _shapes(schema_of(monkeypatch, hall_repo.root, command))}
        assert set(shapes) == {cls.__name__ for cls in replies}, command
        for cls in replies:
            shape = shapes[cls.__name__]
            sample = _sample(cls)
            assert [*sample.to_dict(), "next"] == shape["required"], (command, cls.__name__)
            assert list(shape["properties"]) == [*results.reply_keys(cls), "next"], (command, cls.__name__)
            jsonschema.validate({**sample.to_dict(), "next": []}, shape)
            seen.add(cls)
    assert {item_results.StatusAll, item_results.Dropped, run_results.RunListing, run_results.CostBreakdown} <= seen


def test_the_json_view_of_a_result_is_its_to_dict():
    """Scripts and tests read a result by its JSON key; the view never invents or drops a key."""
    status = _sample(item_results.StatusAll)
    assert list(status) == ["items", "counts", "by_state"] and "damaged" not in status
    with pytest.raises(KeyError):
        status["damaged"]
    assert status["items"] == [_sample(item_results.ItemResult).to_dict()]
    detail = _sample(item_results.ItemDetail)
    assert {k: detail[k] for k in detail} == detail.to_dict() and detail.state == "development"
    with pytest.raises(KeyError):
        detail["view"]  # carried for the faces, never part of the reply


def test_real_replies_are_the_declared_result_then_next(hall_repo, monkeypatch):
    """The CLI's JSON for each item verb: the declared result's keys in their order, then `next`,
    and valid against `hall schema <command>`."""
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(monkeypatch, root, *args)

    def check(command: str, data: dict, cls: type[results.Result], *extra: str) -> None:
        check_reply(monkeypatch, root, command, data, cls, *extra)

    created = reply("new", "--title", "typed")
    check("new", created, item_results.ItemResult)
    git(Path(created["worktree"]), "commit", "-q", "--allow-empty", "-m", "work")
    check("status", reply("status", "--all"), item_results.StatusAll)
    check("status", reply("status", "1"), item_results.ItemDetail)
    check("log", reply("log", "1"), item_results.ItemLog)
    check("ready", reply("ready", "1"), item_results.ItemResult)
    check("ready", reply("ready", "1"), item_results.AlreadyReady)
    check("pull-back", reply("pull-back", "1"), item_results.ItemResult)
    check("propose-ready", reply("propose-ready", "1", "--summary", "s"), item_results.ItemResult)
    asked = reply("ask", "which?", "--options", "a,b")
    check("ask", asked, item_results.Asked)
    check("inbox", reply("inbox"), item_results.InboxReport)
    check("waiting", reply("waiting"), item_results.WaitingSummary)
    check("usage", reply("usage"), run_results.UsageReport)
    check("cost", reply("cost", "1"), run_results.CostBreakdown)
    check("trace", reply("trace", "1", "--list"), run_results.RunListing)
    check("findings", reply("findings", "1"), findings.FindingsReport)
    check("answer", reply("answer", asked["qid"], "b"), item_results.Answered)
    check("drop", reply("drop", "1", "--reason", "r"), item_results.Dropped)
    git(root, "switch", "-q", "-c", "feature")
    check("adopt", reply("adopt"), item_results.Adopted)


# The commands whose reply is not a core result, each with the reason (any other command without a
# declared reply fails the test below: a new verb cannot quietly answer with a dict again).
UNTYPED = {
    "tui": "the terminal app: it prints no reply",
    "hook": "Claude Code's hook answer in Claude Code's own format (hooks/reply.py), not a Hallmark reply",
    "help": "self-description the face builds from its own argparse tables; hall schema command describes it",
    "schema": "a JSON Schema document: the reply is the schema itself",
    "statusline": "one line of text for Claude Code's status line, which shows what is printed",
}


def test_every_command_declares_its_reply_or_says_why_not():
    undeclared = set()
    for name in commands.COMMANDS:
        spec = commands.load(name)
        children = spec.commands.items() if isinstance(spec, framework.Group) else [("", spec)]
        undeclared |= {f"{name} {child_name}".strip() for child_name, child in children if not child.replies}
    assert undeclared == set(UNTYPED), sorted(undeclared ^ set(UNTYPED))


def test_a_result_is_truthy_without_building_its_json():
    """`if report:` asks whether there is one: a result whose keys are all absent optional ones is
    still there, and the test does not build the JSON (`__len__`) to answer."""

    class Quiet(results.Result):
        OPTIONAL: typing.ClassVar[frozenset[str]] = frozenset({"note"})
        note: str | None = None

        def to_dict(self) -> dict:
            raise AssertionError("truthiness built the JSON")

    quiet = Quiet()
    assert quiet
    assert len(results.Result.to_dict(quiet)) == 0


def test_field_values_are_every_field_as_given_hidden_ones_too():
    """A variant is built from its base's values (`Sub(**base.field_values(), more=…)`): the folded
    view a reply carries for the faces goes along, and nothing is turned into JSON on the way."""
    detail = _sample(item_results.ItemDetail)
    values = detail.field_values()
    assert values["view"] is detail.view and "view" not in detail.to_dict()
    assert type(detail)(**values) == detail
