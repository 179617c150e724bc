"""A small YAML reader for craft's `.craft/.learnings.yaml` (block style, the subset craft writes).

Why not PyYAML: the memory store is on the hook path and stays stdlib-only, and one import
format does not justify a dependency. Supported: block mappings and sequences (including
`- key: value` items), plain / 'single' / "double" quoted scalars, flow lists `[a, "b"]`, simple
flow maps, `|` and `>` block scalars, comments, ints, floats, booleans and null. Anything else is
a clear error with its line number, never a silent misread.
"""

from __future__ import annotations

import json
import re
from typing import Any


class YamlError(ValueError):
    pass


def _strip_comment(text: str) -> str:
    out, quote = [], ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            break
        out.append(char)
    return "".join(out).rstrip()


def _split_flow(text: str) -> list[str]:
    parts, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def scalar(text: str, lineno: int = 0) -> Any:
    value = text.strip()
    if not value:
        return None
    if value[0] in "\"'[{":
        return _delimited(value, lineno)
    return _plain(value)


def _delimited(value: str, lineno: int) -> Any:
    """A quoted string, a flow list or a flow map; YamlError when it is not closed."""
    if value.startswith('"'):
        if not value.endswith('"') or len(value) < 2:
            raise YamlError(f"line {lineno}: unterminated double-quoted string")
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value[1:-1]
    if value.startswith("'"):
        if not value.endswith("'") or len(value) < 2:
            raise YamlError(f"line {lineno}: unterminated single-quoted string")
        return value[1:-1].replace("''", "'")
    if value.startswith("["):
        if not value.endswith("]"):
            raise YamlError(f"line {lineno}: unterminated flow list")
        return [scalar(p, lineno) for p in _split_flow(value[1:-1])]
    if not value.endswith("}"):  # what is left starts with "{": a flow map
        raise YamlError(f"line {lineno}: unterminated flow map")
    out = {}
    for part in _split_flow(value[1:-1]):
        key, _, inner = part.partition(":")
        out[str(scalar(key, lineno))] = scalar(inner, lineno)
    return out


def _plain(value: str) -> Any:
    """null, a boolean, an integer, a float, or the text itself."""
    lowered = value.lower()
    if lowered in ("null", "~"):
        return None
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    if re.fullmatch(r"[-+]?\d+", value):
        return int(value)
    if re.fullmatch(r"[-+]?\d+\.\d+", value):
        return float(value)
    return value


_KEY = re.compile(r"""^(?P<key>"[^"]*"|'[^']*'|[^\s#'"][^:#]*?)\s*:(?:\s+(?P<rest>.*)|$)""")


class _Reader:
    def __init__(self, text: str) -> None:
        self.raw = text.replace("\t", "    ").splitlines()
        self.lines: list[tuple[int, str, int]] = []  # (indent, content, line number)
        index = 0
        while index < len(self.raw):
            line = self.raw[index]
            content = _strip_comment(line)
            if content.strip() and content.strip() != "---":
                self.lines.append((len(content) - len(content.lstrip(" ")), content.strip(), index + 1))
            index += 1
        self.pos = 0

    def peek(self) -> tuple[int, str, int] | None:
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def block(self, indent: int) -> Any:
        line = self.peek()
        if line is None:
            return None
        if line[1] == "-" or line[1].startswith("- "):
            return self.sequence(line[0])
        return self.mapping(line[0])

    def sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while (line := self.peek()) is not None and line[0] == indent and (line[1] == "-" or line[1].startswith("- ")):
            rest = line[1][1:].strip()
            if not rest:
                self.pos += 1
                nxt = self.peek()
                out.append(self.block(nxt[0]) if nxt is not None and nxt[0] > indent else None)
            elif _KEY.match(rest) and not rest.startswith(("'", '"', "[", "{")):
                # "- key: value": a mapping whose first line sits after the dash
                self.lines[self.pos] = (indent + 2, rest, line[2])
                out.append(self.mapping(indent + 2))
            else:
                self.pos += 1
                out.append(scalar(rest, line[2]))
        return out

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while (line := self.peek()) is not None and line[0] == indent:
            if line[1].startswith("- ") or line[1] == "-":
                break
            match = _KEY.match(line[1])
            if not match:
                raise YamlError(f"line {line[2]}: expected 'key: value', found {line[1][:60]!r}")
            key = str(scalar(match.group("key").strip(), line[2]))
            rest = (match.group("rest") or "").strip()
            self.pos += 1
            if rest in ("|", ">", "|-", ">-", "|+", ">+"):
                out[key] = self.block_scalar(line, rest)
            elif rest:
                out[key] = scalar(rest, line[2])
            else:
                nxt = self.peek()
                if nxt is not None and (nxt[0] > indent or (nxt[0] == indent and nxt[1].startswith("- "))):
                    out[key] = self.block(nxt[0])
                else:
                    out[key] = None
        return out

    def block_scalar(self, line: tuple[int, str, int], style: str) -> str:
        start = line[2]  # 1-based number of the key line; raw lines after it
        collected: list[str] = []
        base = None
        raw_index = start
        while raw_index < len(self.raw):
            text = self.raw[raw_index]
            if text.strip():
                width = len(text) - len(text.lstrip(" "))
                if width <= line[0]:
                    break
                base = width if base is None else min(base, width)
            collected.append(text)
            raw_index += 1
        while self.pos < len(self.lines) and self.lines[self.pos][2] <= raw_index:
            self.pos += 1
        body = [t[base or 0 :] if t.strip() else "" for t in collected]
        while body and not body[-1]:
            body.pop()
        if style.startswith(">"):
            return " ".join(p for p in body if p) + ("" if style.endswith("-") else "\n")
        return "\n".join(body) + ("" if style.endswith("-") else "\n")


def loads(text: str) -> Any:
    reader = _Reader(text)
    first = reader.peek()
    if first is None:
        return None
    value = reader.block(first[0])
    leftover = reader.peek()
    if leftover is not None:
        raise YamlError(f"line {leftover[2]}: unexpected indentation")
    return value
