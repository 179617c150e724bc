"""The diff's colours, computed from the theme's own: low-saturation add/remove backgrounds, a
solid gutter bar in the signal colour, and syntax colours kept at full contrast on every line.

The old diff put a terminal-ANSI syntax theme on `$success 15%` read as a partial style, which
dropped the alpha: the added lines sat on the full success colour (olive in the dark theme, green
in the light one) and some identifiers nearly vanished. Here the backgrounds are blends of the
theme's surface with its success and error colours, and each syntax colour (a pygments style named
by the theme's `diff-syntax` variable) is moved toward the theme's foreground until it reaches
WCAG 4.5:1 against every line background, in truecolor and in 256 colours alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.style import Style
from rich.syntax import PygmentsSyntaxTheme
from textual.color import Color
from textual.theme import Theme

MIN_CONTRAST = 4.5  # WCAG AA for body text: what code on every diff line must reach
TINT = {True: 0.16, False: 0.18}  # how much signal colour the add/remove backgrounds take (dark, light)
DEFAULT_SYNTAX = {True: "gruvbox-dark", False: "gruvbox-light"}


def luminance(colour: Color) -> float:
    """WCAG relative luminance of an sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def in_256(colour: Color) -> Color:
    """The colour a 256-colour terminal shows for it (Rich's own downgrade)."""
    rich = RichColor.from_rgb(colour.r, colour.g, colour.b).downgrade(ColorSystem.EIGHT_BIT)
    triplet = rich.get_truecolor()
    return Color(triplet.red, triplet.green, triplet.blue)


def worst_contrast(fg: Color, backgrounds: list[Color]) -> float:
    """The lowest contrast of fg over the backgrounds, in truecolor and in 256 colours."""
    return min(min(contrast(fg, bg), contrast(in_256(fg), in_256(bg))) for bg in backgrounds)


def readable(fg: Color, backgrounds: list[Color], toward: Color) -> Color:
    """fg, moved toward `toward` (the theme's foreground) just far enough to read on every background."""
    for step in range(11):
        candidate = fg.blend(toward, step / 10)
        if worst_contrast(candidate, backgrounds) >= MIN_CONTRAST:
            return candidate
    return toward


def _colour(theme: Theme, name: str, fallback: str) -> Color:
    value = getattr(theme, name, None) or fallback
    return Color.parse(value)


@dataclass
class DiffPalette:
    """Every colour a diff line is drawn with, for one theme."""

    dark: bool
    background: Color  # a context line (the view's surface)
    added: Color
    removed: Color
    added_mark: Color  # the solid +/- gutter bar
    removed_mark: Color
    mark_text: Color
    foreground: Color
    syntax_name: str
    _syntax: PygmentsSyntaxTheme = field(repr=False)
    _tokens: dict[Any, Style] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, theme: Theme) -> DiffPalette:
        dark = bool(theme.dark)
        background = _colour(theme, "surface", "#1e1e1e" if dark else "#f5f5f5")
        foreground = _colour(theme, "foreground", "#e0e0e0" if dark else "#202020")
        success = _colour(theme, "success", "#4ebf71")
        error = _colour(theme, "error", "#ba3c5b")
        tint = TINT[dark]
        name = str((theme.variables or {}).get("diff-syntax") or DEFAULT_SYNTAX[dark])
        try:
            syntax = PygmentsSyntaxTheme(name)
        except Exception:  # noqa: BLE001 - an unknown style name: the default for the theme's shade
            name = DEFAULT_SYNTAX[dark]
            syntax = PygmentsSyntaxTheme(name)
        base = _colour(theme, "background", background.hex)
        return cls(
            dark=dark,
            background=background,
            added=background.blend(success, tint),
            removed=background.blend(error, tint),
            added_mark=success,
            removed_mark=error,
            mark_text=base if contrast(base, success) >= contrast(foreground, success) else foreground,
            foreground=foreground,
            syntax_name=name,
            _syntax=syntax,
        )

    @property
    def backgrounds(self) -> list[Color]:
        return [self.background, self.added, self.removed]

    def token(self, token_type: Any) -> Style:
        """The style of one pygments token: its colour made readable on every line background,
        its own background dropped (the line's shows through), bold and italic kept."""
        found = self._tokens.get(token_type)
        if found is not None:
            return found
        style = self._syntax.get_style_for_token(token_type)
        colour = self.foreground
        if style.color is not None and style.color.triplet is not None:
            t = style.color.triplet
            colour = Color(t.red, t.green, t.blue)
        colour = readable(colour, self.backgrounds, self.foreground)
        found = Style(color=colour.rich_color, bold=style.bold, italic=style.italic)
        self._tokens[token_type] = found
        return found

    def line(self, kind: str) -> Style:
        """A diff line's background (+, - or context)."""
        bg = {"+": self.added, "-": self.removed}.get(kind, self.background)
        return Style(bgcolor=bg.rich_color)

    def mark(self, kind: str) -> Style:
        """The solid gutter bar that carries the sign: seen even where a tint rounds away."""
        bg = self.added_mark if kind == "+" else self.removed_mark
        return Style(color=self.mark_text.rich_color, bgcolor=bg.rich_color, bold=True)
