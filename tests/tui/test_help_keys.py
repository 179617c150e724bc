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


def test_the_palette_ranks_what_starts_with_the_query_first(busy):
    """`Runs of H-0003` typed in full opened "Go to H-0003": the fuzzy score put it first."""
    from textual.command import CommandList, CommandPalette

    repo, ids = busy
    item = ids["review"]

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            for typed, first in ((f"Runs of {item}", f"Runs of {item}"), ("paginate the orders api", f"Go to {item}")):
                await pilot.press("ctrl+p")
                assert await until(pilot, lambda: isinstance(app.screen, CommandPalette))
                await pilot.press(*typed)
                listed = app.screen.query_one(CommandList)
                assert await until(pilot, lambda listed=listed: listed.option_count > 0)
                await pilot.pause(0.3)
                prompt = str(listed.get_option_at_index(0).prompt)
                assert prompt.startswith(first), prompt
                await pilot.press("escape")
                await settle(pilot)

    run(go())


def test_enter_at_once_in_the_palette_acts_on_what_was_typed(busy):
    """A fast typist's Enter acted on the results of an earlier prefix ("Go to" for "Runs of …")."""
    from hallmark.tui.screens.runs import RunsScreen
    from textual.command import CommandPalette

    repo, ids = busy
    item = ids["review"]

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+p")
            assert await until(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press(*f"Runs of {item}", "enter")
            assert await until(pilot, lambda: isinstance(app.screen, RunsScreen), timeout=5)

    run(go())
