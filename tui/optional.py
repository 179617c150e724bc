"""Parts built by other engineers are imported lazily: the app works without them.

`load("hallmark.core.loop.findings")` returns the module, or None when it does not exist
yet. A module that exists but fails to import for another reason is a real bug: re-raise.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            return None
        raise


def has(name: str, attr: str | None = None) -> bool:
    module = load(name)
    return module is not None and (attr is None or hasattr(module, attr))
