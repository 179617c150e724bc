"""Shell words: one `Word`, and the value bash gives a word of tree-sitter-bash's tree.

A word is literal when bash would give it one fixed value (quotes removed, backslashes and ANSI-C
`$'…'` escapes decoded, a leading `~` expanded); a word with an expansion or a substitution keeps its
source text and is not literal. The walker (shell.py) calls `word_value` for every word it meets;
this module knows nothing of commands, pipes or redirections.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node


class Word:
    """One shell word: its value when literal, else its source text (literal=False)."""

    __slots__ = ("literal", "text")

    def __init__(self, text: str, literal: bool = True) -> None:
        self.text = text
        self.literal = literal

    def __repr__(self) -> str:
        return f"Word({self.text!r}{'' if self.literal else ', dynamic'})"


_DQ_ESCAPES = r"\\([$`\"\\\n])"  # compiled by re's own cache on first use (tree-sitter path only)
_ANSI = r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)"
_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_DYNAMIC = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
    }
)


def _unescape_word(raw: str) -> str:
    out = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt != "\n":
                out.append(nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _ansi_c(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        head = code[0]
        if head in "xuU" and len(code) > 1:
            return chr(int(code[1:], 16)) if int(code[1:], 16) < 0x110000 else ""
        if head in "01234567":
            return chr(int(code, 8) & 0xFF)
        if head == "c":
            return chr(ord(code[1]) & 0x1F)
        return _ANSI_SIMPLE.get(code, "\\" + code)

    return re.sub(_ANSI, one, body, flags=re.S)


def node_text(node: Node) -> str:
    """A node's source text."""
    return (node.text or b"").decode("utf-8", "replace")  # None only for a tree parsed without its source


def word_value(node: Node) -> Word:
    kind = node.type
    if kind in ("word", "number", "special_variable_name"):
        raw = node_text(node)
        value = _unescape_word(raw)
        if value.startswith("~") and (len(value) == 1 or value[1] == "/"):
            value = os.path.expanduser("~") + value[1:]
        return Word(value, True)
    if kind == "raw_string":
        return Word(node_text(node)[1:-1], True)
    if kind == "ansi_c_string":
        return Word(_ansi_c(node_text(node)[2:-1]), True)
    if kind in ("string", "translated_string"):
        if any(child.type in _DYNAMIC for child in node.children):
            return Word(node_text(node), False)
        raw = node_text(node)
        raw = raw[1:] if raw.startswith("$") else raw
        return Word(re.sub(_DQ_ESCAPES, lambda m: "" if m.group(1) == "\n" else m.group(1), raw[1:-1]), True)
    if kind == "concatenation":
        parts = [word_value(child) for child in node.children]
        return Word("".join(p.text for p in parts), all(p.literal for p in parts))
    if kind in _DYNAMIC:
        return Word(node_text(node), False)
    return Word(node_text(node), False)
