"""Every board key, pressed in the real app, checked against the journal through the core."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hallmark.core import items, journal
from textual.widgets import OptionList

from .conftest import make_app, run, settle


def board_app(repo, **kw):
    return make_app(repo.root, start_mode="board", **kw)


async def _select(pilot, item_id: str) -> None:
    await settle(pilot)
    assert pilot.app.screen.select_item(item_id), f"{item_id} is not on the board"
    await pilot.pause()


def test_drop_asks_for_a_reason_and_drops_in_the_journal(busy):
    repo, ids = busy
    target = ids["development"]

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, target)
            await pilot.press("d")
            await pilot.pause()
            assert type(app.screen).__name__ == "ReasonModal"
            await pilot.press("enter")  # empty: refused, the modal stays
            await pilot.pause()
            assert type(app.screen).__name__ == "ReasonModal"
            await pilot.press(*"superseded by H-0009")
            await pilot.press("enter")
            await settle(pilot)

    run(go())
    view = items.fold_item(repo, target)
    assert view.state == "dropped"
    dropped = [e for e in journal.read(repo.paths.item_journal(target)).events if e["event"] == "dropped"]
    assert dropped[-1]["reason"] == "superseded by H-0009"


def test_escape_in_the_drop_modal_changes_nothing(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["review"])
            await pilot.press("d", "x", "escape")
            await settle(pilot)

    run(go())
    assert items.fold_item(repo, ids["review"]).state == "review"


def test_ready_on_an_item_awaiting_you(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["awaiting_you"])
            await pilot.press("r")
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"  # a state change asks first
            assert ids["awaiting_you"] in str(app.screen.query_one("#modal-title").render())
            await pilot.press("y")
            await settle(pilot)

    run(go())
    assert items.fold_item(repo, ids["awaiting_you"]).state == "checks"


def test_pull_back_from_review(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["review"])
            await pilot.press("p")
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"
            await pilot.press("n")  # no: nothing changes
            await settle(pilot)
            assert items.fold_item(repo, ids["review"]).state == "review"
            await pilot.press("p", "y")
            await settle(pilot)

    run(go())
    assert items.fold_item(repo, ids["review"]).state == "development"


def test_retry_an_escalated_item_with_a_reason(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["escalated"])
            await pilot.press("R")
            await pilot.press(*"one more try")
            await pilot.press("enter")
            await settle(pilot)

    run(go())
    view = items.fold_item(repo, ids["escalated"])
    assert view.state == "fixing"
    assert [e for e in items.item_events(repo, view.id) if e["event"] == "retried"][-1]["reason"] == "one more try"


def test_answer_the_items_open_question_by_option_letter(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["development"])
            await pilot.press("a")
            await pilot.pause()
            assert "Keep the old cookie name?" in str(app.screen.query_one("#modal-prompt").render())
            await pilot.press("b", "enter")
            await settle(pilot)

    run(go())
    answered = [q for q in repo.index.questions() if q["item"] == ids["development"]]
    assert answered[0]["answer"] == "no"


def test_keys_that_do_not_apply_are_greyed_and_say_why_when_pressed(busy):
    repo, ids = busy
    told = []

    async def go():
        app = board_app(repo)
        async with app.run_test(notifications=True) as pilot:
            await _select(pilot, ids["dropped"])
            screen = app.screen
            assert screen.greyed("ready") and screen.greyed("drop") and screen.greyed("answer")
            footer = screen.query_one("HallFooter")
            assert not next(e for e in footer.entries if e.action == "ready").enabled
            await pilot.press("r", "p", "R")
            await settle(pilot)
            assert type(app.screen).__name__ == "BoardScreen"  # no modal opened for R
            told.extend(n.message for n in app._notifications)
            await _select(pilot, ids["development"])
            assert not screen.greyed("ready") and not screen.greyed("answer")
            assert screen.greyed("retry")

    run(go())
    assert items.fold_item(repo, ids["dropped"]).state == "dropped"
    assert any("does not apply" in m and ids["dropped"] in m for m in told)


def test_a_core_error_is_a_notification_with_its_next_commands(busy):
    repo, ids = busy
    view = items.fold_item(repo, ids["development"])
    Path(view.worktree, "scratch.txt").write_text("uncommitted\n")
    seen = []

    async def go():
        app = board_app(repo)
        async with app.run_test(notifications=True) as pilot:
            await _select(pilot, view.id)
            await pilot.press("r", "y")
            await settle(pilot)
            seen.extend(app._notifications)

    run(go())
    assert items.fold_item(repo, view.id).state == "development"
    errors = [n for n in seen if n.title == "DIRTY_WORKTREE"]
    assert errors and "next:" in errors[0].message and "status" in errors[0].message


def test_h_l_cross_columns_and_j_k_move_within(busy):
    repo, ids = busy

    async def go():
        app = board_app(
            repo,
        )
        async with app.run_test(size=(160, 48)) as pilot:
            await _select(pilot, ids["development"])
            screen = app.screen
            await pilot.press("l")
            assert screen.selected().state == "awaiting_you"
            await pilot.press("l")
            assert screen.selected().state == "checks"
            await pilot.press("h", "h")
            assert screen.selected().id == ids["development"]
            await pilot.press("right")
            assert screen.selected().state == "awaiting_you"
            await pilot.press("left", "j")
            assert screen.selected().state == "development"  # one item in the column: j stays
            await pilot.press("k")
            assert screen.selected().id == ids["development"]

    run(go())


def test_filter_narrows_the_cards_and_escape_clears_it(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await settle(pilot)
            await pilot.press("slash", *"csv")
            await pilot.pause()
            counts = {o.id: o.option_count for o in app.screen.query(OptionList)}
            assert sum(counts.values()) == 1 and counts["list-fixing"] == 1
            await pilot.press("enter")
            assert app.screen.selected().id == ids["fixing"]
            await pilot.press("escape")
            await pilot.pause()
            assert sum(o.option_count for o in app.screen.query(OptionList)) == 8

    run(go())


def test_e_opens_the_worktree_in_the_editor(busy, tmp_path, monkeypatch):
    repo, ids = busy
    marker = tmp_path / "editor-args"
    editor = tmp_path / "fake-editor"
    editor.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {marker}\n")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["review"])
            await pilot.press("e")
            await settle(pilot)

    run(go())
    assert marker.read_text() == items.fold_item(repo, ids["review"]).worktree
    assert os.path.isdir(marker.read_text())


def test_enter_opens_the_item_and_t_its_runs(busy):
    repo, ids = busy

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["review"])
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == ids["review"]
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("t")  # t is Runs everywhere: here, this item's runs
            await settle(pilot)
            assert app.current_mode == "runs" and app.screen.item_filter == ids["review"]
            assert [r.item for r in app.screen.runs] == [ids["review"]]
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "TraceScreen"
            assert app.screen.path.name.endswith("-review.jsonl")
            await pilot.press("b")  # b is always the board, never the trace opened from it
            await settle(pilot)
            assert type(app.screen).__name__ == "BoardScreen"

    run(go())


def test_n_walks_the_items_waiting_on_you_and_D_opens_the_diff(busy):
    repo, ids = busy
    from hallmark.core import waiting

    expected = [v.id for v in waiting.waiting_items(repo)]

    async def go():
        app = board_app(repo)
        async with app.run_test() as pilot:
            await _select(pilot, ids["review"])  # not waiting: n goes to the oldest waiting
            await pilot.press("n")
            await pilot.pause()
            assert app.screen.selected().id == expected[0]
            await pilot.press("n")
            await pilot.pause()
            assert app.screen.selected().id == expected[1 % len(expected)]
            assert len(expected) >= 2
            await pilot.press("D")
            await settle(pilot)
            assert type(app.screen).__name__ == "DiffScreen"

    run(go())


def test_the_board_opens_on_the_first_card_even_when_the_first_columns_are_empty(hall_repo, at):
    """Only a hallmarked item: the cursor starts on it (scrolled into view), so enter opens it."""
    from hallmark.tui.screens.item import ItemScreen

    from .conftest import build_busy

    ids = build_busy(hall_repo)
    for state, item_id in ids.items():
        if state != "hallmarked" and state not in ("closed", "dropped"):
            items.drop(hall_repo, item_id, reason="only the hallmarked one stays", actor="you")
    hallmarked = ids["hallmarked"]

    async def go():
        app = board_app(hall_repo)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert screen.selected() is not None and screen.selected().id == hallmarked
            column = screen.current_column()
            assert column is not None and column.region.x < 100  # scrolled into view
            app.refresh_building(None)  # a journal write refills the board: the cursor stays on the card
            await settle(pilot)
            assert screen.selected().id == hallmarked
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ItemScreen) and app.screen.item_id == hallmarked

    run(go())


def test_a_column_that_empties_stays_on_the_board_for_the_session(busy):
    """Columns appeared and disappeared while the daemon worked: the board shifted sideways."""
    from hallmark.core import items as core_items
    from hallmark.tui.screens.board import BoardColumn

    repo, ids = busy

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            column = next(c for c in screen.query(BoardColumn) if c.state == "checks")
            assert column.display
            core_items.transition(repo, ids["checks"], "checks_passed", actor="assayer")
            app.journal_changed(frozenset({ids["checks"]}))
            await settle(pilot)
            assert column.shown == ()  # empty now
            assert column.display, "the emptied column stayed"
            never = next(c for c in screen.query(BoardColumn) if not c.shown and c.state not in screen.kept)
            assert not never.display  # a column never shown this session stays hidden

    run(go())
