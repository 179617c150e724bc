"""The reflect drain through the real memory store: accept promotes, reject leaves a tombstone,
skip, edit, undo, accept-all, a pattern that came back after rejection, and the empty state."""

from __future__ import annotations

from hallmark.core.memory import api as library

from .conftest import make_app, run, settle


def propose(repo, pattern: str, kind: str = "convention", quote: str = "we always do it this way") -> str:
    reply = library.propose(
        repo,
        kind=kind,
        pattern=pattern,
        rationale="said twice in review",
        evidence={"source": "user_statement", "quote": quote, "date": "2026-11-29"},
        paths=["src/**/*.py"],
    )
    return reply["id"]


def drain_app(repo):
    return make_app(repo.root, start_mode="drain")


def _body(app) -> str:
    return str(app.screen.query_one("#drain-body").render())


def _progress(app) -> str:
    return str(app.screen.query_one("#drain-progress").render())


def test_accepting_promotes_and_rejecting_leaves_a_tombstone(hall_repo, at):
    first = propose(hall_repo, "Use pathlib for every file path, never os.path string joins")
    second = propose(hall_repo, "Name test files after the module they test", kind="rule")

    async def go():
        app = drain_app(hall_repo)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert _progress(app).startswith("1 of 2")
            body = _body(app)
            assert "Use pathlib" in body and "we always do it this way" in body and "user_statement, 2026-11-29" in body
            assert ("Accepting writes:" in body and "CLAUDE.md" in body) or ".claude" in body
            await pilot.press("a")
            await settle(pilot)
            assert _progress(app).startswith("2 of 2")
            assert "Name test files" in _body(app)
            await pilot.press("x")
            await pilot.pause()
            assert type(app.screen).__name__ == "ReasonModal"
            await pilot.press(*"too obvious to write down", "enter")
            await settle(pilot)
            last = str(app.screen.query_one("#drain-last").render())
            assert "✗ rejected" in last and "tombstone" in last and "too obvious to write down" in last
            assert "Nothing to review" in _body(app) and "1 accepted" in _body(app) and "1 rejected" in _body(app)

    run(go())
    accepted = library.get(hall_repo, first)
    assert accepted.status == "promoted" and accepted.promotion
    assert (hall_repo.root / accepted.promotion["path"]).read_text().count("Use pathlib") == 1
    rejected = library.get(hall_repo, second)
    assert rejected.status == "rejected" and rejected.reason == "too obvious to write down"
    assert library.tombstone_for(hall_repo, second)["reason"] == "too obvious to write down"


def test_skip_edit_and_undo(hall_repo, at):
    one = propose(hall_repo, "Prefer small pure functions in core modules")
    two = propose(hall_repo, "Log every HallError code at the CLI boundary")

    async def go():
        app = drain_app(hall_repo)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("s")
            await settle(pilot)
            assert library.get(hall_repo, one).status == "skipped"
            await pilot.press("u")  # undo the skip: back on the first card
            await settle(pilot)
            assert library.get(hall_repo, one).status == "proposed"
            assert _progress(app).startswith("1 of 2")
            await pilot.press("e")
            await pilot.pause()
            assert type(app.screen).__name__ == "TextModal"  # a learning can be long: several lines
            await pilot.press("ctrl+u", *"Keep core functions small", "enter", *"and pure")
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert library.get(hall_repo, one).pattern.split() == "Keep core functions small and pure".split()
            await pilot.press("right", "left")  # only one card left: stays on it
            assert "Log every HallError" in _body(app)

    run(go())
    assert library.get(hall_repo, one).status in ("accepted", "promoted")
    assert library.get(hall_repo, two).status == "proposed"


def test_accept_all_asks_first_with_the_list(hall_repo, at):
    lids = [propose(hall_repo, f"Convention number {n}: keep module {n} under 300 lines") for n in range(3)]

    async def go():
        app = drain_app(hall_repo)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("A")
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"
            listed = " ".join(str(s.render()) for s in app.screen.query("Static"))
            assert all(lid in listed for lid in lids)
            await pilot.press("n")  # no: nothing changes
            await settle(pilot)
            assert all(library.get(hall_repo, lid).status == "proposed" for lid in lids)
            await pilot.press("A", "y")
            await settle(pilot)
            assert "Nothing to review" in _body(app)

    run(go())
    assert all(library.get(hall_repo, lid).status in ("accepted", "promoted") for lid in lids)


def test_a_rejected_pattern_proposed_again_shows_its_tombstone(hall_repo, at):
    lid = propose(hall_repo, "Always squash merge feature branches")
    library.reject(hall_repo, lid, "we keep history", actor="you")
    again = propose(hall_repo, "Always squash merge feature branches", quote="squash it please")
    assert again == lid

    async def go():
        app = drain_app(hall_repo)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await settle(pilot)
            body = _body(app)
            assert "PROPOSED AGAIN" in body and "we keep history" in body
            assert app.screen.check_action("decide", ("edit",)) is None
            assert app.screen.greyed("accept_all")  # A would accept nothing: greyed, and says why
            await pilot.press("A")
            await pilot.pause()
            assert type(app.screen).__name__ == "DrainScreen"
            assert any("came back after a rejection" in n.message for n in app._notifications)
            await pilot.press("s")
            await settle(pilot)
            assert "Nothing to review" in _body(app)

    run(go())
    assert library.get(hall_repo, lid).status == "rejected"


def test_the_empty_drain_says_so(hall_repo, at):
    async def go():
        app = drain_app(hall_repo)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert "Nothing to review" in _body(app) and "No drain has happened yet" in _body(app)
            assert app.screen.check_action("decide", ("accept",)) is None
            assert app.screen.check_action("undo", ()) is None

    run(go())


def test_an_uncommitted_identity_pauses_memory_and_says_how_to_fix_it(git_repo, at):
    """`hall init` writes .agentmemory-project; until it is committed the drain and the Library
    room say memory is paused (and the drain names the commit), instead of claiming it is absent."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo
    from hallmark.tui.screens.floor import load_extras

    setup_repo.init(git_repo)
    repo = open_repo(git_repo)
    floor = load_extras(repo)
    assert floor.library_pending is None and "not committed" in floor.library_problem

    async def go():
        app = drain_app(repo)
        async with app.run_test() as pilot:
            await settle(pilot)
            assert "memory paused" in _progress(app)
            body = _body(app)
            assert "not committed yet" in body and "git add .agentmemory-project" in body
            assert app.screen.check_action("decide", ("accept",)) is False

    run(go())


def test_an_automation_is_never_accepted_in_bulk_and_takes_its_own_confirmation(hall_repo, at):
    rule = propose(hall_repo, "Keep modules under 300 lines")
    auto = library.propose(
        hall_repo,
        kind="automation",
        pattern="Format after every edit",
        details={"hook_event": "PostToolUse", "hook_matcher": "Edit", "action": "prettier -w ."},
    )["id"]
    settings = hall_repo.root / ".claude" / "settings.local.json"

    async def go():
        app = drain_app(hall_repo)
        async with app.run_test(size=(140, 44)) as pilot:
            await settle(pilot)
            await pilot.press("A")
            await pilot.pause()
            listed = " ".join(str(s.render()) for s in app.screen.query("Static"))
            assert rule in listed and "Not included" in listed and auto in listed
            await pilot.press("y")
            await settle(pilot)
            assert library.get(hall_repo, auto).status == "proposed" and not settings.exists()
            assert auto in _progress(app) or "Format after every edit" in _body(app)
            await pilot.press("a")  # on the automation's own card: a confirmation showing the command
            await pilot.pause()
            assert type(app.screen).__name__ == "ConfirmModal"
            shown = " ".join(str(s.render()) for s in app.screen.query("Static"))
            assert ".claude/settings.local.json" in shown and "prettier -w .  # hallmark:" in shown
            await pilot.press("y")
            await settle(pilot)

    run(go())
    assert library.get(hall_repo, rule).status == "promoted"
    assert library.get(hall_repo, auto).status == "promoted" and "prettier -w ." in settings.read_text()
