"""Markers and text for promoted learnings: the learning's words are data, never structure.

A block in CLAUDE.md is

    <!-- hallmark:learning L-0001 sha256:0123456789abcdef -->
    - the pattern, on one line
      Why: …
    <!-- /hallmark:learning L-0001 -->

bound to its learning ID and a digest of the lines between the markers. A promoted file carries
the same start line (after its front matter), with the digest of the rest of the file.

What a learning says is rendered by `inline`: one line (newlines and control characters become
spaces), `<!--` and `-->` written as entities so no marker can be forged, and a leading Markdown
block character (`#`, `>`, `-`, `---`, a fence…) escaped. So a learning cannot open a heading,
a front-matter key, a second block, or close its own block early. Stdlib only.
"""

from __future__ import annotations

import hashlib
import re

_START = re.compile(r"^<!-- hallmark:learning (L-\d{4,})(?: sha256:([0-9a-f]{16}))? -->$")
_END = re.compile(r"^<!-- /hallmark:learning (L-\d{4,}) -->$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BLOCK_START = re.compile(r"^(?:[#>*+=|~`_\\<-]|\d{1,9}[.)])")


def digest(text: str) -> str:
    """16 hex digits of SHA-256 over the text with LF line endings (CRLF files digest the same)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def inline(text: str, lead: bool = True) -> str:
    """A learning's words as one line of inert Markdown text (lead: it starts a line or a list item)."""
    value = _CONTROL.sub(" ", str(text or "")).replace("\r", " ").replace("\n", " ").replace("\t", " ")
    value = re.sub(r" {2,}", " ", value).strip()
    value = value.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    if lead and _BLOCK_START.match(value):
        value = "\\" + value
    return value


def code_fence(text: str) -> str:
    """A fenced code block that text cannot close early (the fence is longer than any run in it)."""
    body = _CONTROL.sub(" ", str(text or "")).replace("\r\n", "\n").replace("\r", "\n").replace("-->", "--&gt;")
    body = body.replace("<!--", "&lt;!--")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{body.rstrip()}\n{fence}"


def start_line(lid: str, sha: str | None = None) -> str:
    return f"<!-- hallmark:learning {lid} sha256:{sha} -->" if sha else f"<!-- hallmark:learning {lid} -->"


def end_line(lid: str) -> str:
    return f"<!-- /hallmark:learning {lid} -->"


def render_block(lid: str, inner_lines: list[str], nl: str) -> str:
    inner = nl.join(inner_lines)
    return f"{start_line(lid, digest(chr(10).join(inner_lines)))}{nl}{inner}{nl}{end_line(lid)}{nl}"


class Block:
    """One marked block found in a text: where it is and what it holds."""

    __slots__ = ("end", "inner", "inner_end", "inner_start", "lid", "sha", "start")

    def __init__(
        self, lid: str, sha: str | None, start: int, end: int, inner: str, inner_start: int, inner_end: int
    ) -> None:
        self.lid, self.sha, self.start, self.end = lid, sha, start, end
        self.inner, self.inner_start, self.inner_end = inner, inner_start, inner_end

    @property
    def self_intact(self) -> bool:
        """The lines between the markers are what the start marker's digest says was written."""
        return self.sha is not None and digest(self.inner) == self.sha


def find_blocks(text: str) -> tuple[list[Block], list[str]]:
    """Every well-formed block, and the problems (a start without its end, a nested start…)."""
    blocks: list[Block] = []
    problems: list[str] = []
    offset = 0
    open_at: tuple[str, str | None, int, int] | None = None
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        start = _START.match(line)
        end = _END.match(line)
        if start:
            if open_at is not None:
                problems.append(f"{open_at[0]}'s block is not closed before {start.group(1)}'s starts")
            open_at = (start.group(1), start.group(2), offset, offset + len(raw))
        elif end and open_at is not None and end.group(1) == open_at[0]:
            lid, sha, begin, inner_start = open_at
            inner = text[inner_start:offset]
            inner_text = inner[:-2] if inner.endswith("\r\n") else inner[:-1] if inner.endswith("\n") else inner
            blocks.append(Block(lid, sha, begin, offset + len(raw), inner_text, inner_start, offset))
            open_at = None
        offset += len(raw)
    if open_at is not None:
        problems.append(f"{open_at[0]}'s block has no end marker")
    return blocks, problems


def file_marker(text: str) -> tuple[str, str | None, str] | None:
    """(lid, digest, text without the marker line) for a promoted file, or None."""
    lines = text.splitlines(keepends=True)
    for index, raw in enumerate(lines):
        match = _START.match(raw.rstrip("\r\n"))
        if match:
            return match.group(1), match.group(2), "".join(lines[:index] + lines[index + 1 :])
    return None


def with_file_marker(lid: str, head: str, body: str, nl: str) -> str:
    """front matter + a marker line bound to the rest of the file + body."""
    rest = head + body
    return head + start_line(lid, digest(rest)) + nl + body
