"""Each inbox kind gets its own primary action, and a rebase conflict is never retried.

A conflict hold is made on real repos: the item and main both change README.md, then the hold is
recorded as the shipper records it (core.loop.ship._hold_conflict: pulled back, then `held` with
kind=conflict, onto, files and next). `enter` on it used to open "Retry", and retrying released
the hold with nothing rebased.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.tui.screens.conflict import ConflictModal
from hallmark.tui.screens.modals import ConfirmModal, ReasonModal

from .conftest import make_app, run, settle, until


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def conflict_hold(repo) -> tuple[str, Path]:
    """An item whose README.md edit conflicts with main's, held as the shipper holds it."""
    made = items.new(repo, title="Reword the README")
    item_id, wt = made["item"], Path(made["worktree"])
    (wt / "README.md").write_text("# demo\n\nthe item's words\n")
    _git(wt, "commit", "-qam", "item: README")
    (repo.root / "README.md").write_text("# demo\n\nmain's words\n")
    _git(repo.root, "commit", "-qam", "main: README")
    steps = [f"git -C {shlex.quote(str(wt))} rebase main", f"hall ready {item_id}"]
    # the shipper pulls a hallmarked item back to development first; this one is there already
    items.record(
        repo,
        item_id,
        "held",
        actor="dispatcher",
        kind="conflict",
        onto="main",
        files=["README.md"],
        next=steps,
        reason=f"conflicts in README.md. Rebase it by hand ({steps[0]}), resolve, then {steps[1]}",
    )
    return item_id, wt


def _resolve(wt: Path) -> None:
    """Rebase by hand as the hold says: conflict, keep both words, continue."""
    proc = subprocess.run(["git", "rebase", "main"], cwd=wt, capture_output=True, text=True)
    assert proc.returncode != 0
    (wt / "README.md").write_text("# demo\n\nmain's words\nthe item's words\n")
    _git(wt, "add", "README.md")
    _git(wt, "-c", "core.editor=true", "rebase", "--continue")


def test_retry_refuses_to_release_a_conflict_hold_while_the_branch_is_off_its_base(hall_repo):
    item_id, wt = conflict_hold(hall_repo)
    with pytest.raises(HallError) as refused:
        items.retry(hall_repo, item_id, reason="try again")
    assert refused.value.code == "WRONG_STATE"
    assert refused.value.next[0].endswith("rebase main")
    view = items.fold_item(hall_repo, item_id)
    assert view.hold == "conflict" and view.hold_next, "the hold and its steps stay"
    _resolve(wt)
    items.retry(hall_repo, item_id, reason="rebased by hand")
    assert not items.fold_item(hall_repo, item_id).hold


def _inbox_row(app, item_id: str, kind: str) -> int:
    screen = app.screen
    return next(n for n, e in enumerate(screen.entries) if e.item == item_id and e.kind == kind)


@pytest.fixture
def held(busy):
    repo, ids = busy
    item_id, wt = conflict_hold(repo)
    return repo, ids, item_id, wt


def test_enter_on_a_conflict_shows_its_files_and_command_never_retry(held):
    repo, _ids, item_id, wt = held

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            app.screen.query_one("#entries").move_cursor(row=_inbox_row(app, item_id, "conflict"))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConflictModal))
            modal = app.screen
            assert isinstance(modal, ConflictModal), type(modal)
            await until(pilot, lambda: modal.hold.files == ("README.md",))
            await settle(pilot)
            body = str(modal.query_one("#conflict-body").render())
            assert "README.md" in body and f"git -C {wt} rebase main" in body and "Retry" not in body
            await pilot.press("y")
            assert app.clipboard == f"git -C {wt} rebase main"
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, ConflictModal | ReasonModal)
            view = items.fold_item(repo, item_id)
            assert view.hold == "conflict", "nothing was released"

    run(go())


def test_s_opens_a_shell_in_the_worktree_and_r_readies_once_rebased(held, tmp_path, monkeypatch):
    repo, _ids, item_id, wt = held
    record = tmp_path / "shell-ran-in"
    script = tmp_path / "stand-in-shell"
    script.write_text(f"#!/bin/sh\npwd > {shlex.quote(str(record))}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("SHELL", str(script))

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            app.screen.query_one("#entries").move_cursor(row=_inbox_row(app, item_id, "conflict"))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConflictModal))
            await pilot.press("s")
            await until(pilot, record.exists)
            assert os.path.realpath(record.read_text().strip()) == os.path.realpath(wt)
            await pilot.press("r")  # still off its base: the core refuses, the hold stays
            await settle(pilot)
            assert items.fold_item(repo, item_id).hold == "conflict"
            _resolve(wt)
            app.screen.query_one("#entries").move_cursor(row=_inbox_row(app, item_id, "conflict"))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConflictModal))
            await pilot.press("r")
            await until(pilot, lambda: items.fold_item(repo, item_id).state == "checks")
            assert not items.fold_item(repo, item_id).hold

    run(go())


def test_each_kind_gets_its_own_primary_action(held):
    """question: answer; escalated: retry with a reason; ready?: confirm ready; conflict: resolve."""
    repo, _ids, _item, _wt = held

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            moves = {e.kind: screen.primary(e) for e in screen.entries}
            assert moves["conflict"] == "resolve"
            assert moves["escalated"] == "retry"
            assert moves["ready?"] == "ready"
            assert moves["question"] == "answer"
            for kind, modal in (("escalated", ReasonModal), ("ready?", ConfirmModal)):
                row = next(n for n, e in enumerate(screen.entries) if e.kind == kind)
                screen.query_one("#entries").move_cursor(row=row)
                await pilot.press("enter")
                await until(pilot, lambda modal=modal: isinstance(app.screen, modal))
                assert isinstance(app.screen, modal), (kind, type(app.screen))
                await pilot.press("escape")
                await settle(pilot)

    run(go())


def _preview(app) -> str:
    return str(app.screen.query_one("#inbox-preview-text").render())


def test_the_preview_shows_what_each_decision_needs_and_y_copies(held):
    repo, ids, item_id, wt = held

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            table = app.screen.query_one("#entries")
            table.move_cursor(row=_inbox_row(app, item_id, "conflict"))
            await pilot.pause()
            text = _preview(app)
            assert f"git -C {wt} rebase main" in text and "enter: the files and the command" in text
            assert "README.md" in text  # the hold's reason names the files
            await pilot.press("y")
            assert app.clipboard == f"git -C {wt} rebase main"
            table.move_cursor(row=_inbox_row(app, ids["development"], "question"))
            await pilot.pause()
            text = _preview(app)
            assert "Keep the old cookie name?" in text and "a) yes" in text and "b) no" in text
            assert "enter: answer it" in text
            await pilot.press("y")
            assert app.clipboard == ids["development"]
            table.move_cursor(row=_inbox_row(app, ids["awaiting_you"], "ready?"))
            await pilot.pause()
            assert "The agent proposes it is ready" in _preview(app)
            assert "enter: ready it" in _preview(app)
            table.move_cursor(row=_inbox_row(app, ids["escalated"], "escalated"))
            await pilot.pause()
            assert "2 open findings" in _preview(app) and "enter: retry" in _preview(app)

    run(go())


def test_slash_filters_the_inbox_and_escape_clears_it(held):
    repo, _ids, item_id, _wt = held

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            every = len(app.screen.entries)
            assert every >= 4
            await pilot.press("slash", *"conflict", "enter")
            await settle(pilot)
            assert [e.item for e in app.screen.entries] == [item_id]
            tabs = app.screen.query_one("#inbox-tabs")
            assert f"(1 of {every})" in str(tabs.get_tab("tab-escalations").label)
            await pilot.press("enter")  # the one left is the conflict: its own action
            assert await until(pilot, lambda: isinstance(app.screen, ConflictModal))
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("escape")  # clears the filter
            await settle(pilot)
            assert len(app.screen.entries) == every

    run(go())


def test_space_marks_and_x_and_R_act_on_every_marked_entry_and_u_brings_them_back(held):
    """Bulk dismiss (one confirmation), undo of the whole batch, and a bulk retry that leaves the
    rebase conflict out."""
    from hallmark.core import inbox

    repo, ids, item_id, _wt = held

    async def go():
        app = make_app(repo.root, start_mode="inbox")
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            table = screen.query_one("#entries")
            before = len(screen.entries)
            for kind, item in (("ready?", ids["awaiting_you"]), ("question", ids["development"])):
                table.move_cursor(row=_inbox_row(app, item, kind))
                await pilot.press("space")
            assert len(screen.marked) == 2
            assert str(table.get_row_at(_inbox_row(app, ids["development"], "question"))[0]).startswith("●")
            await pilot.press("x")
            assert await until(pilot, lambda: isinstance(app.screen, ConfirmModal))
            await pilot.press("y")
            assert await until(pilot, lambda: len(app.screen.entries) == before - 2)
            assert not screen.marked
            await pilot.press("u")  # the whole batch comes back
            assert await until(pilot, lambda: len(app.screen.entries) == before)
            assert len(inbox.visible(repo)) == before
            # R retries the marked escalation and leaves the conflict out
            for kind, item in (("escalated", ids["escalated"]), ("conflict", item_id)):
                table.move_cursor(row=_inbox_row(app, item, kind))
                await pilot.press("space")
            await pilot.press("R")
            assert await until(pilot, lambda: isinstance(app.screen, ReasonModal))
            assert "Left out" in str(app.screen.query_one("#modal-prompt").render())
            await pilot.press(*"one more go", "enter")
            assert await until(pilot, lambda: items.fold_item(repo, ids["escalated"]).state != "escalated")
            assert items.fold_item(repo, item_id).hold == "conflict"

    run(go())
