"""?: the screen's own keys first, a filter as you type, enter runs the key on that screen."""

from __future__ import annotations

from hallmark.tui.screens.help import HelpScreen

from .conftest import make_app, run, settle, until


def _rows(app) -> list[list]:
    table = app.screen.query_one("#help-table")
    return [table.get_row_at(n) for n in range(table.row_count)]


def test_help_is_context_first_filters_as_you_type_and_enter_runs_the_key(busy):
    repo, _ids = busy

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            assert await until(pilot, lambda: isinstance(app.screen, HelpScreen))
            rows = _rows(app)
            assert rows[0][0] == "inbox"  # the screen it was opened on comes first
            assert [r[0] for r in rows].index("everywhere") > 0
            await pilot.press(*"usage")  # typing filters
            await settle(pilot)
            rows = _rows(app)
            assert rows and all("usage" in " ".join(str(c) for c in r).lower() for r in rows)
            await pilot.press("enter")  # back to the list
            row = next(n for n, r in enumerate(_rows(app)) if r[3] == "mode.usage")
            app.screen.query_one("#help-table").move_cursor(row=row)
            await pilot.press("enter")  # runs $ on the inbox: the usage view
            assert await until(pilot, lambda: app.current_mode == "usage" and not isinstance(app.screen, HelpScreen))
            await pilot.press("question_mark")
            assert await until(pilot, lambda: isinstance(app.screen, HelpScreen))
            assert _rows(app)[0][0] == "usage"
            await pilot.press("question_mark")  # ? again closes
            assert await until(pilot, lambda: not isinstance(app.screen, HelpScreen))

    run(go())
