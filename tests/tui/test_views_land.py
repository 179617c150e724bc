"""Each view key lands on that view's own first screen, never on a screen left on its stack."""

from __future__ import annotations

from hallmark.tui.screens.runs import RunsScreen
from hallmark.tui.screens.trace import TraceScreen

from .conftest import make_app, run, settle, until


def test_t_shows_the_runs_list_not_an_old_trace_left_on_its_stack(busy):
    repo, ids = busy
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))

    async def go():
        app = make_app(repo.root, start_mode="runs")
        async with app.run_test(size=(140, 36)) as pilot:
            await settle(pilot)
            app.open_trace(run_file, item=ids["review"])
            assert await until(pilot, lambda: isinstance(app.screen, TraceScreen))
            await pilot.press("f")
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert isinstance(app.screen, RunsScreen), type(app.screen)
            await pilot.press("f")
            await settle(pilot)
            app.open_item(ids["review"])
            await settle(pilot)
            await pilot.press("t")  # from an item: its runs, in the same Runs view
            await settle(pilot)
            assert isinstance(app.screen, RunsScreen), type(app.screen)

    run(go())
