"""Floor plan, item detail, inbox, usage, help, palette, keymap, themes and the setup screen:
each key pressed in the real app, checked through the core."""

from __future__ import annotations

import time

from hallmark.core import inbox, items
from hallmark.tui.widgets.lists import VimTable as DataTable

from .conftest import VIEWED_AT, make_app, run, settle, until


def _rows(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


# -- floor plan ---------------------------------------------------------------------------------


def test_floor_rooms_hold_their_states_and_the_watchman_flags_quiet_items(busy):
    repo, ids = busy
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            boxes = {b.room.key: b for b in app.screen.query(RoomBox)}
            assert [v.id for v in boxes["workshop"].items] == [ids["development"]]
            # your office holds everything waiting for you: the question in development too
            assert {v.id for v in boxes["office"].items} == {ids["awaiting_you"], ids["escalated"], ids["development"]}
            assert "◆ 3 waiting for you" in str(boxes["office"].render())
            assert {v.id for v in boxes["assay"].items} == {ids["checks"], ids["review"]}
            assert [v.id for v in boxes["repair"].items] == [ids["fixing"]]
            assert [v.id for v in boxes["stamping"].items] == [ids["hallmarked"]]
            assert [v.id for v in boxes["records"].items] == [ids["dropped"]]
            watchman = str(app.screen.query_one("#watchman").render())
            # quiet two hours: in the loop; not the ones waiting on you (development has a question)
            for key in ("checks", "review", "fixing", "hallmarked"):
                assert ids[key] in watchman
            for key in ("awaiting_you", "escalated", "development"):
                assert ids[key] not in watchman
            assert "quiet 2h" in watchman

    run(go())


def test_the_watchman_leaves_out_held_items_and_items_with_a_live_run(busy):
    """A hold waits on you and a live run is progress, however quiet: neither is stuck."""
    import fcntl
    import os

    from hallmark.core.watchman import stuck_items

    repo, ids = busy
    items.record(repo, ids["hallmarked"], "held", actor="shipper", kind="ship_failed", reason="no origin")
    lock = repo.paths.item_dir(ids["checks"]) / "runs" / "20261130T120000000Z-review.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(lock), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the runner holds it while its run lives
    try:
        stuck = {s.item for s in stuck_items(repo)}
    finally:
        os.close(fd)
    assert stuck == {ids["review"], ids["fixing"]}
    assert {ids["review"], ids["fixing"], ids["checks"]} == {s.item for s in stuck_items(repo)}


def test_a_broken_config_shows_on_the_floor(busy):
    repo, _ids = busy
    from hallmark.tui.screens.floor import load_extras

    (repo.root / ".hallmark.toml").write_text('base = "main"\nmax_rejects = "three"\n')

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            watchman = str(app.screen.query_one("#watchman").render())
            assert "⚠ config:" in watchman and "max_rejects" in watchman and "hall doctor" in watchman

    from hallmark.core.repo import open_repo

    assert "max_rejects" in load_extras(open_repo(repo.root)).config_problem
    run(go())


def test_a_room_says_how_many_more_items_it_could_not_show(busy):
    """'+N more' is exactly the items a room had no line for: none when all fit (even with badges)."""
    import re

    repo, _ids = busy
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        for size in ((160, 48), (80, 24)):
            app = make_app(repo.root)
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                for box in app.screen.query(RoomBox):
                    text = str(box.render())
                    listed = sum(1 for v in box.items if v.id in text)
                    more = re.search(r"\+(\d+) more", text)
                    assert (int(more.group(1)) if more else 0) == len(box.items) - listed, (size, box.room.key, text)

    run(go())


def test_floor_empty_repo_shows_empty_rooms(hall_repo, at):
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        app = make_app(hall_repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            boxes = list(app.screen.query(RoomBox))
            assert len(boxes) == 11 and all(not b.items for b in boxes)
            assert "all quiet" in str(app.screen.query_one("#watchman").render())

    run(go())


def test_floor_hjkl_and_arrows_move_between_rooms_and_enter_opens_the_room(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:  # 80 columns: three rooms a row
            await settle(pilot)
            screen = app.screen
            assert screen.columns == 3
            assert screen.focused_room().room.key == "workshop"
            await pilot.press("l")
            assert screen.focused_room().room.key == "office"
            await pilot.press("l")  # the end of the row: stays
            assert screen.focused_room().room.key == "office"
            await pilot.press("j")
            assert screen.focused_room().room.key == "library"
            await pilot.press("h")
            assert screen.focused_room().room.key == "records"
            await pilot.press("up", "left")
            assert screen.focused_room().room.key == "front_desk"
            await pilot.press("down", "right", "k")
            assert screen.focused_room().room.key == "workshop"
            await pilot.press("j", "j", "h")
            assert screen.focused_room().room.key == "assay"
            await pilot.press("enter")
            await settle(pilot)
            board = app.screen
            assert type(board).__name__ == "BoardScreen" and board.room == "assay"
            assert set(board.views) == {ids["checks"], ids["review"]}
            await pilot.press("escape")
            await settle(pilot)
            assert type(app.screen).__name__ == "FloorScreen"

    run(go())


def test_floor_layout_adapts_to_width(busy):
    repo, _ = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            assert app.screen.columns == 4
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert app.screen.columns == 3
            await pilot.resize_terminal(72, 24)
            await pilot.pause()
            assert app.screen.columns == 2
            await pilot.resize_terminal(60, 24)  # too narrow for boxes: one list of rooms
            await pilot.pause()
            assert app.screen.columns == 1 and app.screen.compact

    run(go())


def test_floor_library_and_post_room_open_the_drain_and_the_handoffs(busy):
    repo, _ids = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:  # four a row: Post Room is row 0, col 3
            await settle(pilot)
            await pilot.press("l", "l")
            assert app.screen.focused_room().room.key == "post_room"
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "HandoffsScreen"
            table = app.screen.query_one(DataTable)
            assert any(row[2] == "dropped" for row in _rows(table))
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("j", "h", "h")  # Library: row 1, col 1
            assert app.screen.focused_room().room.key == "library"
            await pilot.press("enter")
            await settle(pilot)
            assert app.current_mode == "drain"

    run(go())


# -- item detail --------------------------------------------------------------------------------


def test_item_detail_shows_facts_timeline_and_runs_and_opens_the_trace(busy):
    repo, ids = busy
    item = ids["review"]

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            app.open_item(item)
            await settle(pilot)
            screen = app.screen
            head = str(screen.query_one("#item-head").render())
            assert "review" in head and "round: 1" in head and "budget used: 67.4k of 800.0k" in head
            assert "../repo-" in head
            events = [row[2] for row in _rows(screen.query_one("#journal", DataTable))]
            assert events[-3:] == ["checks_passed", "ready", "created"]  # newest first
            await pilot.press("enter")
            assert screen.expanded == 0 and f'"event": "{events[0]}"' in str(screen.query_one("#event-detail").render())
            await pilot.press("enter")
            assert screen.expanded is None
            await pilot.press("tab", "tab")
            runs = _rows(screen.query_one("#runs", DataTable))
            assert runs[0][1] == "review" and runs[0][5] == "✓ ok"
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "TraceScreen"

    run(go())


def test_item_detail_drop_and_findings(busy):
    repo, ids = busy
    item = ids["escalated"]

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            app.open_item(item)
            await settle(pilot)
            await pilot.press("tab")
            rows = _rows(app.screen.query_one("#findings", DataTable))
            assert rows and (rows[0][3] == "no findings" or rows[0][0])  # the placeholder, or a finding's id
            await pilot.press("d", *"wrong approach", "enter")
            await settle(pilot)
            assert "dropped" in str(app.screen.query_one("#item-head").render())

    run(go())
    assert items.fold_item(repo, item).state == "dropped"


# -- inbox --------------------------------------------------------------------------------------


def test_inbox_lists_escalations_enter_answers_and_x_dismisses(busy):
    repo, ids = busy
    before = inbox.visible(repo)
    kinds = {e["kind"] for e in before}
    assert {"question", "escalated", "ready?"} <= kinds

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen = app.screen
            rows = _rows(screen.query_one("#entries", DataTable))
            assert [r[1] for r in rows] == [e["kind"] for e in before]
            question_row = [e["kind"] for e in before].index("question")
            screen.query_one("#entries", DataTable).move_cursor(row=question_row)
            await pilot.press("enter")
            await pilot.pause()
            assert type(app.screen).__name__ == "ReasonModal"
            await pilot.press(*"yes", "enter")
            await settle(pilot)
            escalated = [e["kind"] for e in screen.entries].index("escalated")
            screen.query_one("#entries", DataTable).move_cursor(row=escalated)
            await pilot.press("x")
            await settle(pilot)
            await pilot.press("tab")
            assert app.screen.query_one("TabbedContent").active == "tab-notices"

    run(go())
    assert all(q["answered"] for q in repo.index.questions() if q["item"] == ids["development"])
    after = inbox.visible(repo)
    assert len(after) == len(before) - 2  # one answered, one dismissed


def test_inbox_enter_on_an_escalation_retries_with_a_reason(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            entries = app.screen.entries
            row = [e["kind"] for e in entries].index("escalated")
            app.screen.query_one("#entries", DataTable).move_cursor(row=row)
            await pilot.press("enter", *"allow one more", "enter")
            await settle(pilot)
            ready_row = [e["kind"] for e in app.screen.entries].index("ready?")
            app.screen.query_one("#entries", DataTable).move_cursor(row=ready_row)
            await pilot.press("o")
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == ids["awaiting_you"]

    run(go())
    assert items.fold_item(repo, ids["escalated"]).state == "fixing"


# -- usage --------------------------------------------------------------------------------------


def test_usage_tables_chart_and_budget(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root, start_mode="usage")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen = app.screen
            role_rows = _rows(screen.query_one("#usage-role", DataTable))
            # the only run was the demo's stand-in: every row says so, none claims a model ran
            assert role_rows[0][0] == "review (stand-in)" and role_rows[0][1] == "1"
            item_rows = _rows(screen.query_one("#usage-item", DataTable))
            assert item_rows[0][0] == f"{ids['review']} (stand-in)"
            model_rows = _rows(screen.query_one("#usage-model", DataTable))
            assert model_rows[0][0] == "hallmark-standin (stand-in, no model ran)"
            chart = str(screen.query_one("#usage-chart").render())
            assert chart.count("\n") >= 14 and "11-30" in chart and "67.4k" in chart
            budget = str(screen.query_one("#usage-budget").render())
            assert "daily:" in budget and "1 of 1 runs were the demo's stand-in" in budget
            tabs = screen.query_one("TabbedContent")
            await pilot.press("tab")
            assert tabs.active == "tab-role"

    run(go())


# -- everywhere ---------------------------------------------------------------------------------


def test_mode_keys_help_and_palette(busy):
    repo, _ = busy

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            for key, mode in (
                ("b", "board"),
                ("i", "inbox"),
                ("dollar_sign", "usage"),
                ("t", "runs"),
                ("L", "drain"),
                ("f", "floor"),
                ("i", "inbox"),
                ("l", "drain"),
            ):
                await pilot.press(key)
                await settle(pilot)
                assert app.current_mode == mode, key
            await pilot.press("question_mark")
            await pilot.pause()
            assert type(app.screen).__name__ == "HelpScreen"
            ids = {row[3] for row in _rows(app.screen.query_one(DataTable))}
            assert {"triage.drop", "mode.floor", "trace.follow", "drain.accept", "floor.open"} <= ids
            await pilot.press("escape")
            await pilot.press("ctrl+p")
            await pilot.pause()
            assert type(app.screen).__name__ == "CommandPalette"
            await pilot.press(*"Boards")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await settle(pilot)
            assert app.current_mode == "board"

    run(go())


def test_keymap_in_the_user_config_remaps_a_binding(busy):
    repo, ids = busy
    from hallmark.tui import settings

    path = settings.user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[tui.keymap]\n"triage.drop" = "X"\n')

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test() as pilot:
            await settle(pilot)
            app.screen.select_item(ids["review"])
            await pilot.press("d")  # no longer bound
            await pilot.pause()
            assert type(app.screen).__name__ == "BoardScreen"
            await pilot.press("X", *"remapped", "enter")
            await settle(pilot)

    run(go())
    assert items.fold_item(repo, ids["review"]).state == "dropped"


def test_a_bad_user_config_is_a_warning_not_a_crash(hall_repo, at):
    from hallmark.tui import settings

    path = settings.user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[tui\nbroken")
    loaded = settings.load(hall_repo.root)
    assert loaded.problems and "config.toml" in loaded.problems[0]

    async def go():
        app = make_app(hall_repo.root)
        async with app.run_test(notifications=True) as pilot:
            await settle(pilot)
            assert any(n.title == "config" for n in app._notifications)
            assert app.current_mode == "floor"

    run(go())


def test_themes_are_registered_and_the_choice_persists(hall_repo, at):
    from hallmark.tui import settings

    async def go():
        app = make_app(hall_repo.root, theme=None, persist_theme=True)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert {"hallmark-dark", "hallmark-light", "hallmark-contrast", "textual-dark"} <= set(app.available_themes)
            assert app.theme == "hallmark-dark"
            app.theme = "hallmark-contrast"
            await pilot.pause()

    run(go())
    assert settings.load(None).theme == "hallmark-contrast"

    async def again():
        app = make_app(hall_repo.root, theme=None, persist_theme=True)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert app.theme == "hallmark-contrast"
            app.search_themes()  # the palette previews, escape restores
            await pilot.pause(0.3)
            await pilot.press(*"hallmark-light")
            await pilot.pause(0.5)
            assert app.theme == "hallmark-light"
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert app.theme == "hallmark-contrast"

    run(again())
    assert settings.load(None).theme == "hallmark-contrast"


def test_a_repo_without_hall_init_offers_it(git_repo, at):
    async def go():
        app = make_app(git_repo)
        async with app.run_test() as pilot:
            await pilot.pause()
            assert type(app.screen).__name__ == "NotInitialisedScreen"
            assert app.check_action("mode", ("board",)) is False
            await pilot.press("i")
            await settle(pilot)
            assert app.current_mode == "floor"

    run(go())
    from hallmark.core.paths import discover

    assert discover(git_repo).initialized


def test_not_a_repo_says_so(tmp_path, at):
    async def go():
        app = make_app(tmp_path)
        async with app.run_test() as pilot:
            await pilot.pause()
            assert type(app.screen).__name__ == "NotARepoScreen"

    run(go())


def test_another_process_writing_the_journal_shows_on_the_open_board(busy, hall):
    repo, ids = busy
    target = ids["fixing"]
    latency = []

    async def go():
        app = make_app(repo.root, start_mode="board", watch_journal=True)
        async with app.run_test() as pilot:
            await settle(pilot)
            dropped_list = app.screen.query_one("#list-dropped")
            assert dropped_list.option_count == 1
            result = hall(
                "drop",
                target,
                "--reason",
                "from another terminal",
                cwd=repo.root,
                env={"HALLMARK_FIXED_NOW": VIEWED_AT},
            )
            assert result.code == 0, result.stderr
            start = time.monotonic()
            assert await until(pilot, lambda: dropped_list.option_count == 2, timeout=5)
            latency.append(time.monotonic() - start)
            ids_now = [dropped_list.get_option_at_index(i).id for i in range(dropped_list.option_count)]
            assert target in ids_now

    run(go())
    assert latency[0] < 2.0  # polled every 0.2 s; the budget on a quiet machine is 0.5 s
