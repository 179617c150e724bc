"""The librarian after an item closes: the daemon distils each closed item once, through the real
runner (the stand-in answering as the librarian), proposing what it finds and accepting nothing."""

from __future__ import annotations

import json

from hallmark.core import inbox, items, states
from hallmark.core.memory import api as library

LEARNING = {
    "kind": "map",
    "pattern": "app.py holds the arithmetic helpers (add, mul)",
    "quote": "Add mul",
    "source": "librarian",
    "paths": ["app.py"],
}


def _counts(scenario_path) -> dict:
    state = scenario_path.with_name(scenario_path.name + ".state.json")
    return json.loads(state.read_text()) if state.exists() else {}


def test_a_closed_item_is_distilled_once_and_its_learnings_wait_as_proposed(loop_repo, ready_item, scenario, kit):
    script = scenario(
        {
            "review": [kit.approve()],
            "librarian": [{"say": ["Reading the record."], "structured_output": {"learnings": [LEARNING]}}],
        }
    )
    item_id = ready_item()
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED

    (distilled,) = kit.events(loop_repo, item_id, "distilled")
    assert distilled["failed"] is None and distilled["actor"] == "librarian"
    (lid,) = distilled["proposed"]
    learning = library.get(loop_repo, lid)
    assert learning.status == "proposed" and learning.pattern == LEARNING["pattern"]
    assert learning.evidence[0]["item"] == item_id and [x.id for x in library.pending(loop_repo)] == [lid]
    # a real run of the librarian role, in the item's runs folder, closed with its end line
    run_file = loop_repo.paths.item_dir(item_id) / "runs" / distilled["run"]
    assert run_file.name.endswith("-librarian.jsonl")
    lines = [json.loads(x) for x in run_file.read_text().splitlines()]
    assert lines[-1]["type"] == "hall_run_end" and lines[-1]["failure"] is None
    assert lines[-2]["structured_output"]["learnings"][0]["pattern"] == LEARNING["pattern"]
    usage = [u for u in kit.events(loop_repo, item_id, "usage") if u["role"] == "librarian"]
    assert len(usage) == 1 and usage[0]["standin"] is True
    # news, not an escalation
    notices = [n for n in inbox.notices(loop_repo) if n["kind"] == "learnings"]
    assert len(notices) == 1 and item_id in notices[0]["text"]
    assert inbox.report(loop_repo)["count"] == 0
    # once: later passes do not run the librarian again
    kit.run_loop(loop_repo)
    assert len(kit.events(loop_repo, item_id, "distilled")) == 1 and _counts(script)["librarian"] == 1


def test_a_failed_distillation_is_a_notice_and_blocks_nothing(loop_repo, ready_item, scenario, kit):
    first = ready_item(title="First")
    second = ready_item(
        {"app.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}, title="Second"
    )
    scenario(
        {
            "review": [kit.approve()],
            "items": {first: {"librarian": [{"exit_code": 1, "subtype": "error_during_execution"}]}},
            "librarian": [{"structured_output": {"learnings": [LEARNING]}}],
        }
    )
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, first).state == states.CLOSED
    assert items.fold_item(loop_repo, second).state == states.CLOSED

    (failed,) = kit.events(loop_repo, first, "distilled")
    assert failed["failed"] and failed["proposed"] == []
    notice = [n for n in kit.events(loop_repo, first, "notice") if n.get("kind") == "librarian"]
    assert len(notice) == 1 and f"hall library distill {first}" in notice[0]["text"]
    (ok,) = kit.events(loop_repo, second, "distilled")
    assert ok["failed"] is None and len(ok["proposed"]) == 1
    # not retried by itself (a person can: hall library distill), and never an escalation
    kit.run_loop(loop_repo)
    assert len(kit.events(loop_repo, first, "distilled")) == 1
    assert inbox.report(loop_repo)["count"] == 0


def test_the_librarian_room_budget_holds_the_librarian_back(loop_repo, ready_item, scenario, kit):
    kit.write_config(loop_repo.root, '[budget.librarian]\ndaily = "1"\n')
    scenario({"review": [kit.approve()], "librarian": [{"structured_output": {"learnings": [LEARNING]}}]})
    item_id = ready_item()
    # the review's tokens count toward today's total, not the librarian room: fill the room first
    from hallmark.core import journal

    journal.append(
        loop_repo.paths.repo_journal,
        "usage",
        item=None,
        actor="librarian",
        run="earlier",
        role="librarian",
        model="hallmark-standin",
        input_tokens=5,
        output_tokens=0,
        cache_read_tokens=0,
        cache_write_tokens=0,
        turns=1,
        duration_ms=1,
        cost_usd=0,
        standin=True,
    )
    result = kit.run_loop(kit.reopen(loop_repo))
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED, result
    assert kit.events(loop_repo, item_id, "distilled") == []
    assert not list((loop_repo.paths.item_dir(item_id) / "runs").glob("*-librarian.jsonl"))
    assert library.pending(loop_repo) == []
    room = [e for e in inbox.report(loop_repo)["entries"] if e["kind"] == "budget"]
    assert len(room) == 1 and "librarian room" in room[0]["text"]


def test_an_item_a_person_distilled_is_not_distilled_again(loop_repo, ready_item, scenario, kit):
    from hallmark.core.memory import distill

    script = scenario({"review": [kit.approve()], "librarian": [{"structured_output": {"learnings": [LEARNING]}}]})
    item_id = ready_item()
    by_hand = distill.distill(loop_repo, item_id)  # `hall library distill`, before the item closed
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED
    (record,) = kit.events(loop_repo, item_id, "distilled")
    assert record["run"] == by_hand["run"] and _counts(script)["librarian"] == 1
    assert library.get(loop_repo, record["proposed"][0]).occurrences == 1  # not proposed twice


def test_a_rate_limited_distillation_is_tried_again_after_the_pause(loop_repo, ready_item, scenario, kit):
    scenario(
        {
            "review": [kit.approve()],
            "librarian": [
                {"api_error_status": 429, "subtype": "error_during_execution"},
                {"structured_output": {"learnings": [LEARNING]}},
            ],
        }
    )
    item_id = ready_item()
    kit.run_loop(loop_repo)  # terminates: the plan's limit pauses the model workers
    (limited,) = kit.events(loop_repo, item_id, "distilled")
    assert limited["rate_limited"] is True and not [
        n for n in kit.events(loop_repo, item_id, "notice") if n.get("kind") == "librarian"
    ]
    # the limit resets: the next pass distils it
    from hallmark.core import journal

    journal.append(
        loop_repo.paths.repo_journal,
        "paused",
        item=None,
        actor="hall",
        level="plan",
        until="2000-01-01T00:00:00.000Z",
        reason="test: the limit has reset",
    )
    kit.run_loop(loop_repo)
    last = kit.events(loop_repo, item_id, "distilled")[-1]
    assert last["failed"] is None and len(last["proposed"]) == 1


def test_items_closed_long_ago_are_history(loop_repo, ready_item, scenario, kit, monkeypatch):
    from datetime import timedelta

    from hallmark.core import clock
    from hallmark.core.loop import librarian

    scenario({"review": [kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    assert [v.id for v in librarian.owed(loop_repo)] == []  # distilled just now
    later = clock.stamp(clock.now() + timedelta(days=8))
    monkeypatch.setenv("HALLMARK_FIXED_NOW", later)
    closed = items.fold_item(loop_repo, item_id)
    assert (clock.now() - clock.parse_time(closed.state_since)).days >= 8
    # a week later, an undistilled closed item is no longer owed (e.g. one from before the daemon)
    from hallmark.core import journal

    path = loop_repo.paths.item_journal(item_id)
    kept = [line for line in path.read_text().splitlines() if '"event":"distilled"' not in line.replace(" ", "")]
    path.write_text("\n".join(kept) + "\n")
    fresh = kit.reopen(loop_repo)
    fresh.index.rebuild()
    assert [e for e in journal.read(path).events if e["event"] == "distilled"] == []
    assert librarian.owed(fresh) == []
    monkeypatch.delenv("HALLMARK_FIXED_NOW")
    assert [v.id for v in librarian.owed(fresh)] == [item_id]
