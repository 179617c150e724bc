"""Waiting states (word + symbol), `n` order, seen marks per person, and the cost breakdown."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from hallmark.core import clock, items, journal, questions, seen, waiting
from hallmark.core.runs import live_runs


def _usage(repo, item_id, run, cost, tokens=(100, 20, 0, 0), role="review"):
    items.record(
        repo,
        item_id,
        "usage",
        actor="assayer",
        run=run,
        role=role,
        model="hallmark-standin",
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        cache_read_tokens=tokens[2],
        cache_write_tokens=tokens[3],
        cost_usd=cost,
        standin=True,
    )


def test_states_have_a_word_and_a_symbol(hall_repo, new_item, commit_all):
    a, wt = new_item("idle one")
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, a)) == ("idle", "idle", "·")
    (wt / "x.py").write_text("x = 1\n")
    commit_all(wt)
    items.ready(hall_repo, a)
    kind, word, symbol = waiting.classify(hall_repo, items.fold_item(hall_repo, a))
    assert (kind, word) == ("in_loop", "in the loop") and symbol
    b, _ = new_item("asks")
    questions.ask(hall_repo, "which db?", item_id=b)
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, b))[:2] == ("waiting", "waiting for you")
    assert len({s for s in waiting.SYMBOLS.values()}) == len(waiting.SYMBOLS)  # never colour alone


def test_waiting_items_oldest_first_and_next_wraps(hall_repo, new_item, monkeypatch):
    ids = []
    for n, title in enumerate(["first", "second", "third"]):
        monkeypatch.setenv("HALLMARK_FIXED_NOW", f"2026-11-30T10:0{n}:00Z")
        item_id, _ = new_item(title)
        ids.append(item_id)
    # the third asks first, then the first asks: oldest question first
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T11:00:00Z")
    questions.ask(hall_repo, "q3", item_id=ids[2])
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T11:05:00Z")
    questions.ask(hall_repo, "q1", item_id=ids[0])
    order = [v.id for v in waiting.waiting_items(hall_repo)]
    assert order == [ids[2], ids[0]]
    assert waiting.waiting_for_you(hall_repo).items == (ids[2], ids[0])  # the order `n` walks
    assert waiting.summary(hall_repo)["waiting_count"] == 2


def test_escalated_hold_and_awaiting_you_wait(hall_repo, new_item, commit_all):
    a, wt = new_item()
    (wt / "y.py").write_text("y = 2\n")
    commit_all(wt)
    items.propose_ready(hall_repo, a, summary="done", ask=True)
    assert waiting.waiting_for_you(hall_repo).reasons[a] == "ready?"
    b, _ = new_item()
    items.record(hall_repo, b, "held", kind="budget", reason="daily budget spent")
    assert waiting.waiting_for_you(hall_repo).reasons[b] == "held (budget)"


def test_done_unseen_until_marked_seen(hall_repo, new_item, monkeypatch, commit_all):
    a, wt = new_item()
    (wt / "z.py").write_text("z = 3\n")
    sha = commit_all(wt)
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T10:00:00Z")
    items.ready(hall_repo, a)
    for action in ("checks_passed", "hallmarked"):
        items.transition(hall_repo, a, action, actor="assayer", sha=sha)
    view = items.fold_item(hall_repo, a)
    assert waiting.classify(hall_repo, view)[0] == "done_unseen"
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T10:05:00Z")
    waiting.mark_seen(hall_repo, a)
    assert waiting.classify(hall_repo, view)[0] == "idle"
    # kept per person in the user data dir, not in the shared journal
    assert seen.seen_path().is_relative_to(os.environ["HALLMARK_DATA_DIR"])
    assert "seen" not in {e["event"] for e in items.item_events(hall_repo, a)}
    # shipping later makes it unseen again
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T10:10:00Z")
    items.transition(hall_repo, a, "shipped", actor="shipper", pr="")
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, a))[0] == "done_unseen"


def test_a_held_run_lock_means_working(hall_repo, new_item, tmp_path):
    a, _ = new_item()
    runs = hall_repo.paths.item_dir(a) / "runs"
    runs.mkdir(parents=True)
    lock = runs / "20261130T094312123Z-dev.lock"
    (runs / "20261130T094312123Z-dev.jsonl").write_text("")
    flag = tmp_path / "locked"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, os, sys, time\n"
                f"fd = os.open({str(lock)!r}, os.O_CREAT | os.O_RDWR)\n"
                "fcntl.flock(fd, fcntl.LOCK_EX)\n"
                f"open({str(flag)!r}, 'w').close()\n"
                "time.sleep(30)\n"
            ),
        ]
    )
    try:
        deadline = time.monotonic() + 10
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live_runs(hall_repo.paths, a)
        assert waiting.classify(hall_repo, items.fold_item(hall_repo, a))[:2] == ("working", "working")
    finally:
        holder.kill()
        holder.wait()
    assert not live_runs(hall_repo.paths, a)  # the lock file alone proves nothing
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, a))[0] == "idle"


def test_cost_breakdown_per_run_and_round(hall_repo, new_item, commit_all):
    a, wt = new_item()
    (wt / "c.py").write_text("c = 1\n")
    sha = commit_all(wt)
    items.ready(hall_repo, a)  # round 1
    items.record(hall_repo, a, "run_started", actor="assayer", run="r1-review.jsonl", role="review", model="m")
    _usage(hall_repo, a, "r1-review.jsonl", 0.5)
    items.record(
        hall_repo,
        a,
        "run_ended",
        actor="assayer",
        run="r1-review.jsonl",
        role="review",
        exit_code=0,
        duration_ms=10,
        failed=None,
    )
    items.transition(hall_repo, a, "checks_passed", actor="assayer")
    items.transition(hall_repo, a, "changes_requested", actor="assayer", open_findings=1)
    _usage(hall_repo, a, "r1-fix.jsonl", 0.25, role="fix")
    items.transition(hall_repo, a, "fix_submitted", actor="fixer", sha=sha)  # round 2
    _usage(hall_repo, a, "r2-review.jsonl", 1.0, tokens=(10, 5, 1000, 0))
    costs = waiting.cost_breakdown(hall_repo, a)
    assert [r["round"] for r in costs["rounds"]] == [1, 2]
    assert costs["rounds"][0]["cost_usd"] == 0.75 and costs["rounds"][0]["runs"] == 2
    assert costs["rounds"][1]["tokens"] == 1015
    assert costs["total"]["cost_usd"] == 1.75 and costs["total"]["runs"] == 3
    first = costs["runs"][0]
    assert (first["run"], first["role"], first["exit_code"], first["tokens"]) == ("r1-review.jsonl", "review", 0, 120)
    view = items.fold_item(hall_repo, a)  # the card's figure agrees
    assert view.cost_usd == costs["total"]["cost_usd"] and view.tokens == costs["total"]["tokens"]


def test_seen_file_survives_garbage(hall_repo, new_item):
    a, _ = new_item()
    seen.seen_path().parent.mkdir(parents=True, exist_ok=True)
    seen.seen_path().write_text("{not json")
    stamp = seen.mark_seen(hall_repo, a, when=clock.stamp())
    assert seen.last_seen(hall_repo, a) == stamp
    assert journal  # the journal module stays untouched by seen marks


def test_cli_waiting_and_cost(hall_repo, new_item, hall):
    a, _ = new_item("asks")
    questions.ask(hall_repo, "which db?", item_id=a)
    _usage(hall_repo, a, "r1-dev.jsonl", 0.125, role="dev")
    data = hall("waiting", cwd=hall_repo.root).json
    assert data["waiting"] == [a] and data["waiting_count"] == 1
    row = next(r for r in data["items"] if r["item"] == a)
    assert (row["kind"], row["word"], row["symbol"], row["reason"]) == (
        "waiting",
        "waiting for you",
        "◆",
        "question Q-1",
    )
    cost = hall("cost", a, cwd=hall_repo.root).json
    assert cost["total"]["cost_usd"] == 0.125 and cost["runs"][0]["role"] == "dev"
    status = hall("status", a, cwd=hall_repo.root).json
    assert status["cost_usd"] == 0.125 and status["tokens"] == 120


def test_label_and_badges(hall_repo, new_item):
    a, _ = new_item("asks")
    b, _ = new_item("quiet")
    questions.ask(hall_repo, "which db?", item_id=a)
    assert waiting.label(hall_repo, items.fold_item(hall_repo, a)) == "◆ waiting for you"
    found = waiting.badges(hall_repo)
    assert found[a][0] == "waiting" and found[b] == ("idle", "idle", "·")
