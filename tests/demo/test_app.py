"""The demo's terminal app, driven with Pilot on a demo built in-process (the real loop, the stand-in).

One build serves both checks: first a snapshot of the building as the scripted part leaves it
(docs/demo.svg is the same picture, written by tools/demo_screenshot.py), then the daemon starts in
the background at a quick pace and the test watches a review stream in, and reads the drain.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hallmark.core import runs as run_files
from hallmark.core.demo import driver, scenario, workspace
from hallmark.tui.cli.app import make_app

SIZE = (160, 42)


@pytest.fixture
def built(tmp_path: Path):
    demo = workspace.create(tmp_path / "demo")
    with workspace.demo_env(demo):
        learned = driver.build(demo)
        yield demo, learned


async def _settle(pilot, rounds: int = 60) -> None:
    app = pilot.app
    for _ in range(rounds):
        await pilot.pause()
        busy = [w for w in app.workers if w.group not in ("watch", "tail") and w.is_running]
        if not busy:
            return
        await asyncio.sleep(0.02)


async def _until(pilot, check, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if check():
            return True
        await pilot.pause(0.05)
    return check()


def test_floor_live_review_trace_and_drain(built, snap_compare):
    from hallmark.tui.screens.drain import DrainScreen
    from hallmark.tui.screens.floor import FloorScreen, RoomBox
    from hallmark.tui.screens.trace import TraceScreen
    from hallmark.tui.widgets.trace_view import TraceView
    from textual.widgets import Static

    demo, _learned = built

    def quiet_app(**kw):
        return make_app(
            demo, keep=False, welcome=False, theme="hallmark-dark", watch_journal=False, persist_theme=False, **kw
        )

    # 1. the building as the scripted part leaves it (the README's picture)
    assert snap_compare(quiet_app(), terminal_size=SIZE, run_before=_settle)

    # 2. the daemon takes over in the background, at a pace a test can watch
    workspace.set_pace(demo, 0.15)
    background = driver.Background(demo, interval=0.2)
    rejected = demo.ids["rejected"]
    repo = demo.repo()

    async def scenario_run() -> dict:
        app = make_app(demo, keep=False, theme="hallmark-dark", persist_theme=False)
        seen: dict = {}
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            assert isinstance(app.screen, FloorScreen)
            rooms = {box.room.key: [v.id for v in box.items] for box in app.screen.query(RoomBox) if box.items}
            seen["rooms"] = rooms
            background.start()

            # wait for the fixer, then the second review of the rejected item to go live
            def live_review() -> Path | None:
                found = [r.path for r in run_files.live_runs(repo.paths, rejected) if r.name.endswith("-review.jsonl")]
                return found[0] if found else None

            found: list[Path] = []

            def review_went_live() -> bool:
                path = live_review()
                if path is not None:
                    found.append(path)
                return bool(found)

            assert await _until(pilot, review_went_live, timeout=60), "no live review started"
            app.open_trace(found[0], item=rejected)
            await _until(
                pilot, lambda: isinstance(app.screen, TraceScreen) and bool(app.screen.query(TraceView)), timeout=5
            )
            view = app.screen.query_one(TraceView)
            assert await _until(pilot, lambda: view.line_count > 0, timeout=10)
            first = view.line_count
            grew = await _until(pilot, lambda: view.line_count > first, timeout=15)
            seen["trace"] = (first, view.line_count, grew)
            assert await _until(pilot, lambda: view.saw_end, timeout=30), "the run never ended"
            seen["trace_end"] = view.line_count
            await pilot.press("L")  # the reflect drain, from anywhere
            await _until(pilot, lambda: isinstance(app.screen, DrainScreen) and app.screen.loaded, timeout=10)
            await _settle(pilot)
            drain = app.screen
            seen["drain"] = {
                lid: (card.learning["pattern"], card.came_back, bool(card.tombstone))
                for lid, card in drain.data.cards.items()
            }
            seen["drain_text"] = str(drain.query_one("#drain-progress", Static).content)
        return seen

    try:
        seen = asyncio.run(scenario_run())
    finally:
        background.stop()

    rooms = seen["rooms"]
    assert len(rooms) >= 5, rooms
    ids = demo.ids
    assert ids["approved"] in rooms["stamping"] and ids["rejected"] in rooms["repair"]
    assert ids["escalated"] in rooms["office"] and ids["question"] in rooms["workshop"]
    assert ids["dropped"] in rooms["records"] and ids["arrival"] in rooms["front_desk"]
    first, last, grew = seen["trace"]
    assert grew and last > first, seen["trace"]  # the trace grew while the test watched
    assert seen["trace_end"] > last or seen["trace_end"] == last
    drain = seen["drain"]
    assert {pattern for pattern, _, _ in drain.values()} == {
        scenario.CLAMP,
        scenario.MONEY_MAP,
        scenario.FLOAT_LEARNING,
    }
    tombstoned = [lid for lid, (pattern, came_back, tomb) in drain.items() if came_back and tomb]
    assert [drain[lid][0] for lid in tombstoned] == [scenario.FLOAT_LEARNING]
    assert "of 3" in seen["drain_text"]
