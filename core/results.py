"""The base of every typed answer a core verb gives: a frozen, slotted value the faces read by
attribute, turn into JSON with `to_dict()` (the reply's keys, in the order the CLI prints them,
without `next`: the face adds that) and describe with `json_schema()` (what `hall schema <command>`
says of the reply, so the result type and the schema cannot drift apart).

simonw/llm's typed `Response`/`Usage`: the core returns objects, the face decides how to print them.

Declared like dataclasses (fields are annotations, keyword-only, frozen; `dataclass_transform`
tells a type checker so), but built by a metaclass that only reads the annotations: no generated
code to compile. Twenty `@dataclass(slots=True, frozen=True)` classes cost every `hall status`
about 20 ms of `exec` (benchmarks/cli.py); these cost well under one.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, ClassVar, Literal


class _Hidden:
    """A field carried for the faces (the folded view behind a reply) but not in the JSON reply."""

    __slots__ = ("default",)

    def __init__(self, default: Any) -> None:
        self.default = default


_REQUIRED: Any = object()


def hidden(*, default: Any = _REQUIRED) -> Any:
    """`view: ItemView = hidden()`: a field not in `to_dict()`, the schema or the JSON view."""
    return _Hidden(default)


@typing.dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(hidden,))
class _ResultMeta(type):
    """Makes each Result class slotted from its own annotations; records every field in order
    (a base's first), its defaults and which are hidden."""

    _fields: tuple[str, ...]
    _defaults: dict[str, Any]
    _hidden: frozenset[str]

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> _ResultMeta:
        own = [
            field
            for field, hint in ns.get("__annotations__", {}).items()
            if not str(hint).startswith(("ClassVar", "typing.ClassVar"))
        ]
        defaults: dict[str, Any] = {}
        hidden_names: set[str] = set()
        for field in own:
            if field not in ns:
                continue
            value = ns.pop(field)
            if isinstance(value, _Hidden):
                hidden_names.add(field)
                value = value.default
            if value is not _REQUIRED:
                defaults[field] = value
        ns.setdefault("__slots__", tuple(own))
        cls = super().__new__(mcs, name, bases, ns)
        inherited = [b for b in bases if isinstance(b, _ResultMeta)]
        cls._fields = tuple(f for b in inherited for f in b._fields) + tuple(own)
        cls._defaults = {k: v for b in inherited for k, v in b._defaults.items()} | defaults
        cls._hidden = frozenset().union(*(b._hidden for b in inherited), hidden_names)
        return cls


class Result(metaclass=_ResultMeta):
    """One verb's answer. Subclasses add fields; `to_dict()` emits them in declaration order."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]]
    _defaults: ClassVar[dict[str, Any]]
    _hidden: ClassVar[frozenset[str]]

    # A key that appears only when the value is not None (and is then required of nobody).
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    # Keys a subclass puts before its base's (a usage row's `key` before the sums it shares).
    FIRST: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        for name in cls._fields:
            if name in values:
                value = values.pop(name)
            elif name in cls._defaults:
                value = cls._defaults[name]
            else:
                raise TypeError(f"{cls.__name__}() needs {name}=")
            object.__setattr__(self, name, value)
        if values:
            raise TypeError(f"{cls.__name__}() has no field {sorted(values)[0]!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: it cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: it cannot delete {name}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in type(self)._fields if name not in self._hidden
        )

    __hash__ = None  # type: ignore[assignment]  # lists inside: compared, never hashed

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in reply_keys(type(self)))
        return f"{type(self).__name__}({shown})"

    def field_values(self) -> dict[str, Any]:
        """Every field by name, hidden ones too, as given (not the JSON): to build a variant of a
        result (`Sub(**base.field_values(), more=…)`) or a copy with one field changed."""
        return {name: getattr(self, name) for name in type(self)._fields}

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

    def __bool__(self) -> bool:
        """A result is there or it is not (`if report:`): never falsy for having no keys, and never
        building its JSON (`__len__`) just to be tested."""
        return True

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


def reply_keys(cls: type[Result]) -> tuple[str, ...]:
    """The JSON keys of a result class, in order (its FIRST, then its fields in declaration order,
    a base's first; not the hidden ones)."""
    keys = _KEYS.get(cls)
    if keys is None:
        names = [name for name in cls._fields if name not in cls._hidden]
        keys = (*cls.FIRST, *(name for name in names if name not in cls.FIRST))
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
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    Any: {},
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
