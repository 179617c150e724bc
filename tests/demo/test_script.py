"""`hall demo --script` through the real `hall` process, and the demo's bad-input paths."""

from __future__ import annotations

from pathlib import Path

import jsonschema
from hallmark.core.demo import driver, scenario, workspace
from hallmark.tui.cli.meta import reply_schema

STORIES = {
    "approved": "hallmarked",
    "rejected": "fixing",
    "escalated": "escalated",
    "question": "development",
    "dropped": "dropped",
}


def test_script_runs_the_whole_scenario_and_prints_the_journal_summary(hall, tmp_path: Path):
    where = tmp_path / "demo-here"
    result = hall("demo", "--script", "--dir", str(where), cwd=tmp_path, timeout=120)
    assert result.code == 0, result.stdout + result.stderr
    data = result.json
    assert data["ok"] is True
    # the reply's keys as they always were (journal_lines after next), valid against hall schema demo
    assert list(data) == ["demo", "ok", "items", "learnings", "usage", "next", "journal_lines"]
    assert list(data["demo"]) == ["base", "repo", "data_dir", "seconds", "standin", "model", "kept"]
    assert list(data["learnings"]) == [
        "proposed",
        "merged",
        "refused",
        "tombstone",
        "rejected_earlier",
        "pending",
        "librarian_runs",
    ]
    assert data["next"] == ["hall demo --keep --script (to look around afterwards)", "hall demo"]
    jsonschema.validate(data, reply_schema(["demo"]))
    by = {row["story"]: row for row in data["items"]}
    assert list(by["approved"]) == [
        "item",
        "story",
        "title",
        "what",
        "expected",
        "outcome",
        "state",
        "round",
        "rejects",
        "hold",
        "events",
        "actors",
        "runs",
        "open_questions",
        "hallmark_sha",
    ]
    assert "hallmark_sha" not in by["arrival"]  # only a hallmarked story has one
    # the five outcomes, where the scripted part left each item
    assert {key: by[key]["outcome"] for key in STORIES} == STORIES
    assert by["question"]["open_questions"] == ["Q-1"]
    assert by["approved"]["hallmark_sha"] and len(by["approved"]["hallmark_sha"]) == 40
    assert by["escalated"]["rejects"] == 3 and by["escalated"]["state"] == "escalated"
    assert by["arrival"]["events"] == 1 and by["arrival"]["runs"] == []
    # then the daemon took over: the fix was made, reviewed, approved and shipped (a real push)
    assert by["rejected"]["state"] == "closed" and by["rejected"]["round"] == 2
    assert [r.rsplit("-", 1)[-1] for r in by["rejected"]["runs"]] == [
        "dev.jsonl",
        "review.jsonl",
        "librarian.jsonl",
        "fix.jsonl",
        "review.jsonl",
    ]
    # everything the stand-in did is labelled as the stand-in; the person's steps as the demo's
    assert {"dev (stand-in)", "assayer (stand-in)", "you (demo)"} <= set(by["approved"]["actors"])
    assert "fixer (stand-in)" in by["escalated"]["actors"] and "librarian (stand-in)" in by["dropped"]["actors"]
    assert "you" not in by["dropped"]["actors"]  # dropping was the demo's doing, not the person's
    assert data["usage"]["cost_usd"] == 0 and data["usage"]["runs"] >= 16
    assert [(m["model"], m["standin_runs"] == m["runs"]) for m in data["usage"]["by_model"]] == [
        ("hallmark-standin", True)
    ]
    # the learnings: two near-duplicates merged, a credential refused, a re-proposal on its tombstone
    learned = data["learnings"]
    clamp = next(row for row in learned["proposed"] if row["pattern"] == scenario.CLAMP)
    assert learned["merged"] == [{"merged_into": clamp["id"], "pattern": scenario.CLAMP, "occurrences": 2}]
    assert [r["code"] for r in learned["refused"]] == ["SECRET_REFUSED"]
    assert "GitHub token" in learned["refused"][0]["why"]
    assert scenario.fake_token() not in result.stdout  # the refusal names the kind, never the value
    earlier = learned["rejected_earlier"][0]
    assert earlier["pattern"] == scenario.FLOAT_LEARNING
    tomb = learned["tombstone"][0]
    assert tomb["landed_on_tombstone"] == earlier["id"] == tomb["id"] and tomb["status"] == "rejected"
    assert tomb["reproposed"] == 1 and tomb["occurrences"] == 2
    assert {row["pattern"] for row in learned["pending"]} == {scenario.CLAMP, scenario.MONEY_MAP}
    # the directory the demo made is gone; nothing was registered in the person's own data dir
    assert data["demo"]["kept"] is False and not where.exists()
    assert not (Path(data["demo"]["data_dir"])).exists()
    import os

    assert not (Path(os.environ["HALLMARK_DATA_DIR"]) / "repos.json").exists()


def test_dir_must_be_new_or_empty_and_nothing_is_touched(hall, tmp_path: Path):
    where = tmp_path / "busy"
    where.mkdir()
    (where / "mine.txt").write_text("keep me")
    result = hall("demo", "--script", "--dir", str(where), cwd=tmp_path)
    assert result.code == 2
    assert result.json["error"]["code"] == "USAGE" and "not empty" in result.json["error"]["message"]
    assert [p.name for p in where.iterdir()] == ["mine.txt"]
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    result = hall("demo", "--script", "--dir", str(a_file), cwd=tmp_path)
    assert result.code == 2 and "is a file" in result.json["error"]["message"] and a_file.read_text() == "x"


def test_remove_clears_a_given_empty_dir_but_keeps_it(tmp_path: Path):
    where = tmp_path / "given"
    where.mkdir()
    demo = workspace.create(where)
    assert demo.created_base is False
    (demo.base / "tinyshop").mkdir()
    (demo.base / "standin-scenario.json").write_text("{}")
    workspace.remove(demo)
    assert where.is_dir() and list(where.iterdir()) == []
    made = workspace.create(tmp_path / "made")
    workspace.remove(made)
    assert not made.base.exists()


def test_demo_env_isolates_and_restores(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HALL_CLAUDE", "/usr/bin/false")  # a real claude set by the person: the demo ignores it
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-11-30T09:00:00.000Z")  # a pinned clock would stall run stamps
    monkeypatch.setenv("CLAUDECODE", "1")
    import os

    before = dict(os.environ)
    demo = workspace.create(tmp_path / "d")
    with workspace.demo_env(demo):
        assert os.environ["HALLMARK_DATA_DIR"] == str(demo.data_dir)
        assert os.environ["HALL_STANDIN_SCRIPT"] == str(demo.script_path)
        assert not {"HALL_CLAUDE", "HALLMARK_FIXED_NOW", "CLAUDECODE"} & set(os.environ)
    assert dict(os.environ) == before


def test_the_config_points_only_this_repo_at_the_stand_in():
    text = workspace.config_text("/opt/venv/bin/hall-standin-claude")
    import tomllib

    data = tomllib.loads(text)
    assert data["runner"]["claude"] == "/opt/venv/bin/hall-standin-claude"
    assert data["gates"] == [scenario.TEST_COMMAND] and data["ship"].startswith("git push")
    assert "stand-in" in text.splitlines()[0]


def test_end_runs_stops_a_live_run_of_the_demo_and_nothing_else(tmp_path: Path):
    """Quitting a demo that is about to be removed ends its live stand-in run (by the pid its
    run_started recorded, only while the run's lock is held)."""
    import os
    import signal
    import subprocess

    from filelock import FileLock
    from hallmark.core import items, journal, setup_repo
    from hallmark.core.repo import open_repo

    demo = workspace.create(tmp_path / "d")
    root = demo.root
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "a.txt").write_text("a\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "a"], cwd=root, check=True)
    setup_repo.init(root)
    repo = open_repo(root)
    live_id = items.new(repo, title="live")["item"]
    done_id = items.new(repo, title="done")["item"]
    demo.ids = {"rejected": live_id, "approved": done_id}
    live = subprocess.Popen(["sleep", "60"], start_new_session=True)
    other = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        runs = repo.paths.item_dir(live_id) / "runs"
        runs.mkdir(parents=True)
        (runs / "20261130T100000000Z-review.jsonl").write_text("")
        journal.append(
            repo.paths.item_journal(live_id),
            "run_started",
            item=live_id,
            actor="assayer (stand-in)",
            run="20261130T100000000Z-review.jsonl",
            role="review",
            pid=live.pid,
        )
        # a finished run whose recorded pid is now someone else's process: never touched
        done_runs = repo.paths.item_dir(done_id) / "runs"
        done_runs.mkdir(parents=True)
        (done_runs / "20261130T090000000Z-review.jsonl").write_text("")
        (done_runs / "20261130T090000000Z-review.lock").write_text("")
        journal.append(
            repo.paths.item_journal(done_id),
            "run_started",
            item=done_id,
            actor="assayer (stand-in)",
            run="20261130T090000000Z-review.jsonl",
            role="review",
            pid=other.pid,
        )
        with FileLock(str(runs / "20261130T100000000Z-review.lock")):
            assert driver.end_runs(demo) == ["20261130T100000000Z-review.jsonl"]
        assert live.wait(timeout=10) == -signal.SIGTERM
        assert other.poll() is None
    finally:
        for proc in (live, other):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_answering_the_demo_question_resumes_the_asking_session(tmp_path: Path):
    """The stand-in developer's `hall ask` ran inside a headless run that knew its session
    (`--session-id`, HALL_SESSION_ID); your answer makes the daemon resume exactly that session,
    which goes on and proposes the item as ready."""
    from hallmark.core import items, questions, states
    from hallmark.core.runner.trace import run_info

    demo = workspace.create(tmp_path / "demo")
    with workspace.demo_env(demo):
        driver.build(demo)
        repo = demo.repo()
        item_id = demo.ids["question"]
        (asked,) = [e for e in items.item_events(repo, item_id) if e["event"] == "question"]
        (dev_run,) = [e for e in items.item_events(repo, item_id) if e["event"] == "run_ended"]
        assert asked["session"] and asked["session"] == dev_run["session"]
        questions.answer(repo, asked["qid"], "a", actor="you")
        driver.run_until_idle(demo)
        view = items.fold_item(repo, item_id)
        events = items.item_events(repo, item_id)
        assert view.state == states.AWAITING_YOU, [e["event"] for e in events]
        (resumed,) = [e for e in events if e["event"] == "resumed"]
        assert resumed["session"] == asked["session"] and resumed["qid"] == asked["qid"]
        run_file = repo.paths.item_dir(item_id) / "runs" / resumed["run"]
        assert run_info(run_file)["session_id"] == asked["session"]
        assert "free above 50.00" in run_file.with_suffix(".prompt.md").read_text()
    workspace.remove(demo)
