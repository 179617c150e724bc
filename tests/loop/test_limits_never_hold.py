"""A plan limit, an API rate limit (429) or an overloaded API (529) pauses the model workers and never
counts against the item: such a run neither counts toward `max_run_failures` nor ends a streak, nor
uses up the round's run ceiling; and its failure says what the CLI said ("You've hit your limit …"),
not "the run ended with success". Real repos, the stand-in `claude` ending its runs the way the CLI
ends a limited one (`subtype: success`, `is_error: true`, the limit's text)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hallmark.core import clock, items, states

PLAN_LIMIT = {"is_error": True, "result_text": "You've hit your 5-hour limit · resets 12:16am (UTC)"}
RATE_LIMIT = {"subtype": "error_during_execution", "api_error_status": 429}
OVERLOADED = {"subtype": "error_during_execution", "api_error_status": 529}
NO_VERDICT = {"omit_structured_output": True}  # a review that never calls StructuredOutput: a failed run


def _pause_over(repo) -> None:
    """The limit has reset: the newest pause ends in the past (as when its time came)."""
    from hallmark.core import journal

    past = clock.stamp(clock.now() - timedelta(seconds=1))
    journal.append(repo.paths.repo_journal, "paused", item=None, actor="test", level="plan", until=past)


@pytest.mark.parametrize("limit", [PLAN_LIMIT, RATE_LIMIT, OVERLOADED], ids=["plan", "429", "529"])
def test_a_limited_run_and_one_failure_do_not_hold_the_item(loop_repo, ready_item, scenario, kit, limit):
    scenario({"review": [limit, NO_VERDICT, kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo)  # the limit: the loop pauses
    _pause_over(loop_repo)
    kit.run_loop(loop_repo)
    view = items.fold_item(loop_repo, item_id)
    ended = kit.events(loop_repo, item_id, "run_ended")
    assert ended[0]["rate_limited"] is True and ended[1]["failed"] == "the result has no structured_output"
    # the old loop: held run_failed, "2 failed runs in a row", listing the limited run
    assert view.hold == "" and view.state == states.CLOSED, view.hold_reason


def test_a_limited_runs_failure_says_what_the_cli_said(loop_repo, ready_item, scenario, kit):
    scenario({"review": [PLAN_LIMIT]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    (ended,) = kit.events(loop_repo, item_id, "run_ended")
    assert ended["rate_limited"] is True
    assert ended["failed"] == "the run ended in an error: You've hit your 5-hour limit · resets 12:16am (UTC)"


def test_limited_runs_do_not_use_up_the_rounds_ceiling(loop_repo, ready_item, scenario, kit):
    text = (loop_repo.root / ".hallmark.toml").read_text()
    (loop_repo.root / ".hallmark.toml").write_text("max_runs_per_round = 2\n" + text)
    repo = kit.reopen(loop_repo)
    scenario({"review": [RATE_LIMIT, RATE_LIMIT, kit.approve()]})
    item_id = ready_item()
    for _limited in range(3):
        kit.run_loop(repo)
        _pause_over(repo)
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.hold == "" and view.state == states.CLOSED, view.hold_reason  # the old: the ceiling held it
