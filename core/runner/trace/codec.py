"""JSON in and out of a run's stream, fast when it can be: orjson when it is installed (about four
times faster on big files), the json module as the more lenient fallback. Its own module so the
parser and the one-line texts share one codec without either owning the other.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

try:  # orjson parses a run file about four times faster; stdlib json stays the (more lenient) fallback
    import orjson

    _orjson: ModuleType | None = orjson
except ImportError:  # pragma: no cover - orjson is a dependency, but the parser must not need it
    _orjson = None
_fast_loads = _orjson.loads if _orjson is not None else json.loads


def loads(raw: bytes | str) -> Any:
    """Decode one JSON text: fast when it can be, exactly as lenient as the json module otherwise."""
    try:
        return _fast_loads(raw)
    except ValueError:  # orjson refuses a few things json accepts (NaN, huge integers, lone surrogates)
        return json.loads(raw)


def dumps_line(value: Any) -> str:
    """One compact JSON line (no newline), fast when it can be."""
    if _orjson is not None:
        try:
            return _orjson.dumps(value, default=str).decode("utf-8")
        except (TypeError, ValueError):  # integers past 64 bits, odd keys: the json module copes
            pass
    return json.dumps(value, ensure_ascii=False, default=str)


def pretty(value: Any) -> str:
    """Indented JSON for a step's detail (tool inputs, whole records)."""
    if _orjson is not None:
        try:
            return _orjson.dumps(value, default=str, option=_orjson.OPT_INDENT_2).decode("utf-8")
        except (TypeError, ValueError):
            pass
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # pragma: no cover - default=str makes this near impossible
        return repr(value)


def compact(value: Any, limit: int) -> str:
    """Compact JSON on one line, cut to limit characters (with an ellipsis when cut)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    except (TypeError, ValueError):  # pragma: no cover
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
