"""A GraphQL answer cut to exactly what the query selected (gh decodes some answers strictly).

Not a GraphQL engine: it reads a document's selection sets (fields, aliases, arguments skipped,
inline and named fragments) and projects a superset answer onto them. Loaded by scripted_github.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?|[{}():@$!\[\],=]')


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(re.sub(r"#[^\n]*", "", text)) if t != ","]
        self.i = 0
        self.fragments: dict[str, list[Any]] = {}

    def peek(self) -> str:
        return self.tokens[self.i] if self.i < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        self.i += 1
        return token

    def skip_balanced(self, opening: str, closing: str) -> None:
        depth = 0
        while self.i < len(self.tokens):
            token = self.take()
            depth += token == opening
            depth -= token == closing
            if depth == 0:
                return

    def document(self) -> list[Any]:
        operation: list[Any] = []
        while self.i < len(self.tokens):
            token = self.peek()
            if token == "fragment":
                self.take()
                name = self.take()
                self.take()  # on
                self.take()  # the type
                self.fragments[name] = self.selection_set()
            elif token == "{":
                operation = self.selection_set()
            elif token == "(":
                self.skip_balanced("(", ")")
            else:
                self.take()
        return operation

    def selection_set(self) -> list[Any]:
        self.take()  # {
        found: list[Any] = []
        while self.peek() not in ("}", ""):
            if self.peek() == "...":
                self.take()
                if self.peek() == "on":
                    self.take()
                    kind = self.take()
                    found.append(("on", kind, self.selection_set()))
                else:
                    found.append(("spread", self.take(), None))
                continue
            name = self.take()
            alias = name
            if self.peek() == ":":
                self.take()
                name = self.take()
            if self.peek() == "(":
                self.skip_balanced("(", ")")
            while self.peek() == "@":
                self.take()
                self.take()
                if self.peek() == "(":
                    self.skip_balanced("(", ")")
            sub = self.selection_set() if self.peek() == "{" else None
            found.append(("field", alias, (name, sub)))
        self.take()  # }
        return found


def _project(value: Any, selections: list[Any], fragments: dict[str, list[Any]]) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return [_project(v, selections, fragments) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for kind, key, rest in selections:
        if kind == "field":
            name, sub = rest
            src = value.get(name)
            out[key] = _project(src, sub, fragments) if sub is not None else src
        elif kind == "on":
            if value.get("__typename") in (key, None):
                out.update(_project(value, rest, fragments))
        elif key in fragments:
            out.update(_project(value, fragments[key], fragments))
    return out


def select(data: Any, query: str) -> Any:
    """`data` (a superset answer's `data`) cut to the query's selection."""
    parser = _Parser(query)
    operation = parser.document()
    return _project(data, operation, parser.fragments)
