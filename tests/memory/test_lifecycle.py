"""The learning lifecycle: every transition, every illegal one, tombstones, merging, the audit log."""

from __future__ import annotations

import json

import pytest
from hallmark.core import journal
from hallmark.core.errors import HallError
from hallmark.core.memory import api, audit, lifecycle, similarity
from hallmark.core.memory.store import Store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def propose(repo, pattern, kind="map", **kw):
    return api.propose(repo, kind=kind, pattern=pattern, **kw)


def test_propose_writes_one_readable_file_with_history_and_one_audit_line(repo):
    reply = propose(
        repo,
        "The loop module owns retries and leases",
        rationale="seen in H-1",
        evidence={"source": "user_explanation", "quote": "loop.py retries", "item": "H-0001"},
    )
    assert reply.to_dict() == {"id": "L-0001", "status": "proposed", "created": True, "merged": False, "occurrences": 1}
    store = Store(repo.paths)
    path = store.file("L-0001")
    text = path.read_text()
    assert text.startswith("---\n{") and "# L-0001 · map · proposed" in text
    assert "The loop module owns retries and leases" in text and '"loop.py retries"' in text
    assert [p.name for p in (store.history_dir / "L-0001").iterdir()] == ["v0001.md"]
    lines = audit.read(store.audit_path)
    assert len(lines) == 1 and lines[0]["from"] is None and lines[0]["to"] == "proposed"
    assert lines[0]["actor"] == "you" and lines[0]["why"] == "proposed"
    learning = api.get(repo, "1")
    assert learning.scope["project"] == (repo.root / ".agentmemory-project").read_text().strip()
    assert learning.evidence[0]["item"] == "H-0001"


def test_same_pattern_adds_occurrence_and_evidence_instead_of_a_second_learning(repo):
    propose(repo, "Use pathlib for paths, never os.path", evidence={"source": "user_statement", "quote": "one"})
    again = propose(
        repo, "use PATHLIB for paths -- never os.path!", evidence={"source": "user_correction", "quote": "two"}
    )
    assert again["id"] == "L-0001" and again["merged"] and again["match"] == "same" and again["occurrences"] == 2
    learning = api.get(repo, "L-0001")
    assert [e["quote"] for e in learning.evidence] == ["one", "two"]
    assert len(api.list_learnings(repo)) == 1


@pytest.mark.parametrize(
    "action, args",
    [
        ("accept", {}),
        ("skip", {}),
        ("reject", {"reason": "no"}),
    ],
)
def test_decisions_from_proposed(repo, action, args):
    lid = propose(repo, "Reviewers must not flag generated files under gen/", kind="false-positive")["id"]
    result = getattr(api, action)(repo, lid, **args)
    assert result.status == {"accept": "accepted", "skip": "skipped", "reject": "rejected"}[action]
    lines = audit.read(Store(repo.paths).audit_path, lid)
    assert [(x["from"], x["to"]) for x in lines] == [(None, "proposed"), ("proposed", result.status)]


def test_skip_keeps_offering_it_with_its_count_then_accept(repo):
    lid = propose(repo, "The watchman restarts stuck runs after 30 minutes")["id"]
    api.skip(repo, lid)
    api.skip(repo, lid)
    queue = api.pending(repo)
    assert [x.id for x in queue] == [lid] and queue[0].skip_count == 2 and queue[0].status == "skipped"
    assert api.accept(repo, lid).status == "accepted"
    assert api.pending(repo) == []


def test_retire_and_reopen(repo):
    lid = propose(repo, "Budget checks read usage events, not run files")["id"]
    api.accept(repo, lid)
    retired = api.retire(repo, lid, "usage moved to the index")
    assert retired.status == "retired" and retired.reason == "usage moved to the index"
    reopened = api.reopen(repo, lid, reason="it is true again")
    assert reopened.status == "proposed"
    assert [x.id for x in api.pending(repo)] == [lid]


@pytest.mark.parametrize(
    "setup, action",
    [
        ([], "retire"),  # proposed cannot be retired
        ([], "reopen"),  # proposed cannot be reopened
        (["reject"], "accept"),  # a tombstone is never accepted directly
        (["reject"], "skip"),
        (["reject"], "retire"),
        (["accept"], "skip"),
        (["accept"], "reject"),
        (["accept"], "reopen"),
        (["accept", "retire"], "accept"),
        (["accept", "retire"], "skip"),
        (["accept", "retire"], "reject"),
        (["skip"], "retire"),
    ],
)
def test_illegal_transitions_are_wrong_state_and_change_nothing(repo, setup, action):
    lid = propose(repo, "Item IDs are allocated under counters.json's lock")["id"]
    for step in setup:
        {
            "accept": lambda: api.accept(repo, lid),
            "reject": lambda: api.reject(repo, lid, "no"),
            "retire": lambda: api.retire(repo, lid, "old"),
            "skip": lambda: api.skip(repo, lid),
        }[step]()
    before = api.get(repo, lid)
    lines_before = len(audit.read(Store(repo.paths).audit_path))
    calls = {
        "accept": lambda: api.accept(repo, lid),
        "skip": lambda: api.skip(repo, lid),
        "reject": lambda: api.reject(repo, lid, "why"),
        "retire": lambda: api.retire(repo, lid, "why"),
        "reopen": lambda: api.reopen(repo, lid),
    }
    if (before.status, action) in (("rejected", "reject"), ("accepted", "accept")):
        pytest.skip("idempotent repeat")
    with pytest.raises(HallError) as err:
        calls[action]()
    assert err.value.code == "WRONG_STATE" and err.value.exit_code == 4
    assert api.get(repo, lid).to_dict() == before.to_dict()
    assert len(audit.read(Store(repo.paths).audit_path)) == lines_before


def test_transition_table_matches_the_issue():
    assert lifecycle.TRANSITIONS["accept"] == {"proposed": "accepted", "skipped": "accepted"}
    assert lifecycle.TRANSITIONS["reject"] == {"proposed": "rejected", "skipped": "rejected"}
    assert lifecycle.TRANSITIONS["retire"] == {"accepted": "retired", "promoted": "retired"}
    assert lifecycle.TRANSITIONS["reopen"] == {"rejected": "proposed", "retired": "proposed"}


def test_repeating_a_decision_is_idempotent(repo):
    lid = propose(repo, "Hooks fail open except the gates")["id"]
    api.accept(repo, lid)
    version = api.get(repo, lid).version
    assert api.accept(repo, lid).version == version
    api.retire(repo, lid, "x")
    assert api.retire(repo, lid, "x").version == version + 1


def test_reproposing_a_rejected_pattern_goes_to_its_tombstone(repo):
    lid = propose(repo, "Always squash merge pull requests", kind="convention")["id"]
    api.reject(repo, lid, "we keep history; merge commits")
    again = propose(
        repo,
        "always squash-merge pull requests.",
        kind="convention",
        evidence={"source": "user_statement", "quote": "squash it"},
    )
    assert again["id"] == lid and again["status"] == "rejected" and again["previously_rejected"]
    assert again["tombstone"]["reason"] == "we keep history; merge commits" and again["tombstone"]["reproposed"] == 1
    assert api.pending(repo) == []  # never offered as new
    assert api.get(repo, lid).evidence[-1]["quote"] == "squash it"
    assert api.tombstone_for(repo, lid)["id"] == lid


def test_near_duplicate_goes_to_the_tombstone_by_the_documented_rule(repo):
    lid = propose(repo, "Run the database migrations before starting the integration tests")["id"]
    api.reject(repo, lid, "the fixture does it")
    # same words, different order and punctuation: Jaccard of 3+-letter words = 1.0
    near = propose(repo, "Before starting integration tests, run the database migrations")
    assert near["id"] == lid and near["match"] == "near" and near["previously_rejected"]
    # a different idea is new
    other = propose(repo, "Run the linter before committing")
    assert other["created"] and other["id"] != lid


def test_similarity_rule():
    assert similarity.relation("Use  pathlib!", "use pathlib") == "same"
    assert similarity.relation("alpha beta gamma delta epsilon", "epsilon delta gamma beta alpha zeta") == "near"  # 5/6
    assert similarity.relation("alpha beta gamma delta", "alpha beta gamma omega") is None  # 3/5
    assert similarity.relation("no tabs", "tabs no way") is None  # too short for near


def test_reopen_is_the_only_way_back_from_a_tombstone(repo):
    lid = propose(repo, "Prefer dataclasses over dicts for events")["id"]
    api.reject(repo, lid, "events stay dicts")
    with pytest.raises(HallError):
        api.accept(repo, lid)
    api.reopen(repo, lid, reason="we changed our mind")
    assert api.accept(repo, lid).status == "accepted"


def test_only_a_person_accepts_rejects_or_reopens(repo):
    lid = propose(repo, "The index catches up by byte offset", actor="librarian")["id"]
    for call in (lambda: api.accept(repo, lid, actor="agent"), lambda: api.reject(repo, lid, "x", actor="librarian")):
        with pytest.raises(HallError) as err:
            call()
        assert err.value.code == "GATE_DENIED"
    assert api.get(repo, lid).status == "proposed"
    assert api.skip(repo, lid, actor="agent").status == "skipped"  # deferring is allowed


def test_accept_with_an_edited_pattern_keeps_the_original(repo):
    lid = propose(repo, "retries are in loop")["id"]
    learning = api.accept(repo, lid, pattern="Retries live in core/loop/daemon.py")
    assert learning.pattern == "Retries live in core/loop/daemon.py"
    assert learning.details["original_pattern"] == "retries are in loop"
    assert [v.pattern for v in api.history(repo, lid)] == ["retries are in loop", "Retries live in core/loop/daemon.py"]


def test_undo_reverts_the_last_decision(repo):
    lid = propose(repo, "Notes carry an as-of date", kind="convention")["id"]
    api.accept(repo, lid)
    assert "hallmark:learning " + lid in (repo.root / "CLAUDE.md").read_text()
    back = api.undo(repo, lid)
    assert back.status == "proposed" and back.promotion is None
    assert "hallmark:learning " + lid not in (repo.root / "CLAUDE.md").read_text()
    api.reject(repo, lid, "no")
    assert api.undo(repo, lid).status == "proposed"
    lines = audit.read(Store(repo.paths).audit_path, lid)
    assert [x["action"] for x in lines] == ["propose", "accept", "undo", "reject", "undo"]


def test_retirement_proposal_is_pending_and_decided_in_the_drain(repo):
    a = propose(repo, "Learning A about the journal format")["id"]
    b = propose(repo, "Learning B about the index schema")["id"]
    api.accept(repo, a)
    api.accept(repo, b)
    api.record_usage(repo, [a], item="H-0003", contradicted=[b])
    assert [x.id for x in api.pending(repo)] == [b]
    assert api.preview(repo, b)["target"] == "retire"
    kept = api.reject(repo, b, "still true")
    assert kept.status == "accepted" and kept.retire_proposal is None
    api.propose_retirement(repo, b, "unused")
    assert api.accept(repo, b).status == "retired"


def test_unused_learnings_are_proposed_for_retirement_not_removed(repo, monkeypatch):
    lid = propose(repo, "Old learning about a module that moved")["id"]
    api.accept(repo, lid)
    fresh = propose(repo, "Fresh learning used by the last review")["id"]
    api.accept(repo, fresh)
    by_verdict = propose(repo, "Learning a reviewer cited in its verdict")["id"]
    api.accept(repo, by_verdict)
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2099-01-01T00:00:00Z")
    api.record_usage(repo, [fresh], item="H-0009")
    journal.append(
        repo.paths.item_journal("H-0009"),
        "verdict",
        item="H-0009",
        actor="assayer",
        decision="approve",
        learnings_used=[by_verdict],
    )
    assert api.propose_retirements(repo) == [lid]
    assert api.get(repo, lid).status == "accepted"  # still there, just offered
    assert [x.id for x in api.pending(repo)] == [lid]


def test_last_drain_summary_counts_the_latest_run_of_decisions(repo):
    ids = [propose(repo, f"Distinct learning number {n} about subsystem {n * 7}")["id"] for n in range(4)]
    api.accept(repo, ids[0])
    api.skip(repo, ids[1])
    api.reject(repo, ids[2], "wrong")
    summary = api.last_drain_summary(repo)
    assert (summary["accepted"], summary["skipped"], summary["rejected"]) == (1, 1, 1)
    assert summary["remaining"] == 2 and summary["ids"] == sorted(ids[:3])


def test_audit_log_replays_to_the_current_state(repo):
    a = propose(repo, "Alpha fact about the runner")["id"]
    b = propose(repo, "Beta fact about the checks cache")["id"]
    api.accept(repo, a)
    api.skip(repo, b)
    api.reject(repo, b, "no")
    propose(repo, "beta fact about the checks cache")
    api.retire(repo, a, "old")
    api.reopen(repo, a)
    store = Store(repo.paths)
    assert api.verify_audit(repo) == []
    replayed = audit.replay(store.audit_path)
    assert replayed == {x.id: x.to_dict() for x in store.all()}
    # one line per change
    versions = sum(len(api.history(repo, x)) for x in (a, b))
    assert len(audit.read(store.audit_path)) == versions


def test_audit_verify_notices_a_file_changed_behind_its_back(repo):
    lid = propose(repo, "Something true about the TUI")["id"]
    store = Store(repo.paths)
    path = store.file(lid)
    path.write_text(path.read_text().replace('"status": "proposed"', '"status": "accepted"'))
    problems = api.verify_audit(repo)
    assert problems and lid in problems[0] and "status" in problems[0]


def test_unknown_learning_and_bad_ids(repo):
    with pytest.raises(HallError) as err:
        api.get(repo, "L-0099")
    assert err.value.code == "LEARNING_NOT_FOUND" and err.value.exit_code == 3
    with pytest.raises(HallError) as err:
        api.get(repo, "banana")
    assert err.value.code == "USAGE"
    with pytest.raises(HallError):
        api.propose(repo, kind="opinion", pattern="x")
    with pytest.raises(HallError):
        api.propose(repo, kind="rule", pattern="   ")


def _apply(repo, action, lid):
    if action == "accept":
        api.accept(repo, lid, promote_it=False)
    elif action in ("reject", "retire"):
        getattr(api, action)(repo, lid, "r")
    else:
        getattr(api, action)(repo, lid)


ACTIONS = st.sampled_from(["propose", "accept", "skip", "reject", "retire", "reopen", "undo"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(ACTIONS, st.integers(0, 2)), min_size=1, max_size=12))
def test_property_any_sequence_keeps_the_audit_log_and_files_in_step(repo, steps):
    """Whatever a person does, in any order: statuses stay legal, the log replays to the files,
    and nothing pending or declined is ever in the briefing."""
    from hallmark.core.memory import briefing

    patterns = [
        "Property pattern one about caches",
        "Property pattern two about journals",
        "Property pattern three about hooks",
    ]
    for action, n in steps:
        pattern = patterns[n]
        try:
            if action == "propose":
                propose(repo, pattern)
                continue
            existing = [x for x in api.list_learnings(repo) if x.pattern == pattern]
            if not existing:
                continue
            _apply(repo, action, existing[0].id)
        except HallError as exc:
            assert exc.code == "WRONG_STATE"
    assert api.verify_audit(repo) == []
    learnings = api.list_learnings(repo)
    assert all(x.status in lifecycle.STATUSES for x in learnings)
    text = json.dumps(briefing.build(repo.paths, effort="high").to_dict())
    for learning in learnings:
        if learning.status not in lifecycle.ACTIVE:
            assert learning.id not in text


def test_ids_are_never_reused_even_when_the_counter_is_lost(repo):
    first = propose(repo, "First learning about ids")["id"]
    store = Store(repo.paths)
    store.file(first).unlink()
    (store.root / "counter.json").unlink()
    assert propose(repo, "Second learning about ids")["id"] == "L-0002"  # history/L-0001 still holds the number


def test_undo_keeps_evidence_that_arrived_after_the_decision(repo):
    lid = propose(repo, "Undo keeps later evidence about retries", evidence={"source": "user_statement", "quote": "a"})[
        "id"
    ]
    api.reject(repo, lid, "no")
    propose(repo, "undo keeps later evidence about retries", evidence={"source": "user_statement", "quote": "b"})
    back = api.undo(repo, lid)
    assert back.status == "proposed" and back.occurrences == 2 and [e["quote"] for e in back.evidence] == ["a", "b"]
    assert [x.id for x in api.pending(repo)] == [lid]
    assert api.verify_audit(repo) == []


def test_auto_accept_kinds_from_config_skip_the_queue_but_are_not_promoted(repo):
    config = repo.root / ".hallmark.toml"
    config.write_text(config.read_text() + '\n[library]\nauto_accept = ["map"]\n')
    mapped = api.propose(repo, kind="map", pattern="core/index.py derives SQLite from the journals", actor="librarian")
    ruled = api.propose(repo, kind="rule", pattern="A rule still waits for a person", actor="librarian")
    assert mapped["status"] == "accepted" and ruled["status"] == "proposed"
    assert api.get(repo, mapped["id"]).promotion is None
    assert api.audit_log(repo, mapped["id"])[0]["why"] == "auto_accept in .hallmark.toml"


def test_tombstone_for_a_learning_that_resembles_a_rejected_one(repo):
    dead = propose(repo, "Always run the slow suite before every push to main")["id"]
    api.reject(repo, dead, "CI does it")
    assert api.tombstone_for(repo, dead)["id"] == dead
    other = propose(repo, "Lint the code once a day")["id"]
    assert api.tombstone_for(repo, other) is None
    api.accept(repo, other, pattern="Before every push to main, always run the slow suite", promote_it=False)
    assert api.tombstone_for(repo, other)["id"] == dead


def test_reproposing_a_retired_pattern_is_recorded_not_revived(repo, hall):
    lid = propose(repo, "Deploys go through the staging bastion host")["id"]
    api.accept(repo, lid)
    api.retire(repo, lid, "bastion removed")
    reply = hall(
        "library", "propose", "--kind", "map", "--pattern", "deploys go through the staging bastion host", cwd=repo.root
    ).json
    assert reply["id"] == lid and reply["status"] == "retired" and reply["previously_retired"]
    assert "retired" in reply["message"] and f"hall library review --reopen {lid}" in reply["next"]
    assert api.pending(repo) == [] and api.get(repo, lid).occurrences == 2
