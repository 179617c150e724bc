"""What a family filter found, and how it is rendered within a budget, the same way for every family.

The rules a fixer relies on:
- whole lines only, never a cut word: when the text would pass the budget, whole failure blocks are
  dropped from the middle (the first and the last stay) and a line says how many;
- the summary line (totals), the list of failing test IDs and the footer are always kept; the ID
  list is compact (grouped by file) and only when it alone would fill half the budget are whole
  lines of it dropped, with a count;
- failures with the same traceback (below the test's own frame) are shown once, with a count and
  the tests that share it;
- each failure's heading carries its test file (the filter fills it in).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

BLOCK_LINES = 12  # the first message block of one failure, at most this many lines
BUDGET = 12_000  # characters of condensed text per gate: about 3k tokens
ID_SHARE = 0.5  # the failing-test list may fill at most this share of the budget
WRAP = 100  # the ID list is wrapped at this width, between names


def size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def block(lines: list[str], start: int, stop: Callable[[str], bool], limit: int = BLOCK_LINES) -> list[str]:
    """Lines from start until stop(line) or a blank run, capped at limit (with a marker)."""
    found: list[str] = []
    i = start
    while i < len(lines) and not stop(lines[i]):
        found.append(lines[i])
        i += 1
    while found and not found[-1].strip():
        found.pop()
    if len(found) > limit:
        hidden = len(found) - limit
        found = [*found[:limit], f"    … {hidden} more line(s) in the full log"]
    return found


def cap_entry(entry: list[str]) -> None:
    """One failure's heading and at most BLOCK_LINES of its body (whole lines, with a marker)."""
    if len(entry) > BLOCK_LINES + 1:
        hidden = len(entry) - BLOCK_LINES - 1
        del entry[BLOCK_LINES + 1 :]
        entry.append(f"    … {hidden} more line(s) in the full log")


def warning_lines(found: dict[str, int], cap: int | None = None) -> list[str]:
    if not found:
        return []
    out = [f"warnings ({sum(found.values())}, {len(found)} distinct):"]
    items = list(found.items())
    for number, (text, count) in enumerate(items):
        line = f"  {text}" + (f" [x{count}]" if count > 1 else "")
        if cap is not None and size(out) + len(line) + 1 > cap and number > 0:
            out.append(f"  … and {len(items) - number} more distinct warning(s) in the full log")
            break
        out.append(line)
    return out


def _short(heading: str) -> str:
    word, _, rest = heading.partition(" ")
    rest = rest if rest and word.isupper() else heading
    return rest.split(" (", 1)[0]  # "name (file)": the name says enough in a list


def dedupe(
    failures: list[list[str]], signatures: dict[int, tuple[str, ...]], same_bodies: bool = True
) -> list[tuple[list[str], int]]:
    """Blocks in the order they first appear, each failure with the same traceback folded into the
    first one's block; returns (block lines, how many failures the block stands for). Without
    same_bodies only the filter's signatures fold (diagnostics and diffs are not tracebacks)."""
    groups: dict[tuple[str, ...], list[int]] = {}
    order: list[tuple[str, ...] | int] = []
    for index, entry in enumerate(failures):
        key = signatures.get(index)
        if key is None and same_bodies and len(entry) > 1:
            key = tuple(entry[1:])
        if not key:
            order.append(index)
            continue
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(index)
    out: list[tuple[list[str], int]] = []
    for slot in order:
        if isinstance(slot, int):
            out.append((list(failures[slot]), 1))
            continue
        members = groups[slot]
        lines = list(failures[members[0]])
        if len(members) > 1:
            others = [_short(failures[j][0]) for j in members[1:]]
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            lines.append(f"  [x{len(members)}] the same traceback also failed: {shown}")
        out.append((lines, len(members)))
    return out


def pick_blocks(blocks: list[tuple[list[str], int]], room: int) -> list[str]:
    """Whole blocks that fit in room, in their order; each run of dropped blocks is one counted line.

    The blocks that stand for the most failures (a traceback many tests share) go first, then the
    first blocks and the last ones: what is dropped is single failures from the middle."""
    every = [line for lines, _n in blocks for line in lines]
    if size(every) <= room:
        return every
    count = len(blocks)
    order = sorted(range(count), key=lambda i: (-blocks[i][1], min(i, 2 * (count - 1 - i)), i))
    chosen: set[int] = set()
    used = 0
    for index in order:
        cost = size(blocks[index][0])
        gaps = 1 + sum(1 for j in chosen if j + 1 not in chosen and j + 1 < count)  # markers, roughly
        if used + cost + 170 * gaps <= room:
            chosen.add(index)
            used += cost
    out: list[str] = []
    index = 0
    while index < count:
        if index in chosen:
            out.extend(blocks[index][0])
            index += 1
            continue
        start = index
        while index < count and index not in chosen:
            index += 1
        dropped = blocks[start:index]
        failures = sum(n for _lines, n in dropped)
        out.append(
            f"… {len(dropped)} failure block(s) omitted here ({failures} failing test(s)); every one is in "
            "the list of failing tests below and in the full log …"
        )
    return out


def _compact(names: list[str]) -> list[str]:
    """Parametrized cases of one test after the first are written as their parameters alone:
    `test_x[a]`, `[b]`, `[c]` (a token that starts with `[` continues the test before it)."""
    out: list[str] = []
    previous = ""
    for name in names:
        base, bracket, _rest = name.partition("[")
        if bracket and base == previous and out:
            out.append(name[len(base) :])
        else:
            out.append(name)
        previous = base if bracket else ""
    return out


def id_lines(ids: list[tuple[str, str]]) -> list[tuple[str, int]]:
    """The failing tests grouped by file, wrapped between names: (line, how many names it holds)."""
    if not ids:
        return []
    groups: dict[str, list[str]] = {}
    for group, name in ids:
        groups.setdefault(group, [])
        if name not in groups[group]:
            groups[group].append(name)
    total = sum(len(v) for v in groups.values())
    out: list[tuple[str, int]] = [(f"failing tests ({total}):", 0)]
    for group, names in groups.items():
        prefix = f"  {group}: " if group else "  "
        separator = " | " if any(" " in n for n in names) else " "
        line, count = prefix, 0
        for name in _compact(names):
            piece = name if count == 0 else separator + name
            if count and len(line) + len(piece) > WRAP:
                out.append((line, count))
                line, count, piece = ("      " if group else "  "), 0, name
            line += piece
            count += 1
        out.append((line, count))
    return out


def fit_ids(rows: list[tuple[str, int]], room: int) -> list[str]:
    if not rows:
        return []
    kept = [rows[0][0]]
    used = len(rows[0][0]) + 1
    total = sum(n for _line, n in rows)
    shown = 0
    for line, count in rows[1:]:
        if used + len(line) + 1 > room and shown:
            kept.append(f"  … and {total - shown} more failing test(s): every one is in the full log")
            return kept
        kept.append(line)
        used += len(line) + 1
        shown += count
    return kept


def first_index(lines: list[str], needle: str) -> int | None:
    """The first log line holding needle (where a failure begins), for the footer's line range."""
    if not needle:
        return None
    return next((number for number, line in enumerate(lines) if needle in line), None)


@dataclass
class Found:
    """What a family filter pulled out of a log, rendered the same way for every family."""

    failures: list[list[str]]
    summary: list[str]
    warnings: dict[str, int]
    notes: list[str]
    ids: list[tuple[str, str]] = field(default_factory=list)  # (file or group, test) of every failing test
    signatures: dict[int, tuple[str, ...]] = field(default_factory=dict)  # failure index -> its traceback's key
    first_line: int | None = None  # index in the log of the first failure (the footer points there)
    same_bodies: bool = True  # fold failures whose whole body is the same (tracebacks; not diagnostics)

    @classmethod
    def empty(cls) -> Found:
        return cls([], [], {}, [])

    def render(self, lines: list[str], exit_code: int | None, budget: int | None = BUDGET) -> list[str]:
        blocks = dedupe(self.failures, self.signatures, self.same_bodies)
        head = [f"failures ({len(self.failures)}):"] if self.failures else []
        summary = (["summary:"] + [f"  {s}" for s in self.summary]) if self.summary else []
        tail: list[str] = []
        if exit_code not in (0, None) and not self.failures:
            # Red, yet nothing recognisable failed: show how the output ended rather than hide it.
            from .text import collapse_repeats

            tail = ["last lines of the output:", *collapse_repeats([ln for ln in lines if ln.strip()])[-20:]]
        rows = id_lines(self.ids)
        if budget is None:
            body = [line for lines_, _n in blocks for line in lines_]
            return head + body + warning_lines(self.warnings) + self.notes + [r[0] for r in rows] + summary + tail
        fixed = size(summary) + size(tail)
        ids = fit_ids(rows, int(budget * ID_SHARE))
        warn = warning_lines(self.warnings, cap=max(200, budget // 8))
        notes = self.notes[:10] + (
            [f"… and {len(self.notes) - 10} more note(s) in the full log"] if len(self.notes) > 10 else []
        )
        room = budget - fixed - size(ids) - size(warn) - size(notes) - size(head)
        return head + pick_blocks(blocks, room) + warn + notes + ids + summary + tail
