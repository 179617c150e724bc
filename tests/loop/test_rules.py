"""Pure rules of the loop: approval, the findings fold, usage accounting, prices; plus the daemon's chores."""

from __future__ import annotations

import json
from datetime import timedelta

from hallmark.core import clock, inbox, items, questions, states
from hallmark.core.loop import daemon, findings, pricing, verdict
from hallmark.core.runner import spawn
from hypothesis import given
from hypothesis import strategies as st

finding_st = st.fixed_dictionaries(
    {
        "lens": st.sampled_from(verdict.LENSES),
        "severity": st.sampled_from(verdict.SEVERITIES),
        "file": st.text(min_size=1, max_size=8),
        "line": st.one_of(st.none(), st.integers(0, 500)),
        "scenario": st.text(min_size=1, max_size=20),
    }
)


@given(st.lists(finding_st, max_size=6))
def test_approval_is_zero_blockers_and_zero_majors(found):
    v = verdict.parse({"summary": "s", "findings": found})
    blocking = {f["severity"] for f in found} & {"blocker", "major"}
    assert (v.blocking() == []) == (not blocking)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["verdict", "fixed", "disputed"]),
            st.integers(1, 4),
            st.sampled_from(["blocker", "major", "minor", "nit"]),
        ),
        max_size=12,
    )
)
def test_the_findings_fold_never_invents_or_loses_findings(steps):
    events, raised = [], 0
    for name, n, severity in steps:
        if name == "verdict":
            new = [
                {
                    "id": f"F-{raised + i}",
                    "lens": "correctness",
                    "severity": severity,
                    "file": "a",
                    "line": 1,
                    "scenario": "s",
                }
                for i in range(1, n + 1)
            ]
            raised += n
            events.append(
                {
                    "event": "verdict",
                    "round": len(events),
                    "findings": new,
                    "still_open": [f"F-{k}" for k in range(1, raised - n + 1) if k % 2],
                }
            )
        elif name == "fixed":
            events.append({"event": "fixed", "findings": [f"F-{n}"], "sha": "abc"})
        else:
            events.append({"event": "disputed", "finding": f"F-{n}", "reason": "r"})
    folded = findings.fold(events)
    assert [f["id"] for f in folded] == [f"F-{k}" for k in range(1, raised + 1)]
    assert all(f["status"] in ("open", "fixed", "disputed") for f in folded)


def test_usage_comes_from_model_usage_and_falls_back_to_usage(shared_dir):
    sample = shared_dir / "formats" / "samples" / "stream-json" / "single-messages"
    result = json.loads((sample / "charlieyou__claude-agent-sdk-gleam__result_success.json").read_text())
    (row,) = spawn.usage_rows(result, "claude-opus-4-5-20251101")
    assert (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"], row["cache_write_tokens"]) == (
        38,
        765,
        28775,
        31159,
    )
    assert row["cost_usd"] == pricing.cost("claude-opus-4-5-20251101", 38, 765, 28775, 31159)
    old = shared_dir / "formats" / "samples" / "stream-json" / "Zeeeepa__github.gg__claude_output.jsonl"
    results = [json.loads(x) for x in old.read_text().splitlines() if '"type":"result"' in x.replace(" ", "")]
    assert results and "modelUsage" not in results[0]
    (row,) = spawn.usage_rows(results[0], "claude-opus-4-1-20250805")
    assert row["model"] == "claude-opus-4-1-20250805" and row["input_tokens"] == results[0]["usage"]["input_tokens"]
    assert row["standin"] is False and row["cost_usd"] > 0


def test_list_prices():
    assert pricing.cost("hallmark-standin", 10**6, 10**6) == 0
    assert pricing.cost("claude-sonnet-4-5", 1_000_000, 1_000_000) == 18.0
    assert pricing.cost("claude-opus-4-5-20251101", 0, 1_000_000) == 25.0
    assert pricing.cost("mystery-model", 5, 5, reported=0.25) == 0.25


def test_a_run_over_its_dollar_cap_is_retried_once_then_held(loop_repo, ready_item, scenario, kit):
    scenario({"review": [{"subtype": "error_max_budget_usd"}]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    view = items.fold_item(loop_repo, item_id)
    assert view.hold == "run_failed"
    assert [e["failed"] for e in kit.events(loop_repo, item_id, "run_ended")] == [
        "the run ended with error_max_budget_usd"
    ] * 2


def test_the_daemon_applies_expired_question_defaults(loop_repo, ready_item, kit, monkeypatch):
    created = items.new(loop_repo, title="ask")
    questions.ask(
        loop_repo, "billed or raw?", item_id=created["item"], options=["billed", "raw"], default="billed", wait="1h"
    )
    later = clock.stamp(clock.now() + timedelta(hours=2))
    monkeypatch.setenv("HALLMARK_FIXED_NOW", later)
    kit.run_loop(loop_repo)
    (event,) = kit.events(loop_repo, created["item"], "question_defaulted")
    assert event["answer"] == "billed" and "went ahead with the default" in event["reason"]


def test_the_watchman_flags_a_quiet_item_once_per_spell(loop_repo, ready_item, kit, monkeypatch):
    item_id = ready_item()
    monkeypatch.setenv("HALLMARK_FIXED_NOW", clock.stamp(clock.now() + timedelta(hours=1)))
    assert daemon.watchman(loop_repo) == [item_id]
    assert daemon.watchman(loop_repo) == []  # the notice itself is news
    (notice,) = kit.events(loop_repo, item_id, "notice")
    assert notice["kind"] == "stuck" and notice["actor"] == "watchman"
    assert [n["kind"] for n in inbox.notices(loop_repo)] == ["stuck"]
    assert inbox.report(loop_repo)["count"] == 0  # a notice never reaches your office
    assert items.fold_item(loop_repo, item_id).state == states.CHECKS


def test_trace_reads_the_runners_files(loop_repo, ready_item, scenario, kit, hall):
    import importlib.util

    if importlib.util.find_spec("hallmark.core.runner.trace") is None:
        import pytest

        pytest.skip("core/runner/trace.py is not in this tree yet")
    from hallmark.core.runner import trace

    scenario({"review": [kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    (path,) = (loop_repo.paths.item_dir(item_id) / "runs").glob("*-review.jsonl")
    kinds = [s.kind for s in trace.read_steps(path)]
    assert kinds[0] == "init" and "tool_call" in kinds and "tool_result" in kinds and kinds[-2:] == ["result", "end"]
    info = trace.run_info(path)
    assert info["model"] == "hallmark-standin" and info["ended"] is True and info["failure"] is None
    r = hall("trace", "--file", str(path), "--json", cwd=loop_repo.root)
    assert r.code == 0


def test_a_rate_limit_pauses_the_loop_without_holding_the_item(loop_repo, ready_item, scenario, kit, monkeypatch):
    scenario({"review": [{"subtype": "error_during_execution", "api_error_status": 429}, kit.approve()]})
    item_id = ready_item()
    kit.run_loop(loop_repo)
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.REVIEW and view.hold == ""
    (ended,) = kit.events(loop_repo, item_id, "run_ended")
    assert ended["rate_limited"] is True
    (paused,) = [e for e in loop_repo.index.events(kinds=["paused"], repo_level=True)]
    assert paused["level"] == "plan"
    kit.run_loop(loop_repo)  # still paused: nothing runs
    assert len(kit.events(loop_repo, item_id, "run_ended")) == 1
    monkeypatch.setenv("HALLMARK_FIXED_NOW", clock.stamp(clock.now() + timedelta(hours=2)))
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED


def test_one_broken_item_neither_stops_the_loop_nor_spins_it(loop_repo, ready_item, scenario, kit):
    import shutil
    from pathlib import Path

    scenario({"review": [kit.approve()]})
    broken = ready_item(title="broken")
    shutil.rmtree(items.fold_item(loop_repo, broken).worktree)
    fine = ready_item(title="fine")
    result = kit.run_loop(loop_repo)
    assert result["passes"] < 10
    assert items.fold_item(loop_repo, fine).state == states.CLOSED
    notices = kit.events(loop_repo, broken, "notice")
    assert notices and notices[0]["kind"] == "loop_error"
    assert not Path(items.fold_item(loop_repo, broken).worktree).exists()


def test_a_room_over_its_daily_cap_closes_and_items_wait(loop_repo, ready_item, scenario, kit):
    kit.write_config(loop_repo.root, '[budget.review]\ndaily = "1k"\n')
    repo = kit.reopen(loop_repo)
    scenario(
        {
            "review": [dict(kit.reject(), usage={"input_tokens": 2000}), kit.approve()],
            "fix": [{"edits": [{"file": "app.py", "append": "# x\n"}], "fixed": ["F-1"]}],
        }
    )
    item_id = ready_item()
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.state == states.REVIEW and view.hold == "" and view.round == 2  # fixed, then waits for review
    assert len(kit.events(repo, item_id, "verdict")) == 1
    (entry,) = inbox.report(repo)["entries"]
    assert entry["kind"] == "budget" and "review room" in entry["text"]


def test_leases_end_with_their_holder_or_their_ttl(loop_repo, ready_item, monkeypatch):
    import subprocess

    import pytest
    from hallmark.core.errors import HallError
    from hallmark.core.loop import leases

    item_id = ready_item()
    dead = subprocess.Popen(["true"])
    dead.wait()
    leases.acquire(loop_repo, item_id, "assayer", "a", pid=dead.pid)
    assert leases.current(loop_repo, item_id) is None  # its process is gone
    leases.acquire(loop_repo, item_id, "assayer", "b", pid=0, ttl_s=60)
    with pytest.raises(HallError) as caught:
        leases.acquire(loop_repo, item_id, "fixer", "c")
    assert caught.value.code == "CLAIMED" and caught.value.exit_code == 7
    assert leases.acquire(loop_repo, item_id, "assayer", "b", pid=0)["holder"] == "b"  # renewal by its holder
    monkeypatch.setenv("HALLMARK_FIXED_NOW", clock.stamp(clock.now() + timedelta(minutes=20)))
    assert leases.current(loop_repo, item_id) is None  # expired
    assert leases.acquire(loop_repo, item_id, "fixer", "c")["holder"] == "c"


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["budget", "budget.review", "budget.fix"]),
            st.sampled_from(["daily", "per_item", "max_usd"]),
            st.sampled_from(['"2M"', '"800k"', "3", '"none"']),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_budget_set_edits_one_key_and_keeps_the_rest(assignments, with_tail):
    import tomllib

    from hallmark.core.loop.budget import _set_in_toml

    text = 'base = "main"\ngates = ["pytest"]\n' + ('[capture]\nmode = "gate"\n' if with_tail else "")
    expected: dict = {}
    for section, key, literal in assignments:
        text = _set_in_toml(text, section, key, literal)
        expected[(section, key)] = tomllib.loads(f"v = {literal}")["v"]
    data = tomllib.loads(text)
    assert data["base"] == "main" and data["gates"] == ["pytest"]
    if with_tail:
        assert data["capture"] == {"mode": "gate"}
    for (section, key), value in expected.items():
        node = data
        for part in section.split("."):
            node = node[part]
        assert node[key] == value


def test_the_watchman_leaves_an_item_with_a_live_run_alone(loop_repo, ready_item, monkeypatch):
    from filelock import FileLock

    item_id = ready_item()
    folder = loop_repo.paths.item_dir(item_id) / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HALLMARK_FIXED_NOW", clock.stamp(clock.now() + timedelta(hours=1)))
    with FileLock(str(folder / "20261130T094312123Z-review.lock")):
        assert daemon.watchman(loop_repo) == []
    assert daemon.watchman(loop_repo) == [item_id]


def test_the_heartbeat_goes_on_during_a_long_run(loop_repo, ready_item, scenario, kit, monkeypatch):
    import threading
    import time

    monkeypatch.setattr(daemon, "HEARTBEAT_EVERY_S", 0.1)
    scenario({"review": [dict(kit.approve(), sleep=1.5)]})
    ready_item()
    worker = threading.Thread(target=kit.run_loop, args=(loop_repo,))
    worker.start()
    beats = set()
    while worker.is_alive():
        beats.add(daemon.read_state().get("heartbeat"))
        time.sleep(0.05)
    worker.join()
    assert len(beats) >= 8  # passes alone would beat a handful of times
