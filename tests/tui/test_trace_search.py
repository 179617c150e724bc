"""Trace search over the rows as drawn, kept live while the run streams; e / c jump to the next
error and the next tool call; error rows in the error colour.

Every tool result line holds `"is_error": false`, so a search of the raw JSON for "ERROR" hit
them all, and its hits froze at the moment you searched while the run kept streaming.
"""

from __future__ import annotations

import json
from pathlib import Path

from hallmark.tui.widgets.trace_search import row_text

from .conftest import STAMP, make_app, run, stream_lines, until, write_run


def _append(path: Path, records: list[dict]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in records))


def _failed_call(n: int) -> list[dict]:
    """A Bash call whose result is an error (is_error true), as stream-json writes it."""
    session = "1d1e46f9-35c7-4834-b529-846d5bb82288"
    use = f"toolu_err{n}"
    return [
        {
            "type": "assistant",
            "message": {
                "id": f"msg_err{n}",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": use, "name": "Bash", "input": {"command": "git show deadbeef"}}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
            "session_id": session,
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": use,
                        "type": "tool_result",
                        "content": "fatal: bad object deadbeef",
                        "is_error": True,
                    }
                ],
            },
            "session_id": session,
        },
    ]


def _status(app) -> str:
    return str(app.screen.query_one("#trace-status").render())


async def _open(pilot, path: Path):
    pilot.app.open_trace(path, item="H-0001")
    assert await until(pilot, lambda: bool(pilot.app.screen.query("TraceView")) and pilot.app.screen.view.scanned)
    return pilot.app.screen.view


def _live_run(repo) -> Path:
    path = write_run(repo.paths.item_dir("H-0001") / "runs" / f"{STAMP}-review.jsonl", finished=False, n_tools=4)
    _append(path, _failed_call(1))
    return path


def test_search_matches_the_drawn_rows_not_the_raw_json(hall_repo):
    path = _live_run(hall_repo)
    raw_hits = [n for n, line in enumerate(path.read_text().splitlines()) if "error" in line.lower()]
    assert len(raw_hits) >= 5  # every tool result says "is_error": the old search hit them all

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            view = await _open(pilot, path)
            await pilot.press("slash", *"ERROR", "enter")
            assert await until(pilot, lambda: not view.searching and bool(view.hits))
            drawn = [n for n in range(view.line_count) if "error" in view.summary_text(n).plain.lower()]
            assert view.hits == drawn == [view.line_count - 1]  # the one failed result: "← ERROR Bash: …"
            assert "hit 1 of 1" in _status(app)
            assert view.cursor == view.hits[0]

    run(go())


def test_the_hit_count_grows_while_the_run_streams(hall_repo):
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            view = await _open(pilot, path)
            await pilot.press("slash", *"head~", "enter")
            assert await until(pilot, lambda: len(view.hits) == 8 and not view.searching)
            assert "hit 1 of 8" in _status(app)
            _append(path, stream_lines("H-0001", 6)[-6:-3])  # one more call and its result, drawn with HEAD~6
            assert await until(pilot, lambda: len(view.hits) == 10)
            assert await until(pilot, lambda: "of 10" in _status(app) or "10 hits" in _status(app))
            for n in view.hits:
                assert "head~" in view.summary_text(n).plain.lower()

    run(go())


def test_e_and_c_jump_to_the_next_error_and_the_next_tool_call(hall_repo):
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            view = await _open(pilot, path)
            calls = [n for n in range(view.line_count) if view.summary_text(n).plain.startswith("→ call")]
            error = view.line_count - 1
            await pilot.press("g")
            await pilot.press("c")
            assert await until(pilot, lambda: view.cursor == calls[0])
            await pilot.press("c")
            assert view.cursor == calls[1]
            await pilot.press("C")
            assert view.cursor == calls[0]
            await pilot.press("e")
            assert await until(pilot, lambda: view.cursor == error)
            assert not view.tail
            await pilot.press("g", "E")  # nothing before the top: wraps to the last error
            assert view.cursor == error
            _append(path, _failed_call(2))  # a new error as the run streams: e finds it too
            assert await until(pilot, lambda: len(view.marks["errors"]) == 2)
            await pilot.press("e")
            assert view.cursor == view.marks["errors"][1] == view.line_count - 1

    run(go())


def test_error_rows_are_drawn_in_the_error_colour(hall_repo):
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            view = await _open(pilot, path)
            error_style = view.get_component_rich_style("trace--error")
            mark_style = view.get_component_rich_style("trace--mark")
            assert error_style.color != mark_style.color
            text = view.summary_text(view.line_count - 1)
            assert text.plain.startswith("← ERROR")
            assert any(span.style == error_style for span in text.spans)
            ok = view.summary_text(view.line_count - 3)
            assert ok.plain.startswith("← result") and not any(span.style == error_style for span in ok.spans)

    run(go())


def test_row_text_is_what_the_view_draws(hall_repo):
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            view = await _open(pilot, path)
            for n in range(view.line_count):
                assert view.summary_text(n).plain == row_text(view.steps(n))

    run(go())


def test_the_status_line_follows_the_cursor(hall_repo):
    """It read "at line 4" with the cursor on 2: it only changed when the tail state did."""
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(140, 30)) as pilot:
            await _open(pilot, path)
            await pilot.press("g", "j", "j", "j")
            assert await until(pilot, lambda: "at line 4" in _status(app))
            await pilot.press("k", "k")
            assert await until(pilot, lambda: "at line 2" in _status(app))

    run(go())


def test_the_status_line_keeps_a_running_token_total(hall_repo):
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(160, 30)) as pilot:
            view = await _open(pilot, path)
            assert await until(pilot, lambda: view.meter.tokens > 0)
            before = view.meter.tokens
            assert await until(pilot, lambda: f"{before} tok" in _status(app))
            _append(path, _failed_call(2))  # one more message: 15 more tokens
            assert await until(pilot, lambda: view.meter.tokens == before + 15)
            assert await until(pilot, lambda: f"{before + 15} tok" in _status(app))

    run(go())


def test_y_copies_the_resume_command_even_where_take_over_is_unavailable(hall_repo, monkeypatch):
    from hallmark.core import items

    items.new(hall_repo, title="an item for the run")
    monkeypatch.setenv("PATH", "/nonexistent")  # no claude: T is greyed
    path = _live_run(hall_repo)

    async def go():
        app = make_app(hall_repo.root, start_mode="runs")
        async with app.run_test(size=(160, 30)) as pilot:
            await _open(pilot, path)
            assert app.screen.takeover_blocked()
            await pilot.press("y")
            assert await until(pilot, lambda: bool(app.clipboard))
            assert app.clipboard.startswith("cd /work/repo-H-0003 && ")  # the run's own cwd
            assert app.clipboard.endswith("claude --resume 1d1e46f9-35c7-4834-b529-846d5bb82288")
            assert "HALL_ITEM=H-0001" in app.clipboard

    run(go())
