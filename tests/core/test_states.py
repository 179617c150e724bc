"""The item state machine: exactly the seed's transitions, one locked step each, and a fold that agrees.

The reference table below is written out from the seed's "Item states" section by hand, so a
change to core/states.py that drifts from the design fails here.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hallmark.core import items, journal, states
from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths
from hallmark.core.repo import Repo
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

DEV, AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL, CLOSED, DROPPED = (
    "development",
    "awaiting_you",
    "checks",
    "review",
    "fixing",
    "escalated",
    "hallmarked",
    "closed",
    "dropped",
)
ALL_STATES = [DEV, AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL, CLOSED, DROPPED]
NON_TERMINAL = [DEV, AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL]

SEED: dict[tuple[str, str], str] = {
    (DEV, "proposed_ready"): AWAIT,  # propose-ready (auto_ready adds a `ready` at once, see below)
    (DEV, "ready"): CHECKS,
    (AWAIT, "ready"): CHECKS,
    (AWAIT, "pulled_back"): DEV,
    (CHECKS, "checks_passed"): REVIEW,
    (CHECKS, "checks_failed"): FIXING,
    (REVIEW, "hallmarked"): HALL,
    (REVIEW, "changes_requested"): FIXING,
    (REVIEW, "escalated"): ESC,
    (FIXING, "fix_submitted"): CHECKS,
    (ESC, "retried"): FIXING,
    (CHECKS, "pulled_back"): DEV,
    (REVIEW, "pulled_back"): DEV,
    (FIXING, "pulled_back"): DEV,
    (ESC, "pulled_back"): DEV,
    (HALL, "pulled_back"): DEV,
    (HALL, "shipped"): CLOSED,
    (HALL, "recheck_failed"): FIXING,  # issue 13: the gates fail on the commit the shipper's rebase made
    (CLOSED, "reopened"): DEV,
    (DEV, "restored"): CLOSED,
    **{(s, "dropped"): DROPPED for s in NON_TERMINAL},
}
ACTIONS = sorted({action for _, action in SEED})

# The shortest way into each state, through legal steps only.
PATH_TO: dict[str, list[str]] = {
    DEV: [],
    AWAIT: ["proposed_ready"],
    CHECKS: ["ready"],
    REVIEW: ["ready", "checks_passed"],
    FIXING: ["ready", "checks_failed"],
    ESC: ["ready", "checks_passed", "escalated"],
    HALL: ["ready", "checks_passed", "hallmarked"],
    CLOSED: ["ready", "checks_passed", "hallmarked", "shipped"],
    DROPPED: ["dropped"],
}

FAKE_SHA = "f" * 40


def bare_repo(root: Path) -> Repo:
    """A Repo over a state directory alone: transitions need the journal, not git."""
    common = root / ".git"
    (common / "hallmark" / "items").mkdir(parents=True, exist_ok=True)
    return Repo(RepoPaths(root, common, common, root), root)


def make_item(repo: Repo, item_id: str, state: str = DEV, *, worktree: str = "") -> str:
    journal.append(
        repo.paths.item_journal(item_id),
        "created",
        item=item_id,
        actor="you",
        title=f"item {item_id}",
        branch=f"hm/{item_id}",
        worktree=worktree or str(repo.root),
        base="main",
    )
    for action in PATH_TO[state]:
        items.transition(repo, item_id, action, actor="test", sha=FAKE_SHA, reason="walk")
    assert items.fold_item(repo, item_id).state == state
    return item_id


def test_the_table_is_the_seed_table_exactly():
    ours = {(frm, action): to for action, moves in states.TRANSITIONS.items() for frm, to in moves.items()}
    assert ours == SEED
    assert set(states.STATES) == set(ALL_STATES)
    assert set(states.TERMINAL) == {CLOSED, DROPPED}


def test_every_state_has_a_symbol_and_a_way_in():
    assert set(states.SYMBOLS) == set(ALL_STATES)
    reachable = {DEV} | set(SEED.values())
    assert reachable == set(ALL_STATES)


@pytest.mark.parametrize("state", ALL_STATES)
def test_every_state_action_pair_through_transition(tmp_path: Path, state: str):
    """Exactly the seed's transitions succeed; every other pair is WRONG_STATE and leaves the journal alone."""
    repo = bare_repo(tmp_path)
    for n, action in enumerate(ACTIONS, start=1):
        item_id = make_item(repo, f"H-{n:04d}", state)
        path = repo.paths.item_journal(item_id)
        before = path.read_bytes()
        expected = SEED.get((state, action))
        if expected is not None:
            view = items.transition(repo, item_id, action, actor="test", sha=FAKE_SHA, reason="r")
            assert view.state == expected, (state, action)
            after = journal.read(path).events
            assert len(after) == before.count(b"\n") + 1 and after[-1]["event"] == action
            assert items.fold_item(repo, item_id).state == expected
            cached = json.loads((path.parent / "item.json").read_text())
            assert cached["state"] == expected
        else:
            with pytest.raises(HallError) as caught:
                items.transition(repo, item_id, action, actor="test", sha=FAKE_SHA, reason="r")
            err = caught.value
            assert err.code == "WRONG_STATE" and err.exit_code == 4, (state, action)
            assert state in err.message  # names the current state
            assert path.read_bytes() == before, (state, action)
            if states.allowed_actions(state) and state not in (CLOSED,):
                assert err.next  # and what would work


def test_wrong_state_names_what_would_work(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001", REVIEW)
    with pytest.raises(HallError) as caught:
        items.transition(repo, "H-0001", "retried", reason="again")
    assert "review" in caught.value.message and "pull-back" in caught.value.message
    assert "hall pull-back H-0001" in caught.value.next


def test_retry_releases_a_held_item_in_any_state(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001", CHECKS)
    view = items.transition(repo, "H-0001", "checks_failed", held=True, reason="3 in a row")
    assert view.state == FIXING and view.hold == "checks"
    view = items.transition(repo, "H-0001", "retried", reason="try once more")
    assert view.state == FIXING and view.hold == "" and view.check_failures == 0
    with pytest.raises(HallError):  # released now: a second retry is not a transition
        items.transition(repo, "H-0001", "retried", reason="again")


def test_unknown_item_is_not_found(tmp_path: Path):
    repo = bare_repo(tmp_path)
    with pytest.raises(HallError) as caught:
        items.transition(repo, "H-0099", "ready")
    assert caught.value.code == "ITEM_NOT_FOUND" and caught.value.exit_code == 3


def test_fold_ignores_an_illegal_event_written_past_the_lock():
    events = [
        {"event": "created", "t": "2026-01-01T00:00:00Z", "title": "x"},
        {"event": "shipped", "t": "2026-01-01T00:00:01Z"},  # not legal from development
        {"event": "ready", "t": "2026-01-01T00:00:02Z", "sha": "abc", "round": 1},
    ]
    view = states.fold("H-0001", events)
    assert view.state == CHECKS and view.anomalies == 1 and view.sha == "abc" and view.round == 1


def test_fold_tracks_rounds_rejects_holds_questions_and_usage():
    t = "2026-01-01T00:00:00Z"
    events = [
        {"event": "created", "t": t, "title": "x", "branch": "b", "worktree": "/w", "base": "main"},
        {"event": "question", "t": t, "qid": "Q-1"},
        {"event": "ready", "t": t, "sha": "a", "round": 1},
        {"event": "checks_passed", "t": t},
        {"event": "changes_requested", "t": t, "open_findings": 2},
        {"event": "fix_submitted", "t": t, "sha": "b"},
        {"event": "usage", "t": t, "input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 1, "cost_usd": 0.5},
        {"event": "answered", "t": t, "qid": "Q-1", "answer": "yes"},
        {"event": "held", "t": t, "kind": "budget", "reason": "cap"},
    ]
    view = states.fold("H-0001", events)
    assert (view.state, view.sha, view.round, view.rejects, view.open_findings) == (CHECKS, "b", 2, 1, 2)
    assert view.tokens == 16 and view.cost_usd == 0.5 and view.open_questions == []
    assert view.hold == "budget" and view.hold_reason == "cap" and view.events == len(events)


# -- property: the fold of the journal is the stepwise result; illegal steps change nothing ----

NOISE = ["question", "usage", "prompt", "held", "released", "check_run"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.sampled_from(ACTIONS + NOISE), min_size=1, max_size=25))
@example(steps=["ready", "pulled_back", "ready", "ready"])  # a re-ready after a pull-back is no replay
def test_fold_of_the_journal_equals_the_stepwise_result(tmp_path: Path, steps: list[str]):
    repo = bare_repo(tmp_path)
    numbers = itertools.count(len(list(repo.paths.items_dir.iterdir())) + 1)
    item_id = f"H-{next(numbers):04d}"
    make_item(repo, item_id)
    path = repo.paths.item_journal(item_id)
    model_state, model_hold = DEV, False
    for n, name in enumerate(steps):
        before = path.read_bytes()
        if name in NOISE:
            fields = {"qid": f"Q-{n}"} if name == "question" else {"kind": "budget"} if name == "held" else {}
            items.record(repo, item_id, name, **fields)
            model_hold = {"held": True, "released": False}.get(name, model_hold)
            continue
        expected = SEED.get((model_state, name))
        legal = expected is not None or (name == "retried" and model_hold)
        if legal:
            stepwise = items.transition(repo, item_id, name, sha=f"{n:040x}", reason="p")
            assert path.read_bytes().startswith(before) and path.read_bytes().count(b"\n") == before.count(b"\n") + 1
            if name == "retried" and model_hold:
                model_hold = False
                expected = SEED.get((model_state, name), model_state)
            elif name in ("ready", "pulled_back"):
                model_hold = False
            model_state = expected
            assert stepwise.state == model_state
            # the view the locked step returned is exactly the fold of the journal it left behind
            assert stepwise.to_dict() == states.fold(item_id, journal.read(path).events).to_dict()
        else:
            with pytest.raises(HallError) as caught:
                items.transition(repo, item_id, name, sha="x", reason="p")
            assert caught.value.code == "WRONG_STATE"
            assert path.read_bytes() == before
    folded = states.fold(item_id, journal.read(path).events)
    assert folded.state == model_state and folded.anomalies == 0
    assert bool(folded.hold) == model_hold
    assert repo.index.item(item_id).to_dict() == folded.to_dict()  # the index folds the same way
