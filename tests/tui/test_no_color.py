"""Every screen runs with NO_COLOR set (Textual's monochrome filter) and in both bundled themes.

The filter reads `style.color` on every segment a widget draws, so a Line-API row left with Rich's
unstyled (None) segments crashed the app the moment the triage list, the inbox or usage opened.
The same unstyled rows kept the terminal's own background (SGR 49) under the light theme's table.
"""

from __future__ import annotations

import asyncio

import pytest
from hallmark.core.memory import api as library
from rich.segment import Segment

from .conftest import make_app, settle, until, write_run

MODES = ("floor", "board", "list", "inbox", "usage", "drain", "runs")


def _unstyled(app) -> list[str]:
    """Texts of segments on screen drawn with no style at all (they take the terminal's colours)."""
    return [
        segment.text
        for strip in app.screen._compositor.render_strips()
        for segment in strip
        if isinstance(segment, Segment) and segment.style is None and segment.text.strip()
    ]


async def _visit_everything(pilot, ids: dict[str, str], run_file) -> list[str]:
    """Open every screen (and a modal, the palette and help) and return what each one drew unstyled."""
    app = pilot.app
    seen: list[str] = []

    async def look(name: str) -> None:
        await settle(pilot)
        await pilot.pause(0.05)
        seen.extend(f"{name}: {text!r}" for text in _unstyled(app))

    for mode in MODES:
        await pilot.press(
            {"floor": "f", "board": "b", "list": "v", "inbox": "i", "usage": "dollar_sign", "drain": "L", "runs": "t"}[
                mode
            ]
        )
        await look(mode)
        assert app.current_mode == mode
        await pilot.press("j", "k")
        await look(mode)
    await pilot.press("f")
    app.open_item(ids["review"])
    await look("item")
    for _ in range(4):
        await pilot.press("tab")
        await look("item tab")
    await pilot.press("D")
    await until(pilot, lambda: type(app.screen).__name__ == "DiffScreen" and app.screen.diff is not None)
    await look("diff")
    await pilot.press("escape", "escape")
    app.open_trace(run_file, item=ids["review"])
    await until(pilot, lambda: bool(app.screen.query("TraceView")) and app.screen.view.scanned)
    await look("trace")
    await pilot.press("enter")
    await look("trace expanded")
    await pilot.press("slash", "r", "e", "s", "u", "l", "t", "enter")
    await look("trace search")
    await pilot.press("b")
    app.screen.select_item(ids["review"])
    await pilot.press("d")
    await look("drop modal")
    await pilot.press("escape", "question_mark")
    await look("help")
    await pilot.press("escape", "ctrl+p")
    await look("palette")
    await pilot.press("escape")
    return seen


def _fixtures(busy):
    repo, ids = busy
    library.propose(
        repo,
        kind="rule",
        pattern="Name test files after the module they test",
        evidence={"source": "review_finding", "quote": "test name does not match", "date": "2026-11-28"},
    )
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))
    write_run(run_file, finished=True, item=ids["review"])
    return repo, ids, run_file


def _walk(repo, ids, run_file, theme: str, *, no_color: bool) -> list[str]:
    async def go() -> list[str]:
        app = make_app(repo.root, theme=theme)
        async with app.run_test(size=(120, 36)) as pilot:
            assert app.no_color is no_color
            return await _visit_everything(pilot, ids, run_file)

    return asyncio.run(go())


@pytest.mark.parametrize("theme", ["hallmark-dark", "hallmark-light", "hallmark-contrast"])
def test_every_screen_runs_with_no_color(busy, monkeypatch, theme):
    """NO_COLOR=1: every view, an item's tabs, its diff, a trace (expanded and searched), a modal,
    help and the palette open without the monochrome filter crashing the app."""
    repo, ids, run_file = _fixtures(busy)
    monkeypatch.setenv("NO_COLOR", "1")
    _walk(repo, ids, run_file, theme, no_color=True)


@pytest.mark.parametrize("theme", ["hallmark-dark", "hallmark-light"])
def test_every_cell_takes_the_theme_colours(busy, monkeypatch, theme):
    """No cell on any screen is left to the terminal's own colours (the light theme's triage table
    sat on a dark terminal background beside a light detail pane)."""
    repo, ids, run_file = _fixtures(busy)
    monkeypatch.delenv("NO_COLOR", raising=False)
    seen = _walk(repo, ids, run_file, theme, no_color=False)
    assert not seen, "drawn with no style (the terminal's own colours):\n" + "\n".join(seen[:20])
