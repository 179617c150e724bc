"""Issue 8 in the app: waiting badges on every card, `n` everywhere, the footer's count, seen marks
through the real seen file, cost per item and per run, stand-in usage, and L where l moves right."""

from __future__ import annotations

import json
import os

from hallmark.core import items, questions, seen, waiting
from hallmark.tui.widgets.lists import VimTable as DataTable

from .conftest import make_app, run, settle, until


def _footer_text(app) -> str:
    from hallmark.tui.widgets.footer import HallFooter

    footers = list(app.screen.query(HallFooter))
    return footers[0].text() if footers else ""


def _card(app, item_id: str) -> str:
    """The card's text with its fact lines joined the way one long line would read."""
    for column in app.screen.query(".column-list"):
        try:
            head, *facts = str(column.get_option(item_id).prompt).split("\n  ")
            return head + "\n  " + " · ".join(facts)
        except Exception:  # noqa: BLE001 - not in this column
            continue
    raise AssertionError(f"{item_id} has no card")


def _hallmarked(repo, title: str) -> str:
    item = items.new(repo, title=title)["item"]
    items.ready(repo, item)
    items.transition(repo, item, "checks_passed", actor="assayer")
    items.transition(repo, item, "hallmarked", actor="assayer")
    return item


def test_cards_rooms_and_detail_show_the_waiting_state_and_the_cost(busy):
    repo, ids = busy
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            assert "\n  ◆ waiting for you · ready? · 0 tok $0.00 · 2h" in _card(app, ids["awaiting_you"])
            assert "\n  ◆ waiting for you · question Q-1" in _card(app, ids["development"])
            assert "\n  ◆ waiting for you · escalated · round 1" in _card(app, ids["escalated"])
            review = _card(app, ids["review"])
            assert "\n  … in the loop · round 1 · 67.4k tok $0.00 · 2h" in review
            assert "★ done, unseen" in _card(app, ids["hallmarked"])
            assert "0 tok $0.00" in _card(app, ids["checks"])
            await pilot.press("f")
            await settle(pilot)
            boxes = {b.room.key: b for b in app.screen.query(RoomBox)}
            office = str(boxes["office"].render())  # a room is narrow: the short word with the symbol
            assert f"{ids['awaiting_you']} ◆ waiting Rename" in office and f"{ids['escalated']} ◆ waiting" in office
            assert f"{ids['development']} ◆ waiting" in office  # its open question waits for you too
            assert f"{ids['hallmarked']} ★ unseen" in str(boxes["stamping"].render())
            assert f"{ids['review']} … in loop" in str(boxes["assay"].render())
            app.open_item(ids["review"])
            await settle(pilot)
            head = str(app.screen.query_one("#item-head").render())
            assert "… in the loop" in head
            await pilot.press("tab", "tab", "tab")  # journal -> findings -> runs -> cost
            await settle(pilot)
            assert app.screen.query_one("TabbedContent").active == "tab-cost"
            rows = [
                [str(c) for c in r]
                for r in (
                    app.screen.query_one("#cost", DataTable).get_row_at(i)
                    for i in range(app.screen.query_one("#cost", DataTable).row_count)
                )
            ]
            assert rows[0][:2] == ["round 1", ""] and rows[0][2] == "67.4k"
            assert rows[1][1] == "review" and rows[1][4] == "hallmark-standin (stand-in, no model ran)"
            assert rows[-1][0] == "total" and rows[-1][2] == "67.4k" and rows[-1][3] == "0.00"

    run(go())


def test_opening_the_detail_or_the_diff_marks_it_seen_in_the_user_data_dir(busy):
    repo, ids = busy
    other = _hallmarked(repo, "Second finished item")
    assert waiting.classify(repo, items.fold_item(repo, other))[0] == "done_unseen"

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            assert "★ done, unseen" in _card(app, ids["hallmarked"])
            app.screen.select_item(ids["hallmarked"])
            await pilot.press("enter")
            await settle(pilot)
            assert "★" not in str(app.screen.query_one("#item-head").render())
            await pilot.press("escape")
            await settle(pilot)
            assert "done, unseen" not in _card(app, ids["hallmarked"])
            assert "★ done, unseen" in _card(app, other)
            app.screen.select_item(other)
            await pilot.press("D")
            await settle(pilot)
            assert type(app.screen).__name__ == "DiffScreen"
            await until(pilot, lambda: app.screen.diff is not None or app.screen.error is not None)
            await pilot.press("escape")
            await settle(pilot)
            assert "done, unseen" not in _card(app, other)

    run(go())
    assert seen.seen_path().is_relative_to(os.environ["HALLMARK_DATA_DIR"])  # per person, not in the journal
    marks = json.loads(seen.seen_path().read_text())
    (repo_marks,) = marks.values()
    assert set(repo_marks) >= {ids["hallmarked"], other}
    assert seen.last_seen(repo, ids["review"]) is None  # only what was opened
    assert waiting.classify(repo, items.fold_item(repo, other))[0] == "idle"


def test_n_jumps_to_the_next_waiting_item_from_every_mode_even_a_trace_but_not_a_modal(busy):
    repo, ids = busy
    expected = [v.id for v in waiting.waiting_items(repo)]
    assert len(expected) == 3
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)

            async def press(*keys):
                for key in keys:
                    await pilot.press(key)
                    await settle(pilot)

            def on_item(item_id):
                return type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == item_id

            await press("n")  # floor: the oldest opens
            assert on_item(expected[0])
            await press("n")  # the item detail gives way to the next
            assert on_item(expected[1]) and len(app.screen_stack) == 2
            await press("D")  # its diff: n goes on from the diff's item, the diff and the detail give way
            assert type(app.screen).__name__ == "DiffScreen"
            await press("n")
            assert on_item(expected[2]) and len(app.screen_stack) == 2
            await press("n")  # wraps round
            assert on_item(expected[0])
            await press("i")  # the inbox moves its own cursor: from the first entry's item to the next
            assert app.screen.current_item_id() == expected[0]
            await press("n")
            assert type(app.screen).__name__ == "InboxScreen" and app.screen.current_item_id() == expected[1]
            for mode in ("dollar_sign", "t", "l"):
                await press(mode)
                assert type(app.screen).__name__ != "ItemScreen"
                await press("n")
                assert on_item(expected[0]), mode
                await press("escape")
            await press("f")
            app.push_screen(__import__("hallmark.tui.screens.handoffs", fromlist=["x"]).HandoffsScreen())
            await settle(pilot)
            await press("n")
            assert on_item(expected[0])
            app.open_trace(run_file, item=ids["review"])  # one meaning everywhere: ] [ step search hits
            await settle(pilot)
            assert "n ◆ 3 waiting" in _footer_text(app)
            await press("n")
            assert on_item(expected[0])
            await press("question_mark", "n")  # a modal keeps its own keys
            assert type(app.screen).__name__ == "HelpScreen"
            note = str(app.screen.query_one("#help-note").render())
            assert "n is the next item waiting for you" in note

    run(go())


def test_the_footer_counts_what_waits_and_follows_the_watcher(busy):
    repo, _ids = busy

    async def go():
        app = make_app(repo.root, start_mode="inbox", watch_journal=True)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            assert await until(pilot, lambda: "n ◆ 3 waiting" in _footer_text(app))
            extra = items.new(repo, title="Needs an answer")["item"]
            questions.ask(repo, "Which database?", item_id=extra)
            assert await until(pilot, lambda: "n ◆ 4 waiting" in _footer_text(app), timeout=6)
            await pilot.press("b")
            await settle(pilot)
            assert await until(pilot, lambda: "n ◆ 4 waiting" in _footer_text(app))

    run(go())


def test_the_footer_offers_L_for_the_drain_where_l_moves_right(busy):
    repo, _ = busy
    from hallmark.tui.widgets.footer import HallFooter

    def drain_key(app) -> str:
        keys = [e.display for e in app.screen.query_one(HallFooter).entries if e.action == "mode('drain')"]
        assert len(keys) == 1
        return keys[0]

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(200, 40)) as pilot:
            await settle(pilot)
            await pilot.pause(0.1)
            assert drain_key(app) == "L"  # floor: l moves right
            await pilot.press("b")
            await settle(pilot)
            await pilot.pause(0.1)
            assert drain_key(app) == "L"  # boards: l moves right
            await pilot.press("i")
            await settle(pilot)
            await pilot.pause(0.1)
            assert drain_key(app) == "l"
            await pilot.press("f", "L")
            await settle(pilot)
            assert app.current_mode == "drain"

    run(go())


def test_usage_labels_never_claim_a_model_ran_for_a_stand_in():
    from hallmark.core.run_results import UsageRow
    from hallmark.tui import labels

    def row(key: str, runs: int, standin_runs: int) -> UsageRow:
        zero = dict.fromkeys(("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "tokens"), 0)
        return UsageRow(key=key, runs=runs, standin_runs=standin_runs, cost_usd=0.0, **zero)

    only = row("hallmark-standin", 2, 2)
    assert labels.usage_key("model", only) == "hallmark-standin (stand-in, no model ran)"
    assert labels.usage_key("model", row("hallmark-standin", 1, 0)) == "hallmark-standin (stand-in, no model ran)"
    assert labels.usage_key("role", row("review", 3, 1)) == "review (1 of 3 stand-in)"
    assert labels.usage_key("day", row("2026-11-30", 2, 2)) == "2026-11-30 (stand-in)"
    assert labels.usage_key("model", row("claude-opus-4", 2, 0)) == "claude-opus-4"
    assert labels.model_label("claude-opus-4", False) == "claude-opus-4"
    assert labels.model_label("anything", True).endswith("(stand-in, no model ran)")
