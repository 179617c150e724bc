"""A verdict tells the Library which learnings it used and which it contradicted.

Used ones get a new last use; contradicted ones are PROPOSED for retirement (a person decides in
the drain), never removed. Through a real review run of the stand-in on a real repo.
"""

from __future__ import annotations

import json

from hallmark.core import clock, items, states
from hallmark.core.memory import api as library


def _accepted(repo, pattern: str, kind: str = "map") -> str:
    lid = library.propose(repo, kind=kind, pattern=pattern, rationale="seen in review")["id"]
    library.accept(repo, lid, actor="you")
    return lid


def test_review_run_marks_used_and_proposes_contradicted_for_retirement(loop_repo, ready_item, scenario, kit):
    used = _accepted(loop_repo, "app.py holds the arithmetic helpers")
    wrong = _accepted(loop_repo, "mul is never called with large integers", kind="false-positive")
    idle = _accepted(loop_repo, "docs/style.md is the naming guide")
    before = clock.stamp()
    verdict = kit.approve("clean")["verdict"]
    verdict.update(learnings_used=[used], learnings_contradicted=[wrong])
    scenario({"review": [{"verdict": verdict}]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED  # the verdict still approved

    recorded = kit.events(loop_repo, item_id, "verdict")[-1]
    assert recorded["learnings_used"] == [used] and recorded["learnings_contradicted"] == [wrong]
    # the used learning's last use is this verdict's; the unused one has none
    last = library.last_used(loop_repo)
    assert last[used] >= before and idle not in last
    usage_log = loop_repo.state_dir / "library" / "usage.jsonl"
    logged = [json.loads(x) for x in usage_log.read_text().splitlines()]
    assert {"event": "learning_used", "lid": used, "item": item_id, "actor": "assayer"}.items() <= logged[0].items()
    # the contradicted one waits for a person as a retirement proposal: still accepted, not removed
    pending = {x.id: x for x in library.pending(loop_repo)}
    assert set(pending) == {wrong}
    proposal = pending[wrong].retire_proposal
    assert proposal["by"] == "assayer" and item_id in proposal["reason"]
    assert library.get(loop_repo, wrong).status == "accepted"
    assert library.get(loop_repo, used).retire_proposal is None


def test_unknown_learning_ids_are_a_notice_and_the_verdict_stands(loop_repo, ready_item, scenario, kit):
    known = _accepted(loop_repo, "app.py holds the arithmetic helpers")
    verdict = kit.reject("overflow")["verdict"]
    verdict.update(learnings_used=["not-an-id"], learnings_contradicted=["L-0999", known])
    scenario({"review": [{"verdict": verdict}], "fix": [{"edits": [], "no_submit": True}]})
    item_id = ready_item()
    from hallmark.core.loop import daemon

    daemon.pass_repo(loop_repo, "test")  # checks
    daemon.pass_repo(loop_repo, "test")  # review
    assert items.fold_item(loop_repo, item_id).state == states.FIXING
    notices = [e for e in kit.events(loop_repo, item_id, "notice") if e.get("kind") == "library"]
    assert len(notices) == 1 and "not-an-id" in notices[0]["text"] and "L-0999" in notices[0]["text"]
    # the good id in the same verdict was still proposed for retirement
    assert [x.id for x in library.pending(loop_repo)] == [known]


def test_verdict_schema_names_contradicted_learnings():
    from hallmark.core.loop import verdict

    props = verdict.schema()["properties"]
    assert props["learnings_contradicted"]["type"] == "array"
    parsed = verdict.parse({"summary": "s", "learnings_contradicted": ["L-0001"]})
    assert parsed.learnings_contradicted == ["L-0001"] and parsed.learnings_used == []
