"""`hall trace --list`, an item's Runs tab and the Runs view (t) list the same runs with the same
outcome: all three read core/runs.py. Before, the CLI listed every `*.jsonl`, the Runs tab only the
runner's names, and a run with a result line but no end line was "died" in one and "finished" in
the other."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import make_app, run, settle, stream_lines, until, write_run

fcntl = pytest.importorskip("fcntl", reason="a live run is an exclusive flock (POSIX)")


def _runs(repo, item: str) -> tuple[Path, int]:
    """Six runs in every outcome, and two files in the folder that are not runs."""
    folder = repo.paths.item_dir(item) / "runs"
    write_run(folder / "20261130T090000000Z-review.jsonl", finished=True, item=item)
    failed = folder / "20261130T090100000Z-fix.jsonl"
    lines = [
        *stream_lines(item, 1)[:-1],
        {
            "type": "hall_run_end",
            "role": "fix",
            "item": item,
            "exit_code": 124,
            "duration_ms": 1800000,
            "failure": "the run timed out after 1800 s",
            "cwd": None,
        },
    ]
    failed.write_text("".join(json.dumps(x) + "\n" for x in lines))
    write_run(folder / "20261130T090200000Z-review.jsonl", finished=False, item=item)  # died mid-run
    finished = folder / "20261130T090300000Z-dev.jsonl"  # Claude's own result line, no runner end line
    finished.write_text("".join(json.dumps(x) + "\n" for x in stream_lines(item, 1)))
    died = folder / "20261130T090400000Z-librarian.jsonl"
    died.write_text(json.dumps(stream_lines(item, 0)[0]) + "\n")
    died.with_suffix(".lock").touch()  # a lock file nobody holds proves nothing
    live = write_run(folder / "20261130T090500000Z-review.jsonl", finished=False, item=item)
    fd = os.open(live.with_suffix(".lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the runner holds it while its run lives
    (folder / "notes.jsonl").write_text('{"type": "note"}\n')  # not a run: the runner never names one so
    (folder / "20261130T090600000Z-fix-engine.log").write_text("engine output\n")
    return live, fd


EXPECTED = [
    ("20261130T090000000Z-review.jsonl", "ok"),
    ("20261130T090100000Z-fix.jsonl", "failed"),
    ("20261130T090200000Z-review.jsonl", "died"),
    ("20261130T090300000Z-dev.jsonl", "finished"),
    ("20261130T090400000Z-librarian.jsonl", "died"),
    ("20261130T090500000Z-review.jsonl", "live"),
]
MARK_WORDS = {"● live": "live", "✓ ok": "ok", "✗ failed": "failed", "✗ died": "died", "■ finished": "finished"}


def test_trace_list_the_runs_tab_and_the_runs_view_agree(hall_repo, hall):
    from hallmark.core import items

    item = items.new(hall_repo, title="runs agree")["item"]
    _, fd = _runs(hall_repo, item)
    try:
        listing = hall("trace", item, "--list", "--json", cwd=hall_repo.root)
        assert listing.code == 0, listing.stderr
        cli = [(row["name"], row["outcome"].partition(":")[0]) for row in listing.json["runs"]]
        assert cli == EXPECTED
        assert [row["run"] for row in listing.json["runs"]] == [1, 2, 3, 4, 5, 6]
        assert listing.json["runs"][1]["failure"] == "the run timed out after 1800 s"
        # `--run 4` is the fourth run listed, whatever else sits in the folder
        fourth = hall("trace", item, "--run", "4", "--text", cwd=hall_repo.root)
        assert fourth.code == 0, fourth.stderr
        assert fourth.stdout.splitlines()[0] == f"{item} · 20261130T090300000Z-dev.jsonl"

        async def go():
            app = make_app(hall_repo.root)
            async with app.run_test(size=(160, 50)) as pilot:
                await settle(pilot)
                app.open_item(item)
                await settle(pilot)
                screen = app.screen
                assert await until(pilot, lambda: screen.data is not None)
                tab = [(row["name"], row["outcome"].partition(":")[0]) for row in screen.data.runs]
                table = screen.query_one("#runs")
                shown = [str(table.get_row_at(n)[-1]) for n in range(table.row_count)]
                await app.show_runs(item)
                await settle(pilot)
                runs_view = app.screen
                assert await until(pilot, lambda: runs_view.loaded)
                view = [(r.file, r.outcome) for r in runs_view.runs]
                marks = [str(runs_view.query_one("#runs-table").get_row_at(n)[4]) for n in range(len(view))]
                return tab, shown, view, marks

        tab, shown, view, marks = run(go())
        assert list(reversed(tab)) == EXPECTED  # the tab lists newest first
        assert list(reversed(view)) == EXPECTED
        assert [MARK_WORDS.get(m, m) for m in reversed(marks)] == [word for _, word in EXPECTED]
        assert shown[0] == "● live" and shown[-1] == "✓ ok"
    finally:
        os.close(fd)
