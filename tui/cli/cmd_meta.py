"""Commands about Hallmark itself: init, doctor, reindex, help, schema."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hallmark.core import doctor, setup_repo
from hallmark.core.errors import EXIT_CODES, HallError
from hallmark.core.repo import open_repo

from . import text
from .framework import add


def cmd_init(args: argparse.Namespace) -> dict[str, Any]:
    return setup_repo.init(Path.cwd(), capture=args.capture, base=args.base, claude_md=not args.no_claude_md)


def cmd_doctor(args: argparse.Namespace) -> dict[str, Any]:
    result = doctor.run(Path.cwd())
    if not result["ok"]:
        result["_exit"] = 1
    return result


def cmd_reindex(args: argparse.Namespace) -> dict[str, Any]:
    repo = open_repo()
    events = repo.index.rebuild()
    return {"events": events, "items": len(repo.index.items()), "next": ["hall status --all"]}


def cmd_help(args: argparse.Namespace) -> dict[str, Any]:
    from . import help_json

    data = help_json()
    data["exit_codes"] = EXIT_CODES
    data["next"] = ["hall schema error", "hall schema event", "hall schema config"]
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
    for arg in entry["arguments"]:
        key = arg["name"].lstrip("-").replace("-", "_")
        schema: dict[str, Any] = {"type": arg["type"], "description": arg["help"]}
        if arg["type"] == "array":
            schema["items"] = {"type": "string"}
        if arg["choices"]:
            target = schema["items"] if arg["type"] == "array" else schema
            target["enum"] = arg["choices"]
        if arg["flags"]:
            schema["x-flags"] = arg["flags"]
        props[key] = schema
        if arg["required"]:
            required.append(key)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _command_schema(name: str) -> dict[str, Any]:
    """A command's arguments as JSON Schema (from its argparse definition), and its reply's frame."""
    from . import help_json

    commands = help_json()["commands"]
    if name == "command":
        return {"$schema": JSON_SCHEMA, "title": "hall commands",
                "description": "The arguments of every command; each reply is a JSON object with `next`.",
                "type": "object",
                "properties": {e["command"]: {"$ref": f"#/$defs/{e['command'][5:].replace(' ', '_')}"}
                               for e in commands},
                "$defs": {**{e["command"][5:].replace(" ", "_"): {"title": e["command"], "description": e["help"],
                                                                   **_arguments_schema(e)} for e in commands},
                          "reply": REPLY_SCHEMA}}
    for entry in commands:
        if entry["command"] == f"hall {name}":
            return {"$schema": JSON_SCHEMA, "title": entry["command"], "description": entry["help"],
                    **_arguments_schema(entry), "$defs": {"reply": REPLY_SCHEMA}}
    raise HallError("USAGE", f"No command or schema named '{name}'.",
                    ["hall help --json", "hall schema command", "hall schema error", "hall schema event", "hall schema config"])


def cmd_schema(args: argparse.Namespace) -> dict[str, Any]:
    name = " ".join(args.name)
    if name == "error":
        from hallmark.core.events import ErrorReply

        schema = ErrorReply.model_json_schema()
        schema["x-exit-codes"] = EXIT_CODES
    elif name == "event":
        from hallmark.core.events import event_schema

        schema = event_schema()
    elif name == "config":
        from hallmark.core.config import Config

        schema = Config.model_json_schema(by_alias=True)
    else:
        extra = _extra_schema(name)
        schema = extra if extra is not None else _command_schema(name)
    from hallmark.core.draft7 import to_draft7

    schema = to_draft7(schema)
    # the contract: every reply carries `next` (an unknown keyword to JSON Schema, so harmless)
    schema.setdefault("next", ["hall help --json", "hall schema command"])
    return schema


def _extra_schema(name: str) -> dict[str, Any] | None:
    """Schemas owned by other parts (verdict, learning, …) register in SCHEMAS."""
    factory = SCHEMAS.get(name)
    return factory() if factory else None


SCHEMAS: dict[str, Any] = {}


def register(sub: argparse._SubParsersAction) -> None:
    p = add(sub, "init", cmd_init, "Set Hallmark up in this repository.", text=text.init)
    p.add_argument("--capture", choices=["gate", "ask", "off"], default="gate")
    p.add_argument("--base", help="the base branch (default: origin/HEAD, else the current branch)")
    p.add_argument("--no-claude-md", action="store_true", help="do not write the CLAUDE.md section")

    add(sub, "doctor", cmd_doctor, "Check git, the state directory, the config, the journals and the hooks.", text=text.doctor)
    add(sub, "reindex", cmd_reindex, "Rebuild the SQLite index from the journals.")
    add(sub, "help", cmd_help, "Every command with its arguments (use --json).", text=text.help_table)
    p = add(sub, "schema", cmd_schema, "JSON Schema for a command (or `command` for all), error, event or config.",
            text=text.schema)
    p.add_argument("name", nargs="+")
