"""One way for the app's Line-API widgets to turn a line of Rich text into a Strip.

Rich leaves unstyled runs of a Text with no style at all (`None`). Drawn as is, those cells keep
the terminal's own colours (SGR 39/49: the light theme's table sat on a dark terminal background),
and Textual's monochrome filter (NO_COLOR) reads `style.color` on each segment and crashed on them.
Every segment here gets the widget's own base style under its own, so no cell is left unstyled.
"""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip


def text_strip(text: Text, console: Console, base: Style, *, start: int = 0, width: int | None = None) -> Strip:
    """`text` drawn over `base` (the widget's colours), cropped or padded to [start, start+width)."""
    strip = Strip(list(text.render(console)), text.cell_len).apply_style(base)
    if width is None:
        return strip
    return strip.crop_extend(start, start + width, base)


def blank_strip(width: int, base: Style) -> Strip:
    """An empty line in the widget's own colours (never an unstyled one)."""
    return Strip.blank(width, base)
