"""WCAG contrast of the diff's code text and the tables' text, computed from each bundled theme's
own colours: at least 4.5:1 in truecolor and in 256 colours.

The old diff put syntax colours on the full success colour (an olive #a8b665 under orange strings
and cyan modules in the dark theme): `test_reads_lines` and the docstring were nearly invisible.
"""

from __future__ import annotations

import asyncio

import pytest
from hallmark.tui import theming
from hallmark.tui.widgets.diff_palette import MIN_CONTRAST, DiffPalette, contrast, in_256, worst_contrast
from pygments.token import STANDARD_TYPES
from textual.color import Color

from .conftest import make_app, settle

THEMES = {theme.name: theme for theme in theming.bundled_themes()}


def _rgb(rich_colour) -> Color:
    t = rich_colour.get_truecolor()
    return Color(t.red, t.green, t.blue)


def test_every_bundled_theme_is_checked():
    assert {"hallmark-dark", "hallmark-light", "hallmark-contrast"} <= set(THEMES)


@pytest.mark.parametrize("name", sorted(THEMES))
def test_code_text_reads_on_every_diff_line_in_truecolor_and_256_colours(name):
    palette = DiffPalette.of(THEMES[name])
    low = []
    for token in STANDARD_TYPES:
        style = palette.token(token)
        fg = _rgb(style.color)
        for where, bg in (("context", palette.background), ("added", palette.added), ("removed", palette.removed)):
            ratio = min(contrast(fg, bg), contrast(in_256(fg), in_256(bg)))
            if ratio < MIN_CONTRAST:
                low.append(f"{token} on {where}: {ratio:.2f}")
    assert not low, low


@pytest.mark.parametrize("name", sorted(THEMES))
def test_added_and_removed_lines_are_low_saturation_tints_with_a_solid_gutter_bar(name):
    palette = DiffPalette.of(THEMES[name])
    for tint, signal in ((palette.added, palette.added_mark), (palette.removed, palette.removed_mark)):
        # a tint: far nearer the surface than the signal colour is (the old background was the signal itself)
        assert contrast(tint, palette.background) < 1.5
        assert tint.hsl.s <= signal.hsl.s
        assert contrast(signal, palette.background) > contrast(tint, palette.background)
    assert contrast(palette.mark_text, palette.added_mark) >= 3.0  # the sign on its bar
    assert contrast(palette.mark_text, palette.removed_mark) >= 3.0


def test_the_old_saturated_background_fails_the_check():
    """What the review measured: orange strings on #a8b665 in the dark theme."""
    assert worst_contrast(Color.parse("#E78A4E"), [Color.parse("#A8B665")]) < MIN_CONTRAST


TABLES = [
    pytest.param("list", "#item-table", "item-table", id="triage-list"),
    pytest.param("inbox", "#entries", "vim-table", id="inbox"),
    pytest.param("runs", "VimTable", "vim-table", id="runs"),
]


@pytest.mark.parametrize("name", ["hallmark-dark", "hallmark-light", "hallmark-contrast"])
@pytest.mark.parametrize(("mode", "selector", "prefix"), TABLES)
def test_table_text_reads_on_its_rows_header_and_cursor(busy, name, mode, selector, prefix):
    repo, _ids = busy

    async def go():
        app = make_app(repo.root, start_mode=mode, theme=name)
        async with app.run_test(size=(140, 30)) as pilot:
            await settle(pilot)
            table = app.screen.query_one(selector)
            table.focus()
            await pilot.pause()
            base = table.rich_style
            pairs = {"row": (base.color, base.bgcolor)}
            for part in (f"{prefix}--cursor", f"{prefix}--header"):
                style = base + table.get_component_rich_style(part)
                pairs[part] = (style.color, style.bgcolor)
            table.blur()
            await pilot.pause()
            style = base + table.get_component_rich_style(f"{prefix}--cursor")
            pairs["cursor, unfocused"] = (style.color, style.bgcolor)
            return {k: (_rgb(fg), _rgb(bg)) for k, (fg, bg) in pairs.items()}

    pairs = asyncio.run(go())
    low = {k: round(min(contrast(fg, bg), contrast(in_256(fg), in_256(bg))), 2) for k, (fg, bg) in pairs.items()}
    assert all(ratio >= MIN_CONTRAST for ratio in low.values()), low
