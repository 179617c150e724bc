"""Config keys that `hall schema config` lists but Hallmark does not act on yet: refused, not ignored.

A key a person sets expects to change something. Where the part behind it is not built, accepting it
would be silence that looks like success, so `config.load` refuses the file (INVALID_CONFIG, naming
the key and its line) unless the value is the one thing Hallmark already does. When a part is built,
its keys leave this table (and a test proves each listed key is refused, each other key accepted).
"""

from __future__ import annotations

from typing import Any

# dotted key -> (the value that is the truth today, or None: no value is; what is missing)
NOT_BUILT: dict[str, tuple[Any, str]] = {
    "merge.mode": ("off", "the merger is not built yet: PRs are merged by a person"),
    "merge.command": (None, "the merger is not built yet, so nothing runs the merge command"),
    "merge.require_ci": (None, "the merger is not built yet"),
    "merge.lit": (None, "the merger and the Delivery Office's fixes are not built yet, so no path is held for you"),
    "merge.update": (None, "the merger is not built yet"),
    "intake.split": (None, "the Front Desk does not split requests yet"),
    "intake.max_parts": (None, "the Front Desk does not split requests yet"),
    "lenses": ("all", "the reviewer always uses all seven lenses; choosing lenses is not built yet"),
    "library.search": ("builtin", "only the built-in Library search exists (qmd is not built)"),
    "extensions": ({}, "extensions are not built yet"),
}


def _value(data: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    value: Any = data
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def unsupported(data: dict[str, Any]) -> tuple[str, str] | None:
    """(the first key the file sets that Hallmark does not act on, why), or None."""
    for key, (truth, why) in NOT_BUILT.items():
        present, value = _value(data, key)
        if present and (truth is None or value != truth):
            return key, why
    return None
