"""The terminal-app review's findings (issue 15), one test each, in the real app on real repos.

Each would fail on the app as the review found it: keys answered late behind footer rebuilds, T
ending the app without `claude`, a cursor left behind by its item, two journal changes in one
tick keeping only the later, a floor that blinks its badges away, small terminals that lose their
content and their `?`, and a trace that read worse than `hall trace`.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from hallmark.core import inbox, items, waiting
from hallmark.tui import watch

from .conftest import STAMP, make_app, run, settle, stream_lines, until, write_run


def _footer(app):
    from hallmark.tui.widgets.footer import HallFooter

    return app.screen.query_one(HallFooter)


def screen_lines(app) -> list[str]:
    """What the terminal shows now, one string a row (the compositor's own frame)."""
    update = app.screen._compositor.render_full_update()
    return ["".join(segment.text for strip in row for segment in strip) for row in update.strips]


# -- S2: keys answered at once while the journal churns ----------------------------------------------


def test_keys_are_answered_while_the_journal_churns_and_the_footer_is_never_rebuilt(busy):
    """The review's stall: every binding change rebuilt the footer (widgets mounted each time) and
    keys waited behind it. Here a writer appends to a journal every 20 ms while keys are pressed:
    nothing is mounted in the footer, the message queue stays short, and each key is answered."""
    repo, ids = busy
    mounted: list[str] = []
    depths: list[int] = []
    took: list[float] = []

    def hook(message) -> None:
        from textual.events import Mount

        sender = getattr(message, "_sender", None)
        if (
            isinstance(message, Mount)
            and sender is not None
            and any(type(a).__name__ == "HallFooter" for a in getattr(sender, "ancestors", []))
        ):
            mounted.append(type(sender).__name__)

    async def go():
        app = make_app(repo.root, start_mode="board", watch_journal=True)
        async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
            await settle(pilot)
            stop = asyncio.Event()

            async def churn() -> None:
                n = 0
                while not stop.is_set():
                    items.record(repo, ids["review"], "note", actor="you", text=f"churn {n}")
                    n += 1
                    await asyncio.sleep(0.02)

            writer = asyncio.create_task(churn())
            mounted.clear()
            try:
                for key in ["j", "k", "l", "h", "v", "j", "j", "k", "b", "l", "f", "b"] * 2:
                    start = time.monotonic()
                    await pilot.press(key)
                    took.append(time.monotonic() - start)
                    depths.append(app._message_queue.qsize())
            finally:
                stop.set()
                await writer

    run(go())
    assert mounted == []  # the footer repaints in place; it is never recomposed
    assert max(depths) < 20, depths  # nothing piles up behind the keys
    assert max(took) < 5.0, took  # generous: a loaded 2-core CI machine; the review saw 10-20 s


def test_the_demo_daemon_runs_in_a_process_of_its_own(hall_repo, tmp_path, monkeypatch):
    """The review: the demo's daemon ran in a thread of the app and competed with it for every key."""
    import threading

    from hallmark.core.demo import driver, workspace

    demo = workspace.Demo(tmp_path / "demo", created_base=False)
    (tmp_path / "demo").mkdir()
    monkeypatch.setenv("HALLMARK_DATA_DIR", str(demo.data_dir))
    os.symlink(hall_repo.root, demo.root)
    background = driver.Background(demo, interval=0.2)
    background.start()
    try:
        assert background.proc is not None and background.proc.pid != os.getpid()
        assert not [t for t in threading.enumerate() if "daemon" in t.name]
        from hallmark.core.loop import daemon

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and daemon.read_state().get("pid") != background.proc.pid:
            time.sleep(0.05)
        assert daemon.read_state().get("pid") == background.proc.pid  # the daemon's own heartbeat, its own pid
    finally:
        background.stop(wait_s=20)
    assert background.proc.poll() is not None  # stopped, not left behind


# -- S1: T never ends the app ----------------------------------------------------------------------------


def test_T_without_claude_on_PATH_says_what_to_install_and_takes_nothing_over(busy, tmp_path, monkeypatch):
    repo, ids = busy
    item = ids["review"]
    lines = stream_lines(item, 1)
    lines[0]["model"] = "claude-sonnet-4-5"
    run_file = repo.paths.item_dir(item) / "runs" / f"{STAMP}-fix.jsonl"
    run_file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git",):  # everything the app needs, and no claude
        os.symlink(__import__("shutil").which(tool), bare / tool)
    monkeypatch.setenv("PATH", str(bare))
    monkeypatch.delenv("HALL_CLAUDE", raising=False)
    told = []

    async def go():
        app = make_app(repo.root)
        async with app.run_test(notifications=True) as pilot:
            await settle(pilot)
            app.open_trace(run_file, item=item)
            await settle(pilot)
            await pilot.press("T")
            await settle(pilot)
            assert type(app.screen).__name__ == "TraceScreen" and app.is_running
            assert app.screen.greyed("takeover")
            entry = next(e for e in _footer(app).entries if e.action == "takeover")
            assert not entry.enabled  # greyed in the footer
            told.extend(n.message for n in app._notifications)

    run(go())
    assert any("claude is not on PATH" in m and "npm install" in m for m in told), told
    assert items.fold_item(repo, item).state == "review"  # nothing was taken over
    assert "taken_over" not in [e["event"] for e in items.item_events(repo, item)]


def test_a_program_that_cannot_start_is_a_notification_not_a_crash(busy, tmp_path, monkeypatch):
    """Even when the program vanishes between the check and the start (or cannot execute)."""
    repo, ids = busy
    broken = tmp_path / "editor"
    broken.write_text("not a program\n")
    broken.chmod(0o755)  # found on PATH, but exec fails: no interpreter line
    monkeypatch.setenv("EDITOR", str(broken))
    told = []

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(notifications=True) as pilot:
            await settle(pilot)
            app.screen.select_item(ids["review"])
            await pilot.press("e")
            await settle(pilot)
            assert app.is_running
            told.extend(n.message for n in app._notifications)

    run(go())
    assert any("could not start" in m or "exited with" in m for m in told), told


def test_a_missing_editor_greys_e_and_pressing_it_says_so(busy, monkeypatch):
    repo, ids = busy
    monkeypatch.setenv("EDITOR", "/nowhere/no-such-editor")
    told = []

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(notifications=True) as pilot:
            await settle(pilot)
            app.screen.select_item(ids["review"])
            assert app.screen.greyed("open_editor")
            await pilot.press("e")
            await settle(pilot)
            told.extend(n.message for n in app._notifications)

    run(go())
    assert any("no-such-editor is not on PATH" in m for m in told), told


# -- S4: the selection follows its item ---------------------------------------------------------------------


def test_the_cursor_follows_an_item_that_changes_state_and_stays_in_view(busy):
    repo, ids = busy
    item = ids["review"]

    async def go():
        app = make_app(repo.root, start_mode="board", watch_journal=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert screen.select_item(item)
            items.transition(repo, item, "changes_requested", actor="assayer", open_findings=1)  # review -> fixing
            assert await until(
                pilot,
                lambda: screen.current_column() is not None and screen.current_column().state == "fixing",
                timeout=8,
            )
            await settle(pilot)
            assert screen.selected().id == item
            column = screen.current_column()
            assert column.region.x >= 0 and column.region.right <= 80  # on screen, not scrolled away
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == item

    run(go())


def test_the_triage_list_keeps_its_item_when_the_order_changes(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root, start_mode="list", watch_journal=True)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            table = app.screen.table
            assert app.screen.select_item(ids["fixing"])
            await pilot.press("2")  # sort by state
            assert table.cursor_item == ids["fixing"]
            items.transition(app.repo, ids["fixing"], "fix_submitted", actor="fixer", sha="1" * 40)  # -> checks
            assert await until(pilot, lambda: app.screen.selected().state == "checks", timeout=8)
            assert table.cursor_item == ids["fixing"]
            row = table.rows[table.cursor]
            assert row.item == ids["fixing"] and "checks" in row.cells[1].plain
            assert table.scroll_y <= table.cursor < table.scroll_y + table.size.height

    run(go())


# -- S5 and the merged changes -----------------------------------------------------------------------------


def test_two_journal_changes_in_one_tick_both_arrive():
    changes = watch.Changes()
    assert changes.add(["/s/items/H-0001/events.jsonl"]) is True  # the first posts a ping
    assert changes.add(["/s/items/H-0002/events.jsonl", "/s/events.jsonl"]) is False  # the rest wait in the set
    assert changes.take() == {"H-0001", "H-0002", watch.REPO}
    assert changes.take() == frozenset()
    assert changes.add(["/s/items/H-0003/events.jsonl"]) is True


def test_an_open_item_detail_reloads_when_two_changes_land_together(busy):
    repo, ids = busy
    first, second = ids["review"], ids["fixing"]

    async def go():
        app = make_app(repo.root)
        async with app.run_test() as pilot:
            await settle(pilot)
            app.open_item(first)
            await settle(pilot)
            detail = app.screen
            before = len(detail.data.events)
            items.record(repo, first, "note", actor="you", text="look again")
            items.record(repo, second, "note", actor="you", text="and this")
            state = repo.paths.state_dir
            app.changes.add([str(state / "items" / first / "events.jsonl")])
            app.post_message(__import__("hallmark.tui.messages", fromlist=["x"]).JournalChanged())
            app.changes.add([str(state / "items" / second / "events.jsonl")])
            app.post_message(__import__("hallmark.tui.messages", fromlist=["x"]).JournalChanged())
            assert await until(pilot, lambda: len(detail.data.events) == before + 1, timeout=5)

    run(go())


def test_the_floor_never_paints_a_room_without_its_badges_after_the_first(busy):
    """The review: every journal change repainted the floor in two phases, badges and the inbox line
    gone for a second or more. Sample the office's text while the journal changes."""
    repo, ids = busy
    from hallmark.tui.screens.floor import RoomBox

    seen: list[str] = []

    async def go():
        app = make_app(repo.root, watch_journal=True)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await pilot.pause(1.0)  # the first paint is allowed its "…"
            office = next(b for b in app.screen.query(RoomBox) if b.room.key == "office")
            for n in range(3):
                items.record(repo, ids["checks"], "note", actor="you", text=f"change {n}")
                for _ in range(25):
                    await pilot.pause(0.03)
                    seen.append(str(office.render()))

    run(go())
    assert seen
    for text in seen:
        assert f"{ids['awaiting_you']} ◆ waiting" in text, text


# -- S7: small terminals ------------------------------------------------------------------------------------


def test_at_60x15_every_room_still_lists_its_items(busy):
    repo, _ids = busy
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(60, 15)) as pilot:
            await settle(pilot)
            screen = app.screen
            shown: set[str] = set()
            for _ in range(len(list(screen.query(RoomBox)))):  # walk the rooms; each comes into view
                await settle(pilot)
                room = screen.focused_room()
                text = "\n".join(screen_lines(app))
                assert room.room.name in text, (room.room.key, text)
                shown.update(v.id for v in room.items if v.id in text)
                await pilot.press("j")
            every = {v.id for b in screen.query(RoomBox) for v in b.items}
            assert every and every <= shown, every - shown

    run(go())


def test_question_mark_stays_in_the_footer_and_no_key_is_cut_mid_word(busy):
    repo, _ids = busy
    from hallmark.tui.app import HallmarkApp

    words = {b.description for b in HallmarkApp.BINDINGS if b.show}

    async def go():
        for size in ((80, 24), (60, 15)):
            app = make_app(repo.root)
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                for key in ("f", "b", "v", "i", "t", "dollar_sign", "L"):
                    await pilot.press(key)
                    await settle(pilot)
                    footer = screen_lines(app)[-1]
                    assert footer.rstrip().endswith("? Keys"), (size, key, footer)
                    for word in footer.replace("▏", " ").split():  # no word cut short at the edge
                        if len(word) > 2 and word.isalpha():
                            assert not any(w != word and w.startswith(word) for w in words), (size, key, footer)

    run(go())


def test_room_counts_keep_their_words_when_narrow(busy):
    repo, _ids = busy
    from hallmark.tui.screens.floor import RoomBox

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            boxes = {b.room.key: str(b.render()) for b in app.screen.query(RoomBox)}
            assert "! 1 escalated" in boxes["office"] and "? 1 awaiting you" in boxes["office"]
            assert "■ 0 closed" in boxes["records"] and "✗ 1 dropped" in boxes["records"]

    run(go())


# -- S8: one meaning per key, confirmations and undo ------------------------------------------------------


def test_dismissing_a_blocking_question_asks_first_and_u_brings_it_back(busy):
    repo, _ids = busy
    before = waiting.waiting_for_you(repo).count

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen = app.screen
            row = [e["kind"] for e in screen.entries].index("question")
            screen.query_one("#entries").move_cursor(row=row)
            await pilot.press("x")
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"
            assert "stays open" in " ".join(str(s.render()) for s in app.screen.query("Static"))
            await pilot.press("y")
            await settle(pilot)
            assert await until(pilot, lambda: app.waiting_count == before - 1)
            assert len(screen.entries) == before - 1  # the inbox and the footer say the same
            await pilot.press("u")
            await settle(pilot)
            assert await until(pilot, lambda: app.waiting_count == before)

    run(go())
    assert waiting.waiting_for_you(repo).count == before
    assert any(e["kind"] == "question" for e in inbox.visible(repo))


def test_t_is_runs_and_b_is_the_board_from_everywhere(busy):
    repo, ids = busy
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))

    async def go():
        app = make_app(repo.root, start_mode="board")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            for screen_setup in ("board", "item", "list"):
                if screen_setup == "item":
                    app.open_item(ids["review"])
                elif screen_setup == "list":
                    await pilot.press("v")
                await settle(pilot)
                if screen_setup != "item":
                    app.screen.select_item(ids["review"])
                await pilot.press("t")
                await settle(pilot)
                assert app.current_mode == "runs" and type(app.screen).__name__ == "RunsScreen", screen_setup
                assert app.screen.item_filter == ids["review"]
                await pilot.press("b")
                await settle(pilot)
            app.open_trace(run_file, item=ids["review"])
            await settle(pilot)
            await pilot.press("b")  # from a trace opened on the board: the board, not the old trace
            await settle(pilot)
            assert type(app.screen).__name__ == "BoardScreen"
            await pilot.press("t", "escape")  # escape in Runs shows every run again
            await settle(pilot)
            assert app.screen.item_filter is None

    run(go())


def test_the_palette_goes_to_an_item_and_runs_its_actions_and_lists_keys_once(busy):
    repo, ids = busy
    from textual.command import CommandPalette

    async def go():
        app = make_app(repo.root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert titles.count("Keys") == 1
            await pilot.press("ctrl+p")
            await pilot.pause()
            assert isinstance(app.screen, CommandPalette)
            await pilot.press(*f"drop {ids['review']}")
            await pilot.pause(0.5)
            options = app.screen.query_one("CommandList")
            texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert any(f"Drop {ids['review']}" in t for t in texts), texts
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*f"go to {ids['fixing']}")
            await pilot.pause(0.5)
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "ItemScreen" and app.screen.item_id == ids["fixing"]

    run(go())


# -- the trace reads like `hall trace` ---------------------------------------------------------------------


def _trace_text(view, line: int) -> str:
    return view.summary_text(line).plain


def test_the_trace_names_tools_reads_arrays_and_a_finished_claude_file(hall_repo, tmp_path):
    from hallmark.core.runner import trace

    path = write_run(
        hall_repo.paths.item_dir("H-0001") / "runs" / f"{STAMP}-review.jsonl", finished=False, item="H-0001"
    )
    lines = stream_lines("H-0001", 3)
    with open(path, "a", encoding="utf-8") as handle:  # an array of messages on one line, then the result
        handle.write(json.dumps([lines[1], lines[2]]) + "\n")
        handle.write(json.dumps(lines[-1]) + "\n")
    cli = [trace.step_text(s) for s in trace.read_steps(path)]

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(200, 40)) as pilot:
            await settle(pilot)
            app.open_trace(path, item="H-0001")
            await settle(pilot)
            view = app.screen.view
            assert await until(pilot, lambda: view.scanned and view.live_known)
            shown = [_trace_text(view, n) for n in range(view.line_count)]
            result = next(t for t in shown if "app.py | 2 +-" in t)
            assert "Bash: git diff --stat HEAD~1 → " in result and "toolu_" not in result
            array = shown[-2]
            assert "✎ text Reading part 0" in array and "→ call Bash: git diff" in array and "not JSON" not in array
            for step_text in cli:  # the same words as `hall trace`
                assert any(step_text in t for t in shown), step_text
            status = str(app.screen.query_one("#trace-status").render())
            assert "finished (its result line)" in status and "died" not in status

    run(go())


def test_follow_mode_status_tells_the_truth_at_once(hall_repo):
    from filelock import FileLock

    path = write_run(
        hall_repo.paths.item_dir("H-0001") / "runs" / f"{STAMP}-review.jsonl", finished=False, item="H-0001"
    )
    extra = stream_lines("H-0001", 3)[1:4]

    def status(app) -> str:
        return str(app.screen.query_one("#trace-status").render())

    async def go():
        with FileLock(str(path.with_suffix(".lock"))):
            app = make_app(hall_repo.root, start_mode="runs")
            async with app.run_test(size=(160, 12)) as pilot:
                await settle(pilot)
                app.open_trace(path, item="H-0001")
                await settle(pilot)
                view = app.screen.view
                assert await until(pilot, lambda: "● live" in status(app))
                assert "$" in status(app) and "following the end" in status(app)
                await pilot.press("k")
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write("".join(json.dumps(x) + "\n" for x in extra))
                assert await until(pilot, lambda: "+3 new" in status(app))
                await pilot.press("G")
                await pilot.pause()  # one frame: no stale "paused" after G
                assert "following the end" in status(app) and "new" not in status(app)
                assert f"{view.line_count:,} lines" in status(app)

    run(go())


def test_a_live_runs_status_shows_its_elapsed_time_and_cost(hall_repo, monkeypatch):
    from filelock import FileLock

    path = hall_repo.paths.item_dir("H-0001") / "runs" / "20261130T090000000Z-review.jsonl"
    lines = stream_lines("H-0001", 2)[:-1]
    for line in lines:
        if isinstance(line.get("message"), dict):
            line["message"]["model"] = "claude-sonnet-4-5"
            line["message"]["usage"] = {"input_tokens": 1000, "output_tokens": 500}
    lines[0]["model"] = "claude-sonnet-4-5"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T09:01:05.000Z")

    async def go():
        with FileLock(str(path.with_suffix(".lock"))):
            app = make_app(hall_repo.root, start_mode="runs")
            async with app.run_test(size=(200, 12)) as pilot:
                await settle(pilot)
                app.open_trace(path, item="H-0001")
                await settle(pilot)
                status = lambda: str(app.screen.query_one("#trace-status").render())  # noqa: E731
                assert await until(pilot, lambda: "● live" in status())
                assert "1m 05s" in status()
                # two messages (msg_0, msg_1), counted once each however many blocks repeat their usage:
                # 2 x (1000 in x $3 + 500 out x $15) per million = $0.0210
                assert "$0.0210 so far (list price)" in status()

    run(go())


def test_step_times_come_from_the_runners_times_file(tmp_path):
    from hallmark.core.runner import trace

    path = tmp_path / f"{STAMP}-review.jsonl"
    lines = stream_lines("H-0001", 1)
    raw = [json.dumps(x) + "\n" for x in lines]
    path.write_text("".join(raw))
    ends, at = [], 0
    for line in raw:
        at += len(line.encode())
        ends.append(at)
    trace.times_path(path).write_text("".join(f"{end} {1_000_000 + 300 * n}\n" for n, end in enumerate(ends)))
    steps = trace.read_steps(path)
    result = next(s for s in steps if s.kind == "tool_result")
    assert result.elapsed_ms == 300 and trace.step_text(result).endswith("(0.3 s, ~4 tok)")
    assert steps[0].elapsed_ms is None  # the first line has nothing before it


def test_the_runner_writes_each_lines_arrival_time(hall_repo, monkeypatch):
    from hallmark.core.runner import spawn, trace

    monkeypatch.setenv("HALL_CLAUDE", "hall-standin-claude")
    monkeypatch.setenv("HALL_STANDIN_PACE", "0")
    result = spawn.run(
        hall_repo, spawn.RunSpec(role="review", prompt="review it", cwd=Path(hall_repo.root), item_id=None)
    )
    times = trace.read_times(result.path)
    stream = result.path.read_bytes()
    assert times and all(0 < end <= len(stream) and stream[end - 1 : end] == b"\n" for end in times)
    assert len(times) == stream.count(b"\n") - 1  # every line but the runner's own end line


def test_the_demo_daemon_stops_when_its_app_is_gone(hall_repo, tmp_path, monkeypatch):
    """Killed without a word (a closed terminal): the daemon it started must not work on alone."""
    import signal
    import subprocess
    import sys

    from hallmark.core.loop import daemon

    data = tmp_path / "data"
    monkeypatch.setenv("HALLMARK_DATA_DIR", str(data))
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from hallmark.core.demo import driver, workspace\n"
        f"demo = workspace.Demo(Path({str(tmp_path / 'demo')!r}), created_base=False)\n"
        "background = driver.Background(demo, interval=0.2)\n"
        "background.start()\n"
        "print(background.proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    (tmp_path / "demo").mkdir()
    os.symlink(hall_repo.root, tmp_path / "demo" / "tinyshop")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and daemon.read_state().get("pid") != child:
        time.sleep(0.05)
    assert daemon.read_state().get("pid") == child
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if daemon.read_state().get("pid") is None:
            break
        time.sleep(0.1)
    assert daemon.read_state().get("pid") is None  # its loop ended: the flag was raised, the pass finished
    for _ in range(100):  # and the process with it
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the demo's daemon {child} outlived its app")
