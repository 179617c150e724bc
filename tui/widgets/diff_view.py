"""A unified diff rendered with the Line API: one row model, strips built only for visible rows.

The diff is flattened once into `rows` (file headers, hunk headers, diff lines, findings); the
widget's virtual height is the row count and `render_line(y)` builds (and caches) the strip for
row `y + scroll_y` alone, with per-line syntax highlighting. A 5,000-line diff costs a list of
tuples, not 5,000 widgets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from hallmark.core.diff_results import Diff, DiffLine, FileDiff
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .diff_palette import DiffPalette
from .strips import text_strip

SEVERITY_MARK = {"blocker": "■", "major": "▲", "minor": "●", "nit": "·"}
GUTTER = 12  # "1234 1234 " + the +/- column
MAX_LINE = 1000


@dataclass(frozen=True)
class Row:
    kind: str  # file | file_finding | hunk | line | finding | elsewhere | empty
    file: int  # index into diff.files (-1 for diff-level rows)
    hunk: int  # index into file.hunks (-1 when not in a hunk)
    payload: Any  # FileDiff, Hunk, DiffLine or a finding dict
    part: str | None = None  # a finding row: its share of the finding's wrapped text


def finding_rows(kind: str, file: int, hunk: int, finding: dict[str, Any], width: int) -> list[Row]:
    """One finding as rows of at most `width` columns (indent included), so none is cut off."""
    import textwrap

    indent = " " * GUTTER if kind == "finding" else "   "
    text = finding_text(finding, where=kind != "finding")
    lines = textwrap.wrap(text, max(20, width - len(indent) - 1), subsequent_indent="  ") or [text]
    return [Row(kind, file, hunk, finding, indent + line) for line in lines]


def flatten(diff: Diff, width: int = 10_000) -> tuple[list[Row], list[int], list[int]]:
    """(rows, row index of each file header, row index of each hunk header); findings wrap at width."""
    rows: list[Row] = []
    file_starts: list[int] = []
    hunk_starts: list[int] = []
    for fi, f in enumerate(diff.files):
        file_starts.append(len(rows))
        rows.append(Row("file", fi, -1, f))
        for finding in f.findings:
            rows += finding_rows("file_finding", fi, -1, finding, width)
        if f.binary and not f.hunks:
            rows.append(Row("empty", fi, -1, "binary file"))
        for hi, hunk in enumerate(f.hunks):
            hunk_starts.append(len(rows))
            rows.append(Row("hunk", fi, hi, hunk))
            anchored: dict[int, list[dict[str, Any]]] = {}
            for finding in hunk.findings:
                anchored.setdefault(int(finding.get("line_index", -1)), []).append(finding)
            for li, line in enumerate(hunk.lines):
                rows.append(Row("line", fi, hi, line))
                for finding in anchored.get(li, ()):
                    rows += finding_rows("finding", fi, hi, finding, width)
    for finding in diff.unanchored_findings:
        rows += finding_rows("elsewhere", -1, -1, finding, width)
    if not rows:
        rows.append(Row("empty", -1, -1, "no changes against the merge-base"))
    return rows, file_starts, hunk_starts


def finding_text(finding: dict[str, Any], *, where: bool = False) -> str:
    severity = str(finding.get("severity") or "finding")
    mark = SEVERITY_MARK.get(severity, "▲")
    place = f"{finding.get('file')}:{finding.get('line')} " if where else ""
    title = finding.get("title") or ""
    scenario = finding.get("scenario") or ""
    text = f"{title}: {scenario}" if title and scenario else (title or scenario)
    return f"{mark} {finding.get('id', '')} {severity} [{finding.get('lens') or '?'}] {place}{text}".rstrip()


_LEXERS: dict[str, Any] = {}


def lexer_for_path(path: str) -> Any:
    """A pygments lexer for the file name, shared per suffix (finding one scans every lexer)."""
    name = path.rsplit("/", 1)[-1]
    key = "." + name.rsplit(".", 1)[-1] if "." in name else name
    if key not in _LEXERS:
        from pygments.lexers import get_lexer_for_filename
        from pygments.util import ClassNotFound

        try:
            _LEXERS[key] = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
        except ClassNotFound:
            _LEXERS[key] = None
    return _LEXERS[key]


class DiffView(ScrollView, can_focus=True):
    """The unified diff of every file of an item's change, rendered lazily."""

    DEFAULT_CSS = """
    DiffView { background: $surface; }
    DiffView > .diff--file { color: $text; background: $primary 30%; text-style: bold; }
    DiffView > .diff--hunk { color: $accent; text-style: italic; }
    DiffView > .diff--gutter { color: $text-muted; }
    DiffView > .diff--finding { color: $warning; text-style: bold; }
    DiffView > .diff--blocker { color: $error; text-style: bold reverse; }
    DiffView > .diff--empty { color: $text-muted; text-style: italic; }
    DiffView > .diff--cursor { background: $accent 40%; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--file",
        "diff--hunk",
        "diff--gutter",
        "diff--finding",
        "diff--blocker",
        "diff--empty",
        "diff--cursor",
    }

    class FileChanged(Message):
        """The file at the top of the view changed (the file list follows it)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: Diff | None = None
        self.rows: list[Row] = []
        self.file_starts: list[int] = []
        self.hunk_starts: list[int] = []
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(2000)
        self._lexers: dict[int, Any] = {}
        self._styles: dict[str, Style] = {}
        self._palette: DiffPalette | None = None
        self._current_file = -1
        self.cursor = 0  # the file or hunk header ]/[ and }/{ last landed on
        self._wrapped_at = 0  # the width findings were wrapped to

    # -- data ----------------------------------------------------------------------------------
    def _wrap_width(self) -> int:
        return self.scrollable_content_region.width or self.app.size.width or 100

    def set_diff(self, diff: Diff) -> None:
        self.diff = diff
        self._wrapped_at = self._wrap_width()
        self.rows, self.file_starts, self.hunk_starts = flatten(diff, self._wrapped_at)
        self._cache.clear()
        self._lexers.clear()
        longest = 0
        for f in diff.files:
            for hunk in f.hunks:
                for line in hunk.lines:
                    longest = max(longest, len(line.text))
        self.virtual_size = Size(GUTTER + min(longest, MAX_LINE) + 2, len(self.rows))
        self.scroll_to(0, 0, animate=False)
        self._current_file = -1
        self.cursor = 0
        self.refresh()

    def on_resize(self) -> None:
        """Findings wrap to the view's width: rewrap on a new width, keeping the same rows in view."""
        if self.diff is None or self._wrap_width() == self._wrapped_at:
            return
        top, cursor = self.rows[self.top_row] if self.top_row < len(self.rows) else None, self.cursor
        anchor_cursor = self.rows[cursor] if cursor < len(self.rows) else None
        self._wrapped_at = self._wrap_width()
        self.rows, self.file_starts, self.hunk_starts = flatten(self.diff, self._wrapped_at)
        self.virtual_size = Size(self.virtual_size.width, len(self.rows))
        self._cache.clear()

        def find(row: Row | None) -> int:
            for index, candidate in enumerate(self.rows):
                if row is not None and candidate.kind == row.kind and candidate.payload is row.payload:
                    return index
            return 0

        self.cursor = find(anchor_cursor)
        self.scroll_to(y=find(top), animate=False, force=True)
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._styles.clear()
        self._palette = None

    # -- navigation ----------------------------------------------------------------------------
    @property
    def top_row(self) -> int:
        return round(self.scroll_offset.y)

    def _anchor(self) -> int:
        """Where stepping starts: the cursor while it is on screen, else the top of the view."""
        top, height = self.top_row, max(1, self.scrollable_content_region.height)
        return self.cursor if top <= self.cursor < top + height else top

    def _step(self, starts: list[int], direction: int) -> int | None:
        if not starts:
            return None
        here = self._anchor()
        if direction > 0:
            later = [s for s in starts if s > here]
            return later[0] if later else None
        earlier = [s for s in starts if s < here]
        return earlier[-1] if earlier else None

    def jump(self, row: int) -> None:
        """Put the cursor on `row` and scroll it to the top (as far as the view can scroll)."""
        self.cursor = row
        self.scroll_to(y=row, animate=False, force=True)
        self.refresh()
        self._emit_file(row)

    def next_file(self, direction: int = 1) -> bool:
        target = self._step(self.file_starts, direction)
        if target is None:
            return False
        self.jump(target)
        return True

    def next_hunk(self, direction: int = 1) -> bool:
        target = self._step(self.hunk_starts, direction)
        if target is None:
            return False
        self.jump(target)
        return True

    def show_file(self, index: int) -> None:
        if 0 <= index < len(self.file_starts):
            self.jump(self.file_starts[index])

    def file_at(self, row: int) -> int:
        current = -1
        for index, start in enumerate(self.file_starts):
            if start <= row:
                current = index
            else:
                break
        return current

    def _emit_file(self, row: int) -> None:
        index = self.file_at(row)
        if index != self._current_file:
            self._current_file = index
            self.post_message(self.FileChanged(index))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._emit_file(self._anchor())

    # -- rendering -----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        key = (index, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._build(self.rows[index], max(width, self.virtual_size.width))
            self._cache[key] = strip
        if index == self.cursor and self.diff is not None and self.diff.files:
            # over the row's own colours (every segment has a background: apply_style would lose)
            cursor = Style(bgcolor=self._style("diff--cursor").bgcolor)
            strip = Strip(Segment.apply_style(list(strip), post_style=cursor), strip.cell_length)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            # not partial: a colour with alpha ($primary 30%) is blended over the view's own background
            style = self._styles[name] = self.get_component_rich_style(name)
        return style

    @property
    def palette(self) -> DiffPalette:
        """The line backgrounds, gutter bars and syntax colours, from the app's current theme."""
        if self._palette is None:
            self._palette = DiffPalette.of(self.app.current_theme)
        return self._palette

    def _highlight(self, file_index: int, text: str) -> Text:
        """One line, highlighted with the file's pygments lexer (created once per file)."""
        if len(text) > MAX_LINE:
            text = text[:MAX_LINE] + "…"
        lexer = self._lexers.get(file_index, False)
        if lexer is False:
            lexer = self._lexer_for(file_index)
            self._lexers[file_index] = lexer
        if lexer is None:
            return Text(text)
        out = Text()
        style_for = self.palette.token
        for token_type, value in lexer.get_tokens(text):
            out.append(value.rstrip("\n"), style_for(token_type))
        return out

    def _lexer_for(self, file_index: int) -> Any:
        assert self.diff is not None
        return lexer_for_path(self.diff.files[file_index].path)

    def _build(self, row: Row, width: int) -> Strip:
        console = self.app.console
        text: Text
        if row.kind == "file":
            f: FileDiff = row.payload
            name = f"{f.old_path} → {f.path}" if f.status == "renamed" else f.path
            text = Text(
                f"━━ {name}  +{f.added} -{f.removed}  ({f.status}{', binary' if f.binary else ''})",
                style=self._style("diff--file"),
            )
        elif row.kind == "hunk":
            text = Text(row.payload.header, style=self._style("diff--hunk"))
        elif row.kind == "line":
            text = self._line_text(row.file, row.payload)
        elif row.kind in ("finding", "file_finding", "elsewhere"):
            finding = row.payload
            style = self._style("diff--blocker" if finding.get("severity") in ("blocker", "major") else "diff--finding")
            text = Text(row.part or finding_text(finding, where=row.kind != "finding"), style=style)
        else:
            text = Text(f"   ({row.payload})", style=self._style("diff--empty"))
        base = self.rich_style
        if row.kind == "file":
            base = self._style("diff--file")
        elif row.kind == "line" and row.payload.kind in ("+", "-"):
            base = base + self.palette.line(row.payload.kind)
        return text_strip(text, console, base).extend_cell_length(width, base)

    def _line_text(self, file_index: int, line: DiffLine) -> Text:
        old = "" if line.old is None else str(line.old)
        new = "" if line.new is None else str(line.new)
        gutter = Text(f"{old:>5}{new:>5} ", style=self._style("diff--gutter"))
        if line.kind == "\\":
            return gutter + Text(f"  \\ {line.text}", style=self._style("diff--gutter"))
        body = self._highlight(file_index, line.text)
        palette = self.palette
        if line.kind not in "+-":
            return gutter + Text("  ") + body
        # the sign sits on a solid bar of the signal colour (a gutter bar): in 256 colours a low tint
        # can round to the background's own cell colour, the bar never does
        out = gutter + Text(line.kind, style=palette.mark(line.kind)) + Text(" ") + body
        out.stylize(palette.line(line.kind), len(gutter) + 1, len(out))
        return out


def segments_text(strip: Strip) -> str:
    """The plain text of a rendered strip (tests and the file list use it)."""
    return "".join(seg.text for seg in strip if isinstance(seg, Segment))
