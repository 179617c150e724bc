"""The static command table (tui/cli/commands.py) is the one truth of what `hall` offers: every entry
is declared by its module, `hall help` lists exactly it, every registered schema prints, and
running one command loads that command's module and no other."""

from __future__ import annotations

import importlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hallmark.tui.cli import commands, framework
from hallmark.tui.cli.commands import COMMANDS, GROUPS, SCHEMAS, in_group

from .test_items_cli import assert_error

PROJECT = Path(__file__).resolve().parents[2]
CLI_DIR = PROJECT / "tui" / "cli"
FRAME = {"__init__", "framework", "commands", "text"}  # the CLI's frame: no command is declared there


def _top_level(module: object) -> set[str]:
    """The commands a module declares for `hall <name>`: its groups, and commands in no group."""
    declared = [value for value in vars(module).values() if isinstance(value, framework.Command | framework.Group)]
    children = {
        id(child) for group in declared if isinstance(group, framework.Group) for child in group.commands.values()
    }
    return {spec.name for spec in declared if id(spec) not in children}


def test_every_command_in_the_table_is_declared_by_its_module():
    for name, info in COMMANDS.items():
        module = importlib.import_module(info.module)
        declared = getattr(module, info.handler, None)
        assert isinstance(declared, framework.Command | framework.Group), (name, info)
        assert declared.name == name, (name, info, declared.name)
        assert commands.load(name) is declared
        if isinstance(declared, framework.Command):
            assert declared.summary is None, f"hall {name}: its summary belongs in the table, once"
        else:
            assert declared.commands, f"hall {name} is a group without subcommands"
            assert all(child.summary for child in declared.commands.values()), name


def test_every_module_is_a_group_and_declares_only_what_the_table_lists():
    """A command declared in a module but missing from the table (or a module no group names)
    would be unreachable: `hall` imports only what the table points at."""
    packages = {path.parent.name for path in CLI_DIR.glob("*/__init__.py")}  # a group in parts (tui/cli/library/)
    modules = ({path.stem for path in CLI_DIR.glob("*.py")} | packages) - FRAME
    assert modules == set(GROUPS), "each module under tui/cli/ is one command group, and each group one module"
    for group in GROUPS:
        module = importlib.import_module(f"{commands.PACKAGE}.{group}")
        assert _top_level(module) == set(in_group(group)), group
    for package in packages:  # its parts declare only the group's subcommands
        for part in (CLI_DIR / package).glob("*.py"):
            module = importlib.import_module(f"{commands.PACKAGE}.{package}.{part.stem}")
            assert _top_level(module) <= set(in_group(package)), part
    assert [info.group for info in COMMANDS.values()] == sorted(
        (info.group for info in COMMANDS.values()), key=list(GROUPS).index
    ), "the table lists a group's commands together"


def test_a_command_the_table_points_at_wrongly_is_an_error_not_a_silent_other_command(monkeypatch):
    monkeypatch.setitem(COMMANDS, "status", commands.CommandInfo("items", "cmd_log", "wrong"))
    with pytest.raises(LookupError, match="declares `hall log`, not `hall status`"):
        commands.load("status")


def test_hall_help_lists_exactly_the_table_by_group(hall, hall_repo):
    data = hall("help", "--json", cwd=hall_repo.root).json
    top = [entry for entry in data["commands"] if " " not in entry["command"].removeprefix("hall ")]
    assert [entry["command"] for entry in top] == [f"hall {name}" for name in COMMANDS]
    assert [entry["help"] for entry in top] == [info.summary for info in COMMANDS.values()]
    assert [(g["group"], g["summary"]) for g in data["groups"]] == list(GROUPS.items())
    assert [c for g in data["groups"] for c in g["commands"]] == [f"hall {name}" for name in COMMANDS]
    brief = hall("help", "--brief", cwd=hall_repo.root).json
    assert brief["commands"] == [
        {"command": f"hall {name}", "group": info.group, "help": info.summary} for name, info in COMMANDS.items()
    ]
    assert brief["groups"] == data["groups"] and brief["next"] and brief["exit_codes"]["USAGE"] == 2


def test_hall_help_for_one_command_or_group(hall, hall_repo):
    root = hall_repo.root
    drop = hall("help", "drop", cwd=root).json
    assert [c["command"] for c in drop["commands"]] == ["hall drop"]
    assert {a["name"] for a in drop["commands"][0]["arguments"]} == {
        "id",
        "--reason",
        "--keep-worktree",
        "--delete-ignored",
    }
    note = hall("help", "note", cwd=root).json
    assert [c["command"] for c in note["commands"]] == [
        "hall note",
        "hall note add",
        "hall note list",
        "hall note show",
        "hall note remove",
    ]
    accept = hall("help", "library", "accept", cwd=root).json
    assert [c["command"] for c in accept["commands"]] == ["hall library accept"]
    assert_error(hall("help", "frobnicate", cwd=root), "USAGE", 2)
    assert_error(hall("help", "library", "frobnicate", cwd=root), "USAGE", 2)


def test_an_unknown_command_names_every_command_and_loads_none(hall, hall_repo):
    error = assert_error(hall("frobnicate", cwd=hall_repo.root), "USAGE", 2)
    for name in COMMANDS:
        assert f"'{name}'" in error["message"]


def _run_main(monkeypatch, cwd: Path, *args: str) -> tuple[int, str]:
    from hallmark.tui.cli import main

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:  # undoing the test's own would undo its isolated HOME
        patch.chdir(cwd)
        patch.setattr("sys.stdout", out)
        code = main(list(args))
    return code, out.getvalue()


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_each_schema_in_the_registry_prints(name, hall_repo, monkeypatch):
    code, out = _run_main(monkeypatch, hall_repo.root, "schema", name)
    assert code == 0, out
    schema = json.loads(out)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"  # what Claude Code accepts
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema.get("properties") or schema.get("anyOf") or schema.get("definitions"), name
    assert schema["next"]


def test_a_registered_constant_is_copied_so_printing_it_changes_nothing(hall_repo, monkeypatch):
    from hallmark.core.runner import trace

    before = json.dumps(trace.STEP_SCHEMA, sort_keys=True)
    for _ in range(2):
        code, out = _run_main(monkeypatch, hall_repo.root, "schema", "trace-step")
        assert code == 0 and "next" in json.loads(out)
    assert json.dumps(trace.STEP_SCHEMA, sort_keys=True) == before
    assert "next" not in trace.STEP_SCHEMA


def test_every_registry_entry_names_a_real_function_or_schema():
    for name, target in SCHEMAS.items():
        module, sep, attribute = target.partition(":")
        assert sep and re.fullmatch(r"[\w.]+", module) and attribute.isidentifier(), (name, target)
        value = getattr(importlib.import_module(module), attribute)
        assert callable(value) or isinstance(value, dict), (name, target)


# Each probe runs in a fork of one interpreter that has loaded only the CLI's frame, so what it
# loads is what that one command loads (a fork per probe: cheap, and nothing leaks between them).
LOADS = r"""
import contextlib, io, json, os, sys
from hallmark.tui.cli import build_parser, main
from hallmark.tui.cli.commands import GROUPS, PACKAGE

def probe(kind, name):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with contextlib.redirect_stdout(io.StringIO()):
            if kind == "parser":
                build_parser(name)
            else:
                main(name.split())
        loaded = sorted(g for g in GROUPS if f"{PACKAGE}.{g}" in sys.modules)
        os.write(write, json.dumps(loaded).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)

before = sorted(g for g in GROUPS if f"{PACKAGE}.{g}" in sys.modules)
probes = json.loads(sys.argv[1])
print(json.dumps({"before": before, "loads": {f"{kind} {name}": probe(kind, name) for kind, name in probes}}))
"""


def _loads(probes: list[tuple[str, str]], cwd: Path) -> dict[str, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", LOADS, json.dumps(probes)], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["before"] == [], "the CLI's frame alone loads no command module"
    return result["loads"]


def test_build_parser_for_one_command_loads_only_that_commands_module(tmp_path):
    loads = _loads([("parser", name) for name in COMMANDS] + [("parser", "frobnicate")], tmp_path)
    for name, info in COMMANDS.items():
        assert loads[f"parser {name}"] == [info.group], name
    assert loads["parser frobnicate"] == []  # an unknown name: every name listed, nothing loaded


def test_help_and_schema_load_only_what_they_describe(hall_repo):
    loads = _loads(
        [
            ("main", "help --brief"),
            ("main", "help drop"),
            ("main", "help note add"),
            ("main", "schema drop"),
            ("main", "schema library accept"),
            ("main", "schema nothing-here"),
            *[("main", f"schema {name}") for name in SCHEMAS],
            ("main", "help"),
        ],
        hall_repo.root,
    )
    assert loads["main help --brief"] == ["meta"]
    assert loads["main help drop"] == ["items", "meta"]
    assert loads["main help note add"] == ["meta", "notes"]
    assert loads["main schema drop"] == ["items", "meta"]
    assert loads["main schema library accept"] == ["library", "meta"]
    assert loads["main schema nothing-here"] == ["meta"]
    for name in SCHEMAS:  # a registered schema loads its own module, and no command's
        if name == "verdict":  # but the file `hall verdict` reads also describes that command's reply
            assert loads[f"main schema {name}"] == ["loop", "meta"], name
            continue
        assert loads[f"main schema {name}"] == (sorted(GROUPS) if name == "command" else ["meta"]), name
    assert loads["main help"] == sorted(GROUPS)  # every command with its arguments: every module


def _readme_rows() -> list[tuple[str, str]]:
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Commands for people and agents", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 3 and cells[0] not in ("group", "---"):
            rows.append((cells[0], cells[1]))
    return rows


def test_the_readme_lists_the_same_groups_and_commands():
    rows = _readme_rows()
    assert [group for group, _ in rows] == list(GROUPS)
    for group, cell in rows:
        named = set()
        for code in re.findall(r"`([^`]+)`", cell):
            words = code.removeprefix("hall ").split()
            named.add(words[0])
        assert named == set(in_group(group)), (group, named)


def test_every_person_only_command_is_a_command_in_the_table():
    """The person-only table (core/person_only.py) names commands by the words typed: a command
    renamed in the table but not there would quietly become an agent's."""
    from hallmark.core.person_only import PERSON_ONLY

    for command, subcommand, _flags in PERSON_ONLY:
        assert command in COMMANDS, command
        declared = commands.load(command)
        if isinstance(declared, framework.Group) and subcommand is not None and subcommand != "edit":
            assert subcommand in declared.commands, (command, subcommand)  # `library edit`: refused ahead of time
