"""One truth on every face, on the demo: how many things wait for you, which items do, and which are
stuck are each one core function (core.waiting, core.watchman); the app's footer, floor, inbox,
boards and item detail, the SessionStart hook and the CLI must all say the same, before and after
a dismissal, and the daemon's watchman must flag exactly what the floor flags."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from hallmark.core import clock, waiting
from hallmark.core.demo import driver, workspace

BIN = Path(sys.executable).parent


@pytest.fixture
def demo(tmp_path: Path):
    built = workspace.create(tmp_path / "demo")
    with workspace.demo_env(built):
        driver.build(built)
        yield built


def _cli(*args: str, cwd: Path) -> dict:
    out = subprocess.run([str(BIN / "hall"), *args, "--json"], cwd=cwd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _hook_count(root: Path) -> int:
    payload = json.dumps(
        {"cwd": str(root), "session_id": "s-1", "source": "startup", "hook_event_name": "SessionStart"}
    )
    out = subprocess.run(
        [str(BIN / "hall-hook"), "session-start"], input=payload, capture_output=True, text=True, check=True
    )
    text = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    found = re.search(r"The inbox has (\d+) entr", text)
    return int(found.group(1)) if found else 0


async def _faces(app, pilot) -> dict[str, object]:
    """What each of the app's faces says waits for you."""
    from hallmark.tui.screens.floor import RoomBox
    from hallmark.tui.widgets.footer import HallFooter

    from ..tui.conftest import settle

    seen: dict[str, object] = {}
    await pilot.press("f")
    await settle(pilot)
    footer = app.screen.query_one(HallFooter).text()
    seen["footer"] = int(re.search(r"◆ (\d+) waiting", footer).group(1))
    office = next(b for b in app.screen.query(RoomBox) if b.room.key == "office")
    seen["office"] = int(re.search(r"◆ (\d+) waiting for you", str(office.render())).group(1))
    seen["office_items"] = {v.id for v in office.items if v.id in app.building.waiting}
    await pilot.press("i")
    await settle(pilot)
    seen["inbox"] = len(app.screen.entries)
    await pilot.press("b")
    await settle(pilot)
    board = app.screen
    seen["board"] = {v for v in board.views if "◆ waiting for you" in _card(board, v)}
    await pilot.press("v")
    await settle(pilot)
    seen["list"] = {row.item for row in app.screen.table.rows if row.strong}
    if app.building.waiting.items:
        app.open_item(app.building.waiting.items[0])
        await settle(pilot)
        seen["detail"] = "◆ waiting for you" in str(app.screen.query_one("#item-head").render())
        await pilot.press("escape")
        await settle(pilot)
    return seen


def _card(board, item_id: str) -> str:
    for column in board.query(".column-list"):
        try:
            return str(column.get_option(item_id).prompt)
        except Exception:  # noqa: BLE001 - not in this column
            continue
    return ""


def test_every_face_counts_what_waits_the_same_before_and_after_a_dismissal(demo):
    from hallmark.tui.cli.app import make_app

    from ..tui.conftest import settle

    repo = demo.repo()
    results: list[dict[str, object]] = []

    async def go() -> None:
        app = make_app(demo, keep=True, welcome=False, theme="hallmark-dark", watch_journal=True, persist_theme=False)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            for step in ("before", "after"):
                truth = waiting.waiting_for_you(repo)
                faces = await _faces(app, pilot)
                faces.update(
                    step=step,
                    truth=truth.count,
                    truth_items=set(truth.items),
                    hook=_hook_count(demo.root),
                    cli_inbox=_cli("inbox", cwd=demo.root)["count"],
                    cli_waiting=_cli("waiting", cwd=demo.root)["waiting_count"],
                )
                results.append(faces)
                if step == "before":  # dismiss the question the demo asked, from the app, as a person would
                    await pilot.press("i")
                    await settle(pilot)
                    screen = app.screen
                    row = [e["kind"] for e in screen.entries].index("question")
                    screen.query_one("#entries").move_cursor(row=row)
                    await pilot.press("x", "y")
                    await settle(pilot)
                    await pilot.pause(0.6)  # the watcher sees the dismissal
                    await settle(pilot)

    asyncio.run(go())
    before, after = results
    assert before["truth"] >= 2 and after["truth"] == before["truth"] - 1
    for faces in results:
        count = faces["truth"]
        assert {
            k: faces[k] for k in ("footer", "office", "inbox", "hook", "cli_inbox", "cli_waiting")
        } == dict.fromkeys(("footer", "office", "inbox", "hook", "cli_inbox", "cli_waiting"), count), faces
        assert faces["board"] == faces["list"] == faces["office_items"] == faces["truth_items"], faces
        assert faces.get("detail", True) is True


def test_the_daemons_watchman_and_the_floor_flag_the_same_items(demo, monkeypatch):
    from hallmark.core import building
    from hallmark.core.loop import daemon

    repo = demo.repo()
    later = clock.stamp(clock.now() + timedelta(hours=3))  # everything has been quiet for three hours
    monkeypatch.setenv("HALLMARK_FIXED_NOW", later)
    floor = {s.item for s in building.load(repo).stuck}
    flagged = set(daemon.watchman(repo))
    assert flagged == floor
    assert floor, "nothing quiet enough to flag: the test would prove nothing"
    states = {i: v.state for i, v in ((i, repo.index.item(i)) for i in floor)}
    assert all(s in ("checks", "review", "fixing", "hallmarked") for s in states.values()), states
    # flagged once a quiet spell, and still shown as stuck on the floor after the notice
    assert daemon.watchman(repo) == []
    assert {s.item for s in building.load(repo).stuck} == floor
