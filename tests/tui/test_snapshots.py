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


# -- both themes: the screens issue 28 changed (the table and diff colours, the trace's keys, the
# conflict hold's own modal) -------------------------------------------------------------------
THEMES = [pytest.param("hallmark-dark", id="dark"), pytest.param("hallmark-light", id="light")]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_triage_list_themed(snap_compare, busy_snap, size, theme):
    repo, _ = busy_snap

    async def detail_loaded(pilot):
        await until(pilot, lambda: pilot.app.screen.loaded_detail is not None)
        await settle(pilot)

    app = make_app(repo.root, start_mode="list", theme=theme)
    assert snap(snap_compare, app, size, before=detail_loaded)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_inbox_themed(snap_compare, busy_snap, size, theme):
    repo, _ = busy_snap
    assert snap(snap_compare, make_app(repo.root, start_mode="inbox", theme=theme), size)


@pytest.fixture
def diff_snap(busy_snap):
    """The review item with a committed change (fixed dates: the same SHAs every run)."""
    repo, ids = busy_snap
    from hallmark.core import items

    worktree = items.fold_item(repo, ids["development"]).worktree
    from pathlib import Path

    wt = Path(worktree)
    (wt / "app.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef read_cart(lines: list[str]) -> dict:\n"
        '    """Read a cart from CSV lines: sku,price,quantity."""\n    cart = {}\n'
        "    for number, line in enumerate(lines, 1):\n"
        '        if not line.strip() or line.startswith("#"):\n            continue  # a comment\n'
        '        sku, price, qty = (part.strip() for part in line.split(","))\n'
        "        cart[sku] = (int(float(price) * 100), int(qty))\n    return cart\n"
    )
    (wt / "README.md").unlink()
    subprocess.run(["git", "add", "-A"], cwd=wt, check=True)
    subprocess.run(["git", "commit", "-qm", "read carts"], cwd=wt, check=True)
    return repo, ids


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_diff_themed(snap_compare, diff_snap, size, theme):
    repo, ids = diff_snap

    async def open_diff(pilot):
        from hallmark.tui.screens.diff import DiffScreen

        pilot.app.push_screen(DiffScreen(pilot.app.repo, ids["development"]))
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen) and pilot.app.screen.diff is not None)
        await settle(pilot)

    assert snap(snap_compare, make_app(repo.root, theme=theme), size, before=open_diff)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
def test_conflict_hold_modal(snap_compare, busy_snap, size, theme):
    """enter on a rebase-conflict hold: its files and exact command (paths fixed for the snapshot)."""
    repo, ids = busy_snap

    async def open_modal(pilot):
        from hallmark.tui.screens.conflict import ConflictHold, ConflictModal

        hold = ConflictHold(
            ids["development"],
            "/work/demo-H-0001",
            "origin/main",
            ("README.md", "app.py"),
            ("git -C /work/demo-H-0001 rebase origin/main", f"hall ready {ids['development']}"),
        )
        pilot.app.push_screen(ConflictModal(hold))
        await settle(pilot)

    assert snap(snap_compare, make_app(repo.root, start_mode="inbox", theme=theme), size, before=open_modal)


@pytest.mark.parametrize("size", SIZES)
def test_trace_light(snap_compare, busy_snap, size):
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

    assert snap(snap_compare, make_app(repo.root, theme="hallmark-light"), size, before=open_trace)
