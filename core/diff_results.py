"""What `hall diff` (core/diff.py) answers, and what the app's diff screen draws: files, hunks and
lines, each finding anchored to its line. The CLI adds `next` (tui/cli/items.py).

The lists inside (hunks, lines, findings) are lists, not tuples: core/diff.py fills a hunk's lines
as it parses and hangs findings on the hunk they name (anchor_findings), once, before anyone reads
them; nothing changes them after `item_diff` returns.
"""

from __future__ import annotations

from typing import Any, Literal

from .results import Result

_set = object.__setattr__


class DiffLine(Result):
    """One line of a hunk: " " context, "+" added, "-" removed, "\\" the no-newline marker; with its
    line numbers on the old and new side (null where it has none)."""

    kind: str
    text: str
    old: int | None
    new: int | None

    @classmethod
    def of(cls, kind: str, text: str, old: int | None, new: int | None) -> DiffLine:
        """One line, built without Result's keyword checks: a large diff has tens of thousands of
        lines, and the checked constructor made parsing one about 2.5x slower (every field is given)."""
        line = object.__new__(cls)
        _set(line, "kind", kind)
        _set(line, "text", text)
        _set(line, "old", old)
        _set(line, "new", new)
        return line


class Hunk(Result):
    """One `@@` hunk: its header and ranges, its lines, and the findings anchored in it (each with
    `line_index` into its lines)."""

    header: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str
    lines: list[DiffLine]
    findings: list[dict[str, Any]]


class FileStat(Result):
    """A changed file in `hall diff --stat`: its path (and old path), how it changed
    (added | deleted | modified | renamed | untracked), lines added and removed, binary or not."""

    path: str
    old_path: str
    status: str
    added: int
    removed: int
    binary: bool


class FileDiff(FileStat):
    """A changed file with its hunks, and the findings on it outside every hunk."""

    hunks: list[Hunk]
    findings: list[dict[str, Any]]


class Diff(Result):
    """`hall diff`: the item's change against the merge-base with its base branch (committed and
    uncommitted work, untracked files included), findings anchored; the findings on files the
    change does not touch are unanchored."""

    item: str
    base: str
    merge_base: str
    head: str
    worktree: str
    ignore_whitespace: bool
    files: list[FileDiff]
    added: int
    removed: int
    stat_only: Literal[False] = False
    unanchored_findings: list[dict[str, Any]]

    def stat(self) -> DiffStat:
        """The same change as `hall diff --stat` shows it: files with their counts, no hunks."""
        keys = FileStat._fields
        return DiffStat(
            item=self.item,
            base=self.base,
            merge_base=self.merge_base,
            head=self.head,
            files=tuple(FileStat(**{k: getattr(f, k) for k in keys}) for f in self.files),
            added=self.added,
            removed=self.removed,
        )


class DiffStat(Result):
    """`hall diff --stat`: the changed files with their counts, no hunks."""

    item: str
    base: str
    merge_base: str
    head: str
    files: tuple[FileStat, ...]
    added: int
    removed: int
    stat_only: Literal[True] = True
