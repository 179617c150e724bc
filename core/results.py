"""The base of every typed answer a core verb gives: a frozen dataclass the faces read by attribute,
turn into JSON with `to_dict()` (the reply's keys, in the order the CLI prints them, without
`next`: the face adds that) and describe with `json_schema()` (what `hall schema <command>` says
of the reply, so the result type and the schema cannot drift apart).

simonw/llm's typed `Response`/`Usage`: the core returns objects, the face decides how to print them.
Off the hook path (dataclasses import `inspect`); the hook reads `states.ItemView`, a plain class.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

# A field with this metadata is carried for the faces (the folded view behind a reply, say) but is
# not part of the JSON reply.
NOT_IN_REPLY: dict[str, Any] = {"reply": False}


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """One verb's answer. Subclasses add fields; `to_dict()` emits them in declaration order."""

    # A key that appears only when the value is not None (and is then required of nobody).
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    # Keys a subclass puts before its base's (a usage row's `key` before the sums it shares).
    FIRST: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in reply_keys(type(self)):
            value = getattr(self, name)
            if name in self.OPTIONAL and value is None:
                continue
            out[name] = _plain(value)
        return out

    # A read-only view of the JSON reply by key (`result["item"]`, `"damaged" in result`, `.get`),
    # for scripts, text renderers and tests written against the JSON; code reads attributes. Not a
    # Mapping: `items`, `keys` and `values` stay free to be field names (StatusAll.items).
    def __getitem__(self, key: str) -> Any:
        if key not in reply_keys(type(self)) or (key in self.OPTIONAL and getattr(self, key) is None):
            raise KeyError(key)
        return _plain(getattr(self, key))

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.to_dict()

    def get(self, key: str, default: Any = None) -> Any:
        """As `dict.get` on the JSON reply."""
        return self.to_dict().get(key, default)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The reply as JSON Schema: each key of `to_dict()`, typed from the field's annotation."""
        hints = typing.get_type_hints(cls)
        keys = reply_keys(cls)
        return {
            "type": "object",
            "title": cls.__name__,
            "description": (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " "),
            "required": [k for k in keys if k not in cls.OPTIONAL],
            "properties": {k: _schema_of(hints[k]) for k in keys},
        }


_KEYS: dict[type, tuple[str, ...]] = {}


def reply_keys(cls: type) -> tuple[str, ...]:
    """The JSON keys of a result class, in order (its FIRST, then its fields in declaration order;
    not those marked NOT_IN_REPLY)."""
    keys = _KEYS.get(cls)
    if keys is None:
        names = [f.name for f in dataclasses.fields(cls) if f.metadata.get("reply", True)]
        first: tuple[str, ...] = getattr(cls, "FIRST", ())
        keys = (*first, *(name for name in names if name not in first))
        _KEYS[cls] = keys
    return keys


def _plain(value: Any) -> Any:
    """Nested results become their dicts; tuples (frozen lists) become lists."""
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"}, bool: {"type": "boolean"},
    type(None): {"type": "null"}, Any: {},
}


def _schema_of(hint: Any) -> dict[str, Any]:
    """JSON Schema for a field's annotation (the shapes results use; anything else is unconstrained)."""
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema_of(a) for a in args]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, tuple):
        return {"type": "array", "items": _schema_of(args[0]) if args else {}}
    if origin is dict or hint is dict:
        return {"type": "object"}
    if isinstance(hint, type) and issubclass(hint, Result):
        return hint.json_schema()
    return {}
