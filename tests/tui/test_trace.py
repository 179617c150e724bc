"""The live trace: tail on and off, "+N new", whole lines only, truncation and replacement,
search, expansion, and how a run's end (or its death) is shown."""

from __future__ import annotations

import json
import os
from pathlib import Path

from filelock import FileLock
from hallmark.core.runner.trace_lines import newline_ends, search_file
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import STAMP, make_app, run, settle, stream_lines, until, write_run


def _append(path: Path, records: list[dict]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in records))


def _run_path(repo, item: str = "H-0001", role: str = "review") -> Path:
    return repo.paths.item_dir(item) / "runs" / f"{STAMP}-{role}.jsonl"


def _status(app) -> str:
    return str(app.screen.query_one("#trace-status").render())


async def _open(pilot, path: Path, item: str = "H-0001"):
    await settle(pilot)
    pilot.app.open_trace(path, item=item)
    await settle(pilot)
    view = pilot.app.screen.view
    assert await until(pilot, lambda: view.scanned)
    return view


def test_tail_follows_new_lines_then_any_scroll_pauses_and_counts_them(hall_repo):
    path = write_run(_run_path(hall_repo), finished=False, item="H-0001")
    start = len(path.read_text().splitlines())
    extra = stream_lines("H-0001", 2)[1:]

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            assert view.line_count == start and view.tail
            _append(path, extra[:3])
            assert await until(pilot, lambda: view.line_count == start + 3)
            assert view.tail and view.cursor == start + 2
            assert view.scroll_y == view.max_scroll_y
            await pilot.press("k")  # any scroll leaves tail mode
            assert not view.tail
            _append(path, extra[3:6])
            assert await until(pilot, lambda: view.pending == 3)
            assert await until(pilot, lambda: "+3 new" in _status(app))  # the next message, not the next poll
            assert view.cursor == start + 1  # the view stayed where it was
            await pilot.press("G")
            await pilot.pause()
            assert view.tail and view.pending == 0 and view.cursor == view.line_count - 1
            assert "following the end" in _status(app) and "new" not in _status(app)

    run(go())


def test_a_line_counts_only_when_its_newline_arrives(hall_repo):
    path = write_run(_run_path(hall_repo), finished=False, item="H-0001")
    start = len(path.read_text().splitlines())
    half = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "half"}]}})

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            with open(path, "a") as handle:
                handle.write(half[:20])
            await pilot.pause(0.4)
            assert view.line_count == start
            with open(path, "a") as handle:
                handle.write(half[20:])
            await pilot.pause(0.4)
            assert view.line_count == start
            with open(path, "a") as handle:
                handle.write("\n")
            assert await until(pilot, lambda: view.line_count == start + 1)
            assert "half" in view.summary_text(start).plain or "assistant" in view.summary_text(start).plain

    run(go())


def test_a_truncated_or_replaced_file_starts_the_index_again(hall_repo):
    path = write_run(_run_path(hall_repo), finished=False, item="H-0001")
    lines = stream_lines("H-0001", 1)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            assert view.line_count > 3
            with open(path, "w") as handle:  # truncated in place
                handle.write(json.dumps(lines[0]) + "\n" + json.dumps(lines[1]) + "\n")
            assert await until(pilot, lambda: view.line_count == 2)
            assert "init" in view.summary_text(0).plain
            other = path.with_name("replacement.tmp")
            other.write_text("".join(json.dumps(x) + "\n" for x in lines[:4]))
            os.replace(other, path)  # replaced: a new inode
            assert await until(pilot, lambda: view.line_count == 4)
            _append(path, lines[4:5])
            assert await until(pilot, lambda: view.line_count == 5)

    run(go())


def test_end_line_died_and_live_are_each_marked(hall_repo):
    done = write_run(_run_path(hall_repo, role="review"), finished=True, item="H-0001")
    died = write_run(_run_path(hall_repo, role="fix"), finished=False, item="H-0001")
    live = write_run(
        hall_repo.paths.item_dir("H-0001") / "runs" / "20261130T091000000Z-fix.jsonl", finished=False, item="H-0001"
    )

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(160, 30)) as pilot:
            await _open(pilot, done)
            assert "⏹ ended" in _status(app)
            assert "end" in app.screen.view.summary_text(app.screen.view.line_count - 1).plain
            app.pop_screen()
            await _open(pilot, died)
            assert await until(pilot, lambda: "ended without an end line" in _status(app))
            app.pop_screen()
            with FileLock(str(live.with_suffix(".lock"))):
                await _open(pilot, live)
                assert await until(pilot, lambda: "● live" in _status(app))

    run(go())


def test_search_then_brackets_step_through_hits_and_say_which(hall_repo):
    path = write_run(_run_path(hall_repo), finished=True, item="H-0001", n_tools=4)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            # the rows as drawn: each call and the result that names it (the raw result has no HEAD~)
            wanted = [i for i in range(view.line_count) if "head~" in view.summary_text(i).plain.lower()]
            assert len(wanted) == 8
            assert app.screen.check_action("hit", (True,)) is None
            await pilot.press("slash", *"head~", "enter")
            assert await until(pilot, lambda: view.hits == wanted)
            assert view.cursor == wanted[0] and not view.tail
            assert f"hit 1 of {len(wanted)}" in _status(app)
            await pilot.press("right_square_bracket")
            assert view.cursor == wanted[1] and f"hit 2 of {len(wanted)}" in _status(app)
            await pilot.press("left_square_bracket", "left_square_bracket")
            assert view.cursor == wanted[-1]  # wraps round
            assert f"hit {len(wanted)} of {len(wanted)}" in _status(app)

    run(go())


def test_enter_expands_a_line_and_collapses_it_again(hall_repo):
    path = write_run(_run_path(hall_repo), finished=True, item="H-0001")

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            await pilot.press("g")  # top: the init line
            rows = view.total_rows()
            await pilot.press("enter")
            assert view.total_rows() > rows and 0 in view.expanded
            assert view.locate(1).line == 0 and view.locate(1).sub == 1
            assert view.row_of(1) == 1 + len(view.expanded[0].rows)
            await pilot.press("j", "k", "enter")
            assert view.total_rows() == rows

    run(go())


def test_runs_screen_lists_runs_and_enter_opens_the_trace(busy):
    repo, ids = busy

    async def go():
        app = make_app(repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            await settle(pilot)
            assert len(app.screen.runs) == 1
            table = app.screen.query_one("#runs-table")
            assert [str(c) for c in table.get_row_at(0)][4] == "✓ ok"  # the busy building's run ended well
            await pilot.press("enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "TraceScreen" and app.screen.item == ids["review"]
            await pilot.press("escape")
            await settle(pilot)
            assert type(app.screen).__name__ == "RunsScreen"

    run(go())


# -- the index itself ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=10_000))
def test_newline_ends_are_exactly_the_offsets_after_each_newline(data, base):
    expected = [base + i + 1 for i, byte in enumerate(data) if byte == 10]
    assert list(newline_ends(data, base)) == expected


def test_search_file_reports_each_matching_line_once(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"a":"Foo foo"}\n{"b":"bar"}\n{"c":"FOO"}\npartial foo')
    size = len(b'{"a":"Foo foo"}\n{"b":"bar"}\n{"c":"FOO"}\n')
    assert search_file(path, "foo", 0, size) == [0, 2]  # the partial last line is not indexed yet
    assert search_file(path, "", 0, size) == []


def test_a_huge_stream_shows_its_end_first_then_the_whole_index(hall_repo, monkeypatch):
    from hallmark.tui.widgets import trace_view

    monkeypatch.setattr(trace_view, "TAIL_FIRST_BYTES", 4096)  # "huge" for the test: more than 4 KB
    path = _run_path(hall_repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    block = [json.dumps(x) for x in stream_lines("H-0001", 10)]
    with open(path, "w") as handle:
        for _ in range(40):
            handle.write("\n".join(block) + "\n")
        handle.write(
            json.dumps(
                {
                    "type": "hall_run_end",
                    "role": "review",
                    "item": "H-0001",
                    "exit_code": 0,
                    "duration_ms": 5,
                    "failure": None,
                    "cwd": "/tmp",
                }
            )
            + "\n"
        )
    total = 40 * len(block) + 1
    seen_partial = []
    original = trace_view.TraceView.on_new_lines

    def spy(self, message):
        seen_partial.append(message.partial)
        original(self, message)

    monkeypatch.setattr(trace_view.TraceView, "on_new_lines", spy)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test() as pilot:
            view = await _open(pilot, path)
            assert await until(pilot, lambda: view.line_count == total and not view.partial)
            assert view.tail and view.cursor == total - 1
            assert "end" in view.summary_text(total - 1).plain and "init" in view.summary_text(0).plain
            assert f"{total:,} lines" in _status(app) and "⏹ ended" in _status(app)

    run(go())
    assert seen_partial[0] is True and seen_partial[-1] is False
