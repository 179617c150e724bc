"""Surgical edits of `.claude/settings.local.json`: add or take out one hook entry, byte for byte.

Re-serialising the whole file would rewrite the person's formatting, key order and everything
else in it. Instead the JSON is scanned once for the byte spans of its values, and exactly one
piece of text is inserted (an entry, or the `"Event": [...]` / `"hooks": {...}` member holding
it). The inserted text is kept on the learning, so taking it back removes those exact bytes; if
the person changed the file around it, the entry's own span (and its separating comma) goes, and
nothing else. Every result is parsed again before it is written. Stdlib only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from hallmark.core.errors import HallError

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


class Node:
    __slots__ = ("end", "items", "kind", "members", "start")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  # object, array, scalar
        self.start = start
        self.end = start
        self.members: list[tuple[str, int, Node]] = []  # (key, key start, value)
        self.items: list[Node] = []

    def member(self, key: str) -> Node | None:
        for name, _, value in self.members:
            if name == key:
                return value
        return None


def _skip(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _after_child(text: str, pos: int, close: str) -> tuple[int, bool]:
    """After a member or item: (where the next one starts, False) or (the container's end, True)."""
    pos = _skip(text, pos)
    if text[pos : pos + 1] == ",":
        return _skip(text, pos + 1), False
    if text[pos : pos + 1] == close:
        return pos + 1, True
    raise ValueError(f"expected ',' or '{close}' at {pos}")


def _value(text: str, pos: int) -> Node:
    pos = _skip(text, pos)
    char = text[pos : pos + 1]
    if char == "{":
        node = Node("object", pos)
        pos = _skip(text, pos + 1)
        if text[pos : pos + 1] == "}":
            node.end = pos + 1
            return node
        while True:
            key_match = _STRING.match(text, pos)
            if not key_match:
                raise ValueError(f"expected a key at {pos}")
            key = json.loads(key_match.group(0))
            pos = _skip(text, key_match.end())
            if text[pos : pos + 1] != ":":
                raise ValueError(f"expected ':' at {pos}")
            value = _value(text, pos + 1)
            node.members.append((key, key_match.start(), value))
            pos, done = _after_child(text, value.end, "}")
            if done:
                node.end = pos
                return node
    if char == "[":
        node = Node("array", pos)
        pos = _skip(text, pos + 1)
        if text[pos : pos + 1] == "]":
            node.end = pos + 1
            return node
        while True:
            item = _value(text, pos)
            node.items.append(item)
            pos, done = _after_child(text, item.end, "]")
            if done:
                node.end = pos
                return node
    match = _STRING.match(text, pos) or _SCALAR.match(text, pos)
    if not match:
        raise ValueError(f"unexpected character at {pos}")
    node = Node("scalar", pos)
    node.end = match.end()
    return node


def parse(text: str, where: str) -> tuple[Any, Node]:
    """The file's value and its span tree; WRONG_STATE (nothing changed) when it is not a JSON object."""
    try:
        data = json.loads(text)
        tree = _value(text, 0)
    except ValueError as exc:
        raise HallError(
            "WRONG_STATE", f"{where} is not valid JSON ({exc}); nothing was changed.", [f"fix {where}"]
        ) from exc
    if not isinstance(data, dict) or tree.kind != "object":
        raise HallError("WRONG_STATE", f"{where} is not a JSON object; nothing was changed.", [f"fix {where}"])
    return data, tree


def _line_indent(text: str, pos: int) -> str | None:
    """The whitespace that opens pos's line, or None when something else comes before pos on it."""
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    return prefix if prefix.strip() == "" else None


def _unit(text: str, tree: Node) -> str:
    for _, key_start, _ in tree.members:
        found = _line_indent(text, key_start)
        if found:
            return found
    return "  "


def _render(value: Any, indent: str, unit: str, nl: str) -> str:
    dumped = json.dumps(value, indent=len(unit) if unit.strip(" ") == "" else 2, ensure_ascii=False)
    if unit and set(unit) == {"\t"}:
        dumped = re.sub(r"(?m)^( +)", lambda m: "\t" * (len(m.group(1)) // 2), dumped)
    return dumped.replace("\n", nl + indent)


def _insertion(text: str, node: Node, content: str, depth_indent: str, unit: str, nl: str) -> tuple[int, str]:
    """(offset, text) that adds content as the last child of an object or array node."""
    children = [v for _, _, v in node.members] if node.kind == "object" else node.items
    starts = [k for _, k, _ in node.members] if node.kind == "object" else [i.start for i in node.items]
    if children:
        indent = _line_indent(text, starts[-1])
        if indent is None:
            return children[-1].end, ", " + content
        return children[-1].end, "," + nl + indent + content
    inner = depth_indent + unit
    return node.start + 1, nl + inner + content + nl + depth_indent


def add_hook(text: str | None, event: str, entry: dict[str, Any], where: str) -> tuple[str, dict[str, Any]]:
    """The new file text and a record of the one insertion (offset, text, what it created)."""
    if text is None or not text.strip():
        body = json.dumps({"hooks": {event: [entry]}}, indent=2, ensure_ascii=False) + "\n"
        return body, {"created_file": True, "inserted": body, "offset": 0, "original_empty": text or ""}
    nl = "\r\n" if "\r\n" in text else "\n"
    data, tree = parse(text, where)
    unit = _unit(text, tree)
    hooks = tree.member("hooks")
    if hooks is not None and hooks.kind != "object":
        raise HallError("WRONG_STATE", f"{where}: 'hooks' is not an object; nothing was changed.", [f"fix {where}"])
    if hooks is None:
        value_indent = unit
        content = '"hooks": ' + _render({event: [entry]}, value_indent, unit, nl)
        offset, piece = _insertion(text, tree, content, "", unit, nl)
        created = "hooks"
    else:
        hooks_indent = _line_indent(text, next(k for n, k, _ in tree.members if n == "hooks")) or unit
        array = hooks.member(event)
        if array is not None and array.kind != "array":
            raise HallError(
                "WRONG_STATE", f"{where}: hooks.{event} is not a list; nothing was changed.", [f"fix {where}"]
            )
        if array is None:
            member_indent = hooks_indent + unit
            content = json.dumps(event) + ": " + _render([entry], member_indent, unit, nl)
            offset, piece = _insertion(text, hooks, content, hooks_indent, unit, nl)
            created = "event"
        else:
            key_start = next(k for n, k, _ in hooks.members if n == event)
            event_indent = _line_indent(text, key_start) or hooks_indent + unit
            item_indent = event_indent + unit
            if array.items:
                item_indent = _line_indent(text, array.items[-1].start) or item_indent
            content = _render(entry, item_indent, unit, nl)
            offset, piece = _insertion(text, array, content, event_indent, unit, nl)
            created = ""
    updated = text[:offset] + piece + text[offset:]
    after = json.loads(updated)
    expected = json.loads(text)
    expected.setdefault("hooks", {}).setdefault(event, []).append(entry)
    if after != expected:  # pragma: no cover - the scanner and the insertion disagree: never write that
        raise HallError(
            "INTERNAL", f"editing {where} would not add exactly one hook entry; nothing was changed.", ["hall doctor"]
        )
    del data
    return updated, {"created_file": False, "inserted": piece, "offset": offset, "created": created}


def _entry_span(text: str, tree: Node, event: str, is_ours: Callable[[Any], bool]) -> tuple[Node, Node, int] | None:
    hooks = tree.member("hooks")
    array = hooks.member(event) if hooks is not None and hooks.kind == "object" else None
    if array is None or array.kind != "array":
        return None
    for index, item in enumerate(array.items):
        if is_ours(json.loads(text[item.start : item.end])):
            return array, item, index
    return None


def _cut(text: str, siblings: list[tuple[int, int]], index: int) -> str:
    """Remove the index-th of siblings (start, end spans) with one separating comma."""
    start, end = siblings[index]
    if index > 0:
        return text[: siblings[index - 1][1]] + text[end:]
    if len(siblings) > 1:
        return text[:start] + text[siblings[1][0] :]
    return text[:start] + text[end:]


def remove_hook(
    text: str, event: str, record: dict[str, Any], is_ours: Callable[[Any], bool], where: str
) -> str | None:
    """The file text without our entry (None when it is not there). Exact bytes when untouched."""
    inserted = record.get("inserted") or ""
    if record.get("created_file") and text == inserted:
        return record.get("original_empty", "")
    data, tree = parse(text, where)
    found = _entry_span(text, tree, event, is_ours)
    if found is None:
        return None
    offset = int(record.get("offset", -1))
    if (
        inserted
        and text[offset : offset + len(inserted)] == inserted
        and found[1].start >= offset
        and found[1].end <= offset + len(inserted)
    ):
        updated = text[:offset] + text[offset + len(inserted) :]
    elif (
        inserted
        and text.count(inserted) == 1
        and found[1].start >= text.index(inserted)
        and found[1].end <= text.index(inserted) + len(inserted)
    ):
        at = text.index(inserted)
        updated = text[:at] + text[at + len(inserted) :]
    else:  # the person changed the file around it: take out the entry's own span only
        array, _item, index = found
        updated = _cut(text, [(i.start, i.end) for i in array.items], index)
        after = json.loads(updated)
        if record.get("created") in ("event", "hooks") and after.get("hooks", {}).get(event) == []:
            _, tree2 = parse(updated, where)
            hooks = tree2.member("hooks")
            assert hooks is not None
            spans = [(k, v.end) for _, k, v in hooks.members]
            position = [n for n, _, _ in hooks.members].index(event)
            updated = _cut(updated, spans, position)
            if record.get("created") == "hooks" and json.loads(updated).get("hooks") == {}:
                _, tree3 = parse(updated, where)
                spans = [(k, v.end) for _, k, v in tree3.members]
                position = [n for n, _, _ in tree3.members].index("hooks")
                updated = _cut(updated, spans, position)
    result = json.loads(updated)
    expected = dict(data)
    hooks_data = dict(expected.get("hooks") or {})
    hooks_data[event] = [e for e in hooks_data.get(event, []) if not is_ours(e)]
    if not hooks_data[event] and (record.get("created") in ("event", "hooks") or event not in result.get("hooks", {})):
        hooks_data.pop(event)
    expected["hooks"] = hooks_data
    if not hooks_data and "hooks" not in result:
        expected.pop("hooks")
    if result != expected:
        raise HallError(
            "WRONG_STATE",
            f"{where} changed around the hook entry in a way Hallmark cannot undo "
            "exactly; nothing was changed. Remove the entry by hand.",
            [f"edit {where}"],
        )
    return updated
