"""Keys not covered elsewhere: take-over from the trace, triage on the item detail, the Post
Room's enter, trace paging, and `hall tui` on the command line."""

from __future__ import annotations

import json
import re
import stat

from hallmark.core import items
from hallmark.tui.widgets.lists import VimTable as DataTable

from .conftest import STAMP, make_app, run, settle, stream_lines, until


def test_T_in_a_trace_takes_the_run_over_and_resumes_its_session(busy, tmp_path, monkeypatch):
    repo, ids = busy
    item = ids["review"]
    worktree = items.fold_item(repo, item).worktree
    lines = stream_lines(item, 1)
    lines[0]["cwd"] = worktree
    lines[0]["model"] = "claude-sonnet-4-5"  # a real session (a stand-in's cannot be resumed)
    run_file = repo.paths.item_dir(item) / "runs" / f"{STAMP}-fix.jsonl"
    run_file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    marker = tmp_path / "claude-args"
    fake = tmp_path / "fake-claude"
    fake.write_text(f'#!/bin/sh\necho "$@" > {marker}\npwd >> {marker}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("HALL_CLAUDE", str(fake))

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            app.open_trace(run_file, item=item)
            await settle(pilot)
            assert app.screen.check_action("takeover", ()) is True and not app.screen.greyed("takeover")
            await pilot.press("T")
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"  # it stops a run and pulls the item back: ask
            await pilot.press("y")
            await settle(pilot)
            assert await until(pilot, lambda: marker.exists())

    run(go())
    args, cwd = marker.read_text().splitlines()
    args = re.sub(r"^--settings \S+ ", "", args)  # the sandbox wall, where the sandbox can run here
    assert args == f"--resume {lines[0]['session_id']}" and cwd == worktree
    events = [e["event"] for e in items.item_events(repo, item)]
    assert "taken_over" in events and items.fold_item(repo, item).state == "development"


def test_triage_keys_on_the_item_detail(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            app.open_item(ids["awaiting_you"])
            await settle(pilot)
            assert not app.screen.greyed("pull_back")
            await pilot.press("r", "y")
            await settle(pilot)
            assert await until(pilot, lambda: "checks" in str(app.screen.query_one("#item-head").render()))
            await pilot.press("p", "y")
            await settle(pilot)
            assert await until(pilot, lambda: app.screen.greyed("pull_back"))  # development: nothing to pull back
            await pilot.press("n")  # the next item waiting on you opens in its place
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id != ids["awaiting_you"]

    run(go())
    assert items.fold_item(repo, ids["awaiting_you"]).state == "development"


def test_post_room_enter_opens_the_handoffs_item(busy):
    repo, ids = busy
    from hallmark.tui.screens.handoffs import HandoffsScreen

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            app.push_screen(HandoffsScreen())
            await settle(pilot)
            table = app.screen.query_one(DataTable)
            assert table.get_row_at(0)[1] == ids["dropped"]  # newest first
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == ids["dropped"]

    run(go())


def test_trace_paging_and_top(busy):
    repo, ids = busy
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(80, 10)) as pilot:
            await settle(pilot)
            app.open_trace(run_file, item=ids["review"])
            await settle(pilot)
            view = app.screen.view
            assert await until(pilot, lambda: view.scanned)
            last = view.line_count - 1
            assert view.cursor == last
            await pilot.press("pageup")
            assert view.cursor < last and not view.tail
            await pilot.press("home")
            assert view.cursor == 0 and view.scroll_y == 0
            await pilot.press("pagedown")
            assert view.cursor > 0
            await pilot.press("end")
            assert view.tail and view.cursor == last

    run(go())


def test_hall_tui_is_a_command_with_repo(hall, git_repo):
    result = hall("tui", "--help", cwd=git_repo)
    assert result.code == 0 and "--repo" in result.stdout
    listed = hall("help", "--json", cwd=git_repo).json
    assert any(c["command"] == "hall tui" for c in listed["commands"])


def test_a_click_focuses_a_room_and_a_double_click_opens_it(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await pilot.click("#room-repair")
            await pilot.pause()
            assert app.screen.focused_room().room.key == "repair"
            await pilot.double_click("#room-repair")
            await settle(pilot)
            assert type(app.screen).__name__ == "BoardScreen" and app.screen.room == "repair"
            assert list(app.screen.views) == [ids["fixing"]]

    run(go())


def test_vim_keys_in_lists_and_tables(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            app.open_item(ids["review"])
            await settle(pilot)
            journal = app.screen.query_one("#journal", DataTable)
            await pilot.press("G")
            assert journal.cursor_row == journal.row_count - 1
            await pilot.press("g")
            assert journal.cursor_row == 0
            await pilot.press("j", "j", "k")
            assert journal.cursor_row == 1
            await pilot.press("question_mark")
            await pilot.pause()
            help_table = app.screen.query_one(DataTable)
            await pilot.press("G")
            assert help_table.cursor_row == help_table.row_count - 1
            await pilot.press("q")  # closes the help, not the app
            await pilot.pause()
            assert type(app.screen).__name__ == "ItemScreen"

    run(go())


def test_escape_quits_from_the_setup_screens(git_repo, tmp_path, at):
    for where in (git_repo, tmp_path):

        async def go(where=where):
            app = make_app(where)
            async with app.run_test() as pilot:
                await pilot.pause()
                await pilot.press("escape")
                await pilot.pause()
                assert app._exit  # the app is exiting

        run(go())


def test_the_triage_list_puts_waiting_items_first_and_hides_closed_ones_until_c(busy):
    """With 95 of 100 items closed, what needed you was buried: the list sorted by id and showed all."""
    repo, ids = busy
    from hallmark.tui.screens.items_list import ItemListScreen

    async def go():
        app = make_app(repo.root, start_mode="list")
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ItemListScreen)
            shown = [row.item for row in screen.table.rows]
            waiting = [row.item for row in screen.table.rows if row.strong]
            assert waiting and shown[: len(waiting)] == waiting  # what waits for you comes first
            assert ids["dropped"] not in shown
            assert "1 closed hidden (c)" in screen.sub_title
            await pilot.press("c")
            await settle(pilot)
            assert ids["dropped"] in [row.item for row in screen.table.rows]
            assert "closed shown" in screen.sub_title
            await pilot.press("c")
            await settle(pilot)
            assert ids["dropped"] not in [row.item for row in screen.table.rows]

    run(go())


def test_usage_opens_at_its_top_with_the_budgets_on_screen(busy):
    """It opened scrolled past "Today against each budget": focusing the table scrolled it away."""
    repo, _ids = busy

    async def go():
        app = make_app(repo.root, start_mode="usage")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.pause(0.1)
            body = app.screen.query_one("#usage-body")
            assert body.scroll_y == 0
            budget = app.screen.query_one("#usage-budget")
            assert budget.region.y >= 0 and budget.region.y < 5
            assert "Today against each budget" in str(budget.render())

    run(go())
