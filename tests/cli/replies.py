"""Shared by the typed-result tests: every area's result samples, and the check that a real CLI
reply is its declared result's keys in order, then `next`, valid against `hall schema <command>`.

Each area keeps its samples in its own `tests/cli/samples_<area>.py` (a `SAMPLES` mapping: result
type → a function making one), so areas add result types without touching each other's files.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable
from pathlib import Path

import jsonschema
from hallmark.core import results

from .test_meta_cli import run_main


def all_samples() -> dict[type[results.Result], Callable[[], results.Result]]:
    made: dict[type[results.Result], Callable[[], results.Result]] = {}
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name.startswith("samples_"):
            made.update(importlib.import_module(f"{__package__}.{module.name}").SAMPLES)
    return made


def schema_of(monkeypatch, root: Path, command: str) -> dict:
    code, out = run_main(monkeypatch, root, "schema", *command.split())
    assert code == 0, out
    return json.loads(out)


def reply_of(monkeypatch, root: Path, *args: str) -> dict:
    """`hall <args>` in-process; its JSON reply (the command must succeed)."""
    code, out = run_main(monkeypatch, root, *args)
    assert code == 0, (args, out)
    return json.loads(out)


def check_reply(monkeypatch, root: Path, command: str, data: dict, cls: type[results.Result], *extra: str) -> None:
    """`data` (a real reply of `hall <command>`) is valid against its schema and carries `cls`'s keys
    in order (an optional key may be absent), then `next`, then `extra` (keys the face adds)."""
    schema = schema_of(monkeypatch, root, command)
    jsonschema.validate(data, schema["definitions"]["reply"])
    keys = [k for k in results.reply_keys(cls) if k in data]
    assert list(data) == [*keys, "next", *extra], (command, list(data))
