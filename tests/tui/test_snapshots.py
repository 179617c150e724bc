"""Every screen and its main states at 80x24, 160x48 and 60x15. Deterministic: the theme is pinned,
the core's clock is fixed (HALLMARK_FIXED_NOW), animations and cursor blink are off, the
journal watcher is off, and workers have settled before the capture."""

from __future__ import annotations

import subprocess

import pytest
from hallmark.core.memory import api as library

from .conftest import build_busy, make_app, settle, until

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48"), pytest.param((60, 15), id="60x15")]


def snap(snap_compare, app, size, *keys: str, before=None) -> bool:
    async def run_before(pilot) -> None:
        await settle(pilot)
        if before is not None:
            await before(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        # DataTable measures its columns on its own idle: give it a beat, then settle again
        await pilot.pause(0.2)
        await settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.fixture
def stable_repo(git_repo, at):
    """hall init with a fixed memory identity, so every commit (and SHA on screen) is the same."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo

    (git_repo / ".agentmemory-project").write_text("github.com/example/demo\n")
    setup_repo.init(git_repo)
    (git_repo / ".hallmark" / "allowed_signers").unlink()  # this run's key: another every run
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "hall init"], cwd=git_repo, check=True)
    return open_repo(git_repo)


@pytest.fixture
def busy_snap(stable_repo, at):
    ids = build_busy(stable_repo)
    at("2026-11-30T11:00:00.000Z")
    return stable_repo, ids


@pytest.mark.parametrize("size", SIZES)
def test_floor_busy(snap_compare, busy_snap, size):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root), size)


@pytest.mark.parametrize("size", SIZES)
def test_floor_empty(snap_compare, hall_repo, at, size):
    assert snap(snap_compare, make_app(hall_repo.root), size)


@pytest.mark.parametrize("size", SIZES)
def test_board(snap_compare, busy_snap, size):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root, start_mode="board"), size)


@pytest.mark.parametrize("size", SIZES)
def test_triage_list(snap_compare, busy_snap, size):
    repo, _ = busy_snap

    async def detail_loaded(pilot):  # the pane's journal lines come a moment after the cursor rests
        await until(pilot, lambda: pilot.app.screen.loaded_detail is not None)
        await settle(pilot)

    assert snap(snap_compare, make_app(repo.root, start_mode="list"), size, before=detail_loaded)


@pytest.mark.parametrize("size", SIZES)
def test_runs(snap_compare, busy_snap, size):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root, start_mode="runs"), size)


@pytest.mark.parametrize("size", SIZES)
def test_board_drop_modal(snap_compare, busy_snap, size):
    repo, ids = busy_snap

    async def select(pilot):
        pilot.app.screen.select_item(ids["review"])
        await pilot.pause()

    assert snap(snap_compare, make_app(repo.root, start_mode="board"), size, "d", before=select)


@pytest.mark.parametrize("size", SIZES)
def test_item_detail(snap_compare, busy_snap, size):
    repo, ids = busy_snap

    async def open_item(pilot):
        pilot.app.open_item(ids["review"])
        await settle(pilot)

    assert snap(snap_compare, make_app(repo.root), size, before=open_item)


@pytest.mark.parametrize("size", SIZES)
def test_trace(snap_compare, busy_snap, size):
    repo, ids = busy_snap
    run_file = next((repo.paths.item_dir(ids["review"]) / "runs").glob("*.jsonl"))

    async def open_trace(pilot):
        pilot.app.open_trace(run_file, item=ids["review"])
        await settle(pilot)
        await until(
            pilot,
            lambda: (
                pilot.app.screen.view.scanned and "ended" in str(pilot.app.screen.query_one("#trace-status").render())
            ),
        )

    assert snap(snap_compare, make_app(repo.root), size, before=open_trace)


@pytest.mark.parametrize("size", SIZES)
def test_drain_card(snap_compare, stable_repo, size):
    hall_repo = stable_repo
    library.propose(
        hall_repo,
        kind="convention",
        pattern="Use pathlib for file paths, never os.path joins",
        rationale="asked for twice in review",
        paths=["src/**/*.py"],
        evidence={"source": "user_correction", "quote": "please use pathlib here", "date": "2026-11-29"},
    )
    library.propose(
        hall_repo,
        kind="rule",
        pattern="Name test files after the module they test",
        evidence={"source": "review_finding", "quote": "test name does not match", "date": "2026-11-28"},
    )
    assert snap(snap_compare, make_app(hall_repo.root, start_mode="drain"), size)


@pytest.mark.parametrize("size", SIZES)
def test_drain_empty(snap_compare, hall_repo, at, size):
    assert snap(snap_compare, make_app(hall_repo.root, start_mode="drain"), size)


@pytest.mark.parametrize("size", SIZES)
def test_inbox(snap_compare, busy_snap, size):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root, start_mode="inbox"), size)


@pytest.mark.parametrize("size", SIZES)
def test_usage(snap_compare, busy_snap, size):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root, start_mode="usage"), size)


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, hall_repo, at, size):
    assert snap(snap_compare, make_app(hall_repo.root), size, "question_mark")


@pytest.mark.parametrize("size", SIZES)
def test_not_initialised(snap_compare, git_repo, at, size):
    assert snap(snap_compare, make_app(git_repo), size)
