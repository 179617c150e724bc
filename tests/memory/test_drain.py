"""core/memory/drain.py: the drain's queue and its composite decisions, without the app: what came
back after a rejection, what accept-all may take (never an automation, never a learning that came
back), reopen-and-accept, and the person-only wall under each."""

from __future__ import annotations

import pytest
from hallmark.core.errors import HallError
from hallmark.core.memory import api, drain


def _propose(repo, pattern: str, kind: str = "convention", **extra) -> str:
    return api.propose(
        repo,
        kind=kind,
        pattern=pattern,
        rationale="said twice in review",
        evidence={"source": "user_statement", "quote": "we do it this way", "date": "2026-11-29"},
        **extra,
    )["id"]


def _automation(repo) -> str:
    return _propose(
        repo,
        "Format after every edit",
        kind="automation",
        details={"hook_event": "PostToolUse", "hook_matcher": "Edit", "action": "ruff format ."},
    )


def test_the_queue_is_pending_first_then_what_came_back(repo):
    first = _propose(repo, "Use pathlib for file paths")
    back = _propose(repo, "Always squash merge feature branches")
    api.reject(repo, back, "we keep history", actor="you")
    assert [c.lid for c in drain.load(repo).cards.values()] == [first]  # a plain rejection is not back
    assert _propose(repo, "Always squash merge feature branches") == back  # proposed again
    queue = drain.load(repo)
    assert queue.available and queue.order == [first, back]
    assert [card.came_back for card in queue.cards.values()] == [False, True]
    assert queue.cards[back].tombstone["reason"] == "we keep history"
    assert [x.id for x in drain.came_back(repo)] == [back]


def test_accept_all_takes_neither_an_automation_nor_what_came_back(repo):
    plain = _propose(repo, "Name test files after their module")
    auto = _automation(repo)
    back = _propose(repo, "Always squash merge feature branches")
    api.reject(repo, back, "we keep history", actor="you")
    _propose(repo, "Always squash merge feature branches")
    cards = drain.load(repo).cards
    assert [lid for lid, card in cards.items() if card.bulk_acceptable] == [plain]
    assert cards[auto].automation is not None
    result = drain.accept_all(repo, [plain, auto, back])  # a face that asks for more gets only what is allowed
    assert result == {"accepted": [plain], "left": [auto, back]}
    assert api.get(repo, plain).status in ("accepted", "promoted")
    assert api.get(repo, auto).status == "proposed" and api.get(repo, back).status == "rejected"
    assert drain.accept_reopened(repo, back).status in ("accepted", "promoted")
    assert [e["action"] for e in api.audit_log(repo, back)][-2:][0] == "reopen"


@pytest.mark.parametrize("env", [{"CLAUDECODE": "1"}, {"HALL_ACTOR": "fixer"}])
def test_an_agent_cannot_drain(repo, monkeypatch, env):
    lid = _propose(repo, "Keep functions short")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for call in (
        lambda: drain.accept_all(repo, [lid]),
        lambda: drain.decide(repo, "accept", lid),
        lambda: drain.accept_reopened(repo, lid),
    ):
        with pytest.raises(HallError) as err:
            call()
        assert err.value.code == "GATE_DENIED"
    assert api.get(repo, lid).status == "proposed"


def test_the_drain_has_four_decisions_only(repo):
    lid = _propose(repo, "Keep functions short")
    with pytest.raises(HallError) as err:
        drain.decide(repo, "retire", lid, "no")
    assert err.value.code == "USAGE"
    rejected = drain.decide(repo, "reject", lid, "too obvious", actor="you")
    assert rejected["status"] == "rejected" and rejected["tombstone"]["reason"] == "too obvious"
