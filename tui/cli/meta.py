"""Self-description: `hall help` (every command, by group) and `hall schema <name>` (JSON Schema).

Both read the static tables in commands.py first, and load a command's module only to describe
its arguments: `hall help --brief` loads none, `hall help drop` and `hall schema drop` load one.
"""

from __future__ import annotations

import argparse
import copy
import importlib
from typing import Any

from hallmark.core.errors import EXIT_CODES, HallError

from . import text
from .commands import COMMANDS, GROUPS, SCHEMAS, in_group, load
from .framework import Command, Group, arg, command


def groups() -> list[dict[str, Any]]:
    """The command groups as the README's table shows them (from the table: nothing is loaded)."""
    return [
        {"group": group, "summary": summary, "commands": [f"hall {name}" for name in in_group(group)]}
        for group, summary in GROUPS.items()
    ]


def brief() -> list[dict[str, Any]]:
    """Every command's name, group and one-line summary, from the command table alone."""
    return [{"command": f"hall {name}", "group": info.group, "help": info.summary} for name, info in COMMANDS.items()]


def described(words: list[str]) -> list[dict[str, Any]]:
    """One command (or group, with its subcommands) with its arguments, loading only its module."""
    from . import build_parser
    from .framework import describe_parser

    full = "hall " + " ".join(words)
    if words and words[0] in COMMANDS:
        found = [
            e
            for e in describe_parser(build_parser(words[0]))
            if e["command"] == full or e["command"].startswith(full + " ")
        ]
        if found:
            return found
    raise HallError("USAGE", f"No command named '{' '.join(words)}'.", ["hall help --brief", "hall help --json"])


@command(
    "help",
    text=text.help_table,
    args=[
        arg("name", nargs="*", help="only this command (or group of subcommands), loading only its module"),
        arg("--brief", action="store_true", help="names, groups and one-line summaries only (loads no command)"),
    ],
)
def cmd_help(args: argparse.Namespace) -> dict[str, Any]:
    from . import GLOBAL_OPTIONS, help_json

    if args.name:
        words = " ".join(args.name).split()
        data: dict[str, Any] = {"commands": described(words), "global_options": GLOBAL_OPTIONS}
        data["next"] = [f"hall schema {' '.join(words)}", "hall help --brief"]
    elif args.brief:
        data = {"commands": brief(), "groups": groups(), "global_options": GLOBAL_OPTIONS}
        data["next"] = ["hall help <command>", "hall help --json", "hall schema command"]
    else:
        data = help_json()
        data["next"] = ["hall schema error", "hall schema event", "hall schema config"]
    data["exit_codes"] = EXIT_CODES
    return data


JSON_SCHEMA = "http://json-schema.org/draft-07/schema#"  # what Claude Code accepts (core/draft7.py)

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every successful reply is a JSON object that carries `next`: the commands that make sense now.",
    "required": ["next"],
    "properties": {"next": {"type": "array", "items": {"type": "string"}}},
}


def _arguments_schema(entry: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required = []
    for argument in entry["arguments"]:
        key = argument["name"].lstrip("-").replace("-", "_")
        schema: dict[str, Any] = {"type": argument["type"], "description": argument["help"]}
        if argument["type"] == "array":
            schema["items"] = {"type": "string"}
        if argument["choices"]:
            target = schema["items"] if argument["type"] == "array" else schema
            target["enum"] = argument["choices"]
        if argument["flags"]:
            schema["x-flags"] = argument["flags"]
        props[key] = schema
        if argument["required"]:
            required.append(key)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _definition(entry: dict[str, Any]) -> dict[str, Any]:
    return {"title": entry["command"], "description": entry["help"], **_arguments_schema(entry)}


def commands_schema() -> dict[str, Any]:
    """`hall schema command`: the arguments of every command (loads every command's module)."""
    from . import help_json

    commands = help_json()["commands"]
    return {
        "$schema": JSON_SCHEMA,
        "title": "hall commands",
        "description": "The arguments of every command; each reply is a JSON object with `next`.",
        "type": "object",
        "properties": {e["command"]: {"$ref": f"#/$defs/{e['command'][5:].replace(' ', '_')}"} for e in commands},
        "$defs": {**{e["command"][5:].replace(" ", "_"): _definition(e) for e in commands}, "reply": REPLY_SCHEMA},
    }


def error_schema() -> dict[str, Any]:
    """`hall schema error`: every error reply, with the exit code of each code."""
    from hallmark.core.events import ErrorReply

    schema = ErrorReply.model_json_schema()
    schema["x-exit-codes"] = EXIT_CODES
    return schema


def config_schema() -> dict[str, Any]:
    """`hall schema config`: `.hallmark.toml`, keys as they are written."""
    from hallmark.core.config import Config

    return Config.model_json_schema(by_alias=True)


def registered(name: str) -> dict[str, Any] | None:
    """The schema the registry (commands.SCHEMAS) names, or None: a function is called, a constant copied."""
    target = SCHEMAS.get(name)
    if target is None:
        return None
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    return value() if callable(value) else copy.deepcopy(value)


def reply_schema(words: list[str]) -> dict[str, Any]:
    """A command's reply: the keys of the core result types it declares (`replies=`), then `next`;
    the bare frame (an object with `next`) for a command that declares none."""
    spec = load(words[0])
    for word in words[1:]:
        spec = spec.commands[word] if isinstance(spec, Group) and word in spec.commands else spec
    shapes = [_with_next(cls.json_schema()) for cls in spec.replies] if isinstance(spec, Command) else []
    if not shapes:
        return REPLY_SCHEMA
    return shapes[0] if len(shapes) == 1 else {"description": REPLY_SCHEMA["description"], "anyOf": shapes}


def _with_next(shape: dict[str, Any]) -> dict[str, Any]:
    return {
        **shape,
        "required": [*shape["required"], "next"],
        "properties": {**shape["properties"], "next": REPLY_SCHEMA["properties"]["next"]},
    }


def _command_schema(words: list[str]) -> dict[str, Any]:
    """A command's arguments as JSON Schema (from its argparse definition), and its reply."""
    full = "hall " + " ".join(words)
    if words and words[0] in COMMANDS:
        for entry in described(words[:1]):
            if entry["command"] == full:
                return {"$schema": JSON_SCHEMA, **_definition(entry), "$defs": {"reply": reply_schema(words)}}
    raise HallError(
        "USAGE",
        f"No command or schema named '{' '.join(words)}'.",
        ["hall help --json", "hall schema command", "hall schema error", "hall schema event", "hall schema config"],
    )


@command("schema", text=text.schema, args=[arg("name", nargs="+")])
def cmd_schema(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.draft7 import to_draft7

    name = " ".join(args.name)
    found = registered(name)
    if found is not None and name in COMMANDS and isinstance(spec := load(name), Command) and spec.replies:
        # a format named like a command (`verdict`: the file `hall verdict --file` reads) also
        # describes the command's reply, where every command's reply is: `$defs.reply`
        found.setdefault("$defs", {})["reply"] = reply_schema([name])
    schema = to_draft7(found if found is not None else _command_schema(name.split()))
    # the contract: every reply carries `next` (an unknown keyword to JSON Schema, so harmless)
    schema.setdefault("next", ["hall help --json", "hall schema command"])
    return schema
