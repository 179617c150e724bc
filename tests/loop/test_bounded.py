"""A loop that cannot run away: every fixer run that makes no progress counts, the item is held after
`max_run_failures` of them with an inbox entry that says so, and a hard ceiling of runs per round
holds it whatever the counting says. Real repos, the stand-in `claude`, real non-claude engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hallmark.core import inbox, items, states
from hallmark.core.loop import bounds, daemon

BROKEN = {"app.py": "def add(a, b):\n    return a + b\n", "BROKEN": "the gate `test ! -e BROKEN` fails\n"}
NO_COMMIT = {"edits": []}
DIRTY = {"edits": [{"file": "scratch.txt", "append": "half a fix\n"}], "commit": False}
EMPTY_COMMIT = {"edits": [], "commands": ["git commit -q --allow-empty -m 'nothing at all'"]}
CRASH = {"exit_code": 3, "die_after_lines": 1}


def _fix_runs(repo, item_id: str, kit) -> list[dict]:
    return [e for e in kit.events(repo, item_id, "run_started") if e.get("role") == "fix"]


def _fix_ends(repo, item_id: str, kit) -> list[dict]:
    return [e for e in kit.events(repo, item_id, "run_ended") if e.get("role") == "fix"]


def _set(repo, kit, extra: str = "", **keys) -> object:
    text = (repo.root / ".hallmark.toml").read_text()
    top = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    (repo.root / ".hallmark.toml").write_text(top + text + extra)
    return kit.reopen(repo)


@pytest.mark.parametrize("step", [NO_COMMIT, DIRTY, EMPTY_COMMIT, CRASH], ids=["no-commit", "dirty", "empty", "crash"])
def test_a_fixer_that_makes_no_progress_is_held_after_two_runs(loop_repo, ready_item, scenario, kit, step):
    scenario({"fix": [step]})
    item_id = ready_item(BROKEN)
    kit.run_loop(loop_repo, max_passes=12)  # the old loop relaunched the fixer on every pass
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.FIXING and view.hold == "run_failed"
    assert len(_fix_runs(loop_repo, item_id, kit)) == 2
    ends = _fix_ends(loop_repo, item_id, kit)
    assert len(ends) == 2 and all(e["failed"] for e in ends)  # one run_ended per run, each a failure
    (entry,) = [e for e in inbox.report(loop_repo)["entries"] if e["item"] == item_id]
    assert entry["kind"] == "run_failed"
    assert f"hall trace {item_id} --run {ends[-1]['run']}" in entry["text"]
    if step is not CRASH:
        assert "the fixer made no change in 2 runs in a row" in entry["text"]


def test_the_no_change_judgement_is_the_runs_one_end(loop_repo, ready_item, scenario, kit):
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    kit.run_loop(loop_repo, max_passes=12)
    ends = _fix_ends(loop_repo, item_id, kit)
    assert [e["failed"] for e in ends] == ["the fixer made no commit and disputed nothing"] * 2
    assert all(e.get("judged") is True and e["actor"].startswith("fixer") for e in ends), ends
    run_file = loop_repo.paths.item_dir(item_id) / "runs" / ends[0]["run"]
    end_line = json.loads(run_file.read_text().splitlines()[-1])
    assert end_line["type"] == "hall_run_end"


def test_the_number_of_failed_runs_before_a_hold_is_configurable(loop_repo, ready_item, scenario, kit):
    repo = _set(loop_repo, kit, max_run_failures=3)
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    kit.run_loop(repo, max_passes=12)
    assert items.fold_item(repo, item_id).hold == "run_failed"
    assert len(_fix_runs(repo, item_id, kit)) == 3
    assert "made no change in 3 runs" in items.fold_item(repo, item_id).hold_reason


def test_an_empty_commit_cannot_be_claimed_as_a_fix(loop_repo, ready_item, scenario, kit):
    scenario(
        {
            "fix": [{"edits": [], "commands": ["git commit -q --allow-empty -m 'fix F-1'"], "fixed": ["F-1"]}],
            "review": [kit.reject()],
        }
    )
    item_id = ready_item()
    kit.run_loop(loop_repo, max_passes=12)
    view = items.fold_item(loop_repo, item_id)
    assert view.hold == "run_failed" and view.state == states.FIXING
    assert not kit.events(loop_repo, item_id, "fixed")  # `hall fixed` refused: the tree did not change


@pytest.mark.parametrize(
    ("engine", "why"),
    [
        ("true", "the fixer made no commit and disputed nothing"),
        ("exit 4", "the fixer engine exited 4"),
        ("echo half > half.txt", "the fixer left uncommitted changes (half.txt)"),
        ("sleep 30", "the fixer engine timed out after 1 s"),
    ],
)
def test_a_non_claude_fixer_engine_is_bounded_too(loop_repo, ready_item, kit, engine, why):
    repo = _set(loop_repo, kit, fixer=engine)
    if "sleep" in engine:
        text = (repo.root / ".hallmark.toml").read_text().replace('timeout = "60s"', 'timeout = "1s"')
        (repo.root / ".hallmark.toml").write_text(text)
        repo = kit.reopen(repo)
    item_id = ready_item(BROKEN)
    kit.run_loop(repo, max_passes=12)
    view = items.fold_item(repo, item_id)
    assert view.hold == "run_failed"
    ends = _fix_ends(repo, item_id, kit)
    assert [e["failed"] for e in ends] == [why] * 2 and all(e["engine"] == engine for e in ends)
    assert len(_fix_runs(repo, item_id, kit)) == 2
    assert Path(ends[-1]["log"]).is_file() and ends[-1]["log"] in view.hold_reason


def test_the_ceiling_holds_the_item_whatever_the_counting_says(loop_repo, ready_item, scenario, kit):
    repo = _set(loop_repo, kit, max_run_failures=20, max_runs_per_round=3)
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    kit.run_loop(repo, max_passes=20)
    view = items.fold_item(repo, item_id)
    assert view.hold == "run_ceiling" and "max_runs_per_round" in view.hold_reason
    assert len(_fix_runs(repo, item_id, kit)) == 3
    assert [e["kind"] for e in inbox.report(repo)["entries"]] == ["run_ceiling"]


def test_the_ceiling_counts_runs_even_when_the_failures_are_not_counted(loop_repo, ready_item, scenario, kit):
    """A counting bug (here: every run_ended forged as `recovered`, which the fold does not count)
    still meets the ceiling: it counts the `run_started` lines themselves."""
    repo = _set(loop_repo, kit, max_runs_per_round=4)
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    daemon.pass_repo(repo, "t")  # checks fail: fixing
    for _ in range(8):
        view = items.fold_item(repo, item_id)
        if view.hold:
            break
        daemon.do_fix(repo, view)
        items.record(repo, item_id, "run_ended", actor="fixer", role="fix", run=None, failed=None)  # resets the count
    view = items.fold_item(repo, item_id)
    assert view.hold == "run_ceiling"
    assert len(_fix_runs(repo, item_id, kit)) == 4


def test_a_person_retry_starts_a_new_count(loop_repo, ready_item, scenario, kit):
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    kit.run_loop(loop_repo, max_passes=12)
    assert len(_fix_runs(loop_repo, item_id, kit)) == 2
    items.retry(loop_repo, item_id, reason="one more go")
    kit.run_loop(loop_repo, max_passes=12)
    assert items.fold_item(loop_repo, item_id).hold == "run_failed"
    assert len(_fix_runs(loop_repo, item_id, kit)) == 4


def test_the_long_running_daemon_is_bounded_as_well(loop_repo, ready_item, scenario, kit):
    """`hall daemon start` runs daemon.run(until_idle=False), which has no pass cap: the bounds hold there."""
    scenario({"fix": [NO_COMMIT]})
    item_id = ready_item(BROKEN)
    daemon.run(until_idle=False, interval=0.01, repos=[loop_repo.root], max_passes=15)
    assert items.fold_item(loop_repo, item_id).hold == "run_failed"
    assert len(_fix_runs(loop_repo, item_id, kit)) == 2


def test_runs_this_round_restarts_at_each_round():
    events = [
        {"event": "ready"},
        {"event": "run_started", "role": "review"},
        {"event": "run_started", "role": "fix"},
        {"event": "fix_submitted"},
        {"event": "run_started", "role": "review"},
        {"event": "run_started", "role": "dev"},
    ]
    assert [e["role"] for e in bounds.runs_this_round(events)] == ["review"]


ENGINE = """\
import json, os, subprocess, sys, time
state = os.environ["ENGINE_STATE"]
steps = json.load(open(os.environ["ENGINE_SCRIPT"]))
n = int(open(state).read()) if os.path.exists(state) else 0
open(state, "w").write(str(n + 1))
step = steps[min(n, len(steps) - 1)]
if step == "crash":
    sys.exit(3)
if step == "hang":
    time.sleep(30)
if step == "dirty":
    open("scratch.txt", "a").write("x\\n")
if step == "empty":
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "nothing"], check=True)
"""
STANDIN_STEPS = {"no_commit": NO_COMMIT, "dirty": DIRTY, "empty": EMPTY_COMMIT, "crash": CRASH, "hang": {"sleep": 30}}


def _loop_repo_at(base: Path, kit):
    """A fresh loop repo (like the loop_repo fixture) under base, for one hypothesis example."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo

    root = base / "repo"
    root.mkdir(parents=True)
    kit.git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    setup_repo.init(root, claude_md=False)
    kit.write_config(root)
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "init")
    return open_repo(root)


def test_property_every_misbehaving_fixer_is_bounded(tmp_path, kit, monkeypatch):
    """Whatever mix of misbehaviour the fixer shows (no commit, edits without a commit, a commit that
    changes nothing, a crash, a hang past its timeout; as the stand-in or a non-claude engine), the
    loop starts exactly `max_run_failures` fixer runs (never more than the ceiling) and holds the item."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    counter = iter(range(10_000))
    engine_file = tmp_path / "engine.py"
    engine_file.write_text(ENGINE)

    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(
        engine=st.sampled_from(["standin", "external"]),
        steps=st.lists(st.sampled_from(sorted(STANDIN_STEPS)), min_size=1, max_size=4),
        limit=st.integers(1, 3),
        ceiling=st.integers(1, 4),
    )
    def check(engine: str, steps: list[str], limit: int, ceiling: int) -> None:
        if steps.count("hang") > 1:
            steps = [s for s in steps if s != "hang"] or ["no_commit"]
        base = tmp_path / f"ex{next(counter)}"
        repo = _loop_repo_at(base, kit)
        keys = {"max_run_failures": limit, "max_runs_per_round": ceiling}
        if engine == "external":
            script = base / "engine-steps.json"
            script.write_text(json.dumps(steps))
            monkeypatch.setenv("ENGINE_SCRIPT", str(script))
            monkeypatch.setenv("ENGINE_STATE", str(base / "engine-state"))
            keys["fixer"] = f"{sys.executable} {engine_file}"
        else:
            script = base / "standin.json"
            script.write_text(json.dumps({"fix": [STANDIN_STEPS[s] for s in steps]}))
            monkeypatch.setenv("HALL_STANDIN_SCRIPT", str(script))
        repo = _set(repo, kit, **keys)
        text = (repo.root / ".hallmark.toml").read_text().replace('timeout = "60s"', 'timeout = "2s"')
        (repo.root / ".hallmark.toml").write_text(text)
        repo = kit.reopen(repo)
        created = items.new(repo, title="broken")
        wt = Path(created["worktree"])
        (wt / "BROKEN").write_text("x\n")
        kit.git(wt, "add", "-A")
        kit.git(wt, "commit", "-q", "-m", "broken")
        items.ready(repo, created["item"])
        daemon.run(until_idle=True, repos=[repo.root], max_passes=3 + 2 * max(limit, ceiling) + 4)
        view = items.fold_item(repo, created["item"])
        started = _fix_runs(repo, created["item"], kit)
        assert view.hold in ("run_failed", "run_ceiling"), (view.hold, steps)
        assert len(started) == min(limit, ceiling), (steps, limit, ceiling, len(started))
        assert len(_fix_ends(repo, created["item"], kit)) == len(started)  # one end per run
        if engine == "external":
            assert int((base / "engine-state").read_text()) == len(started)  # what really ran
        else:
            state = json.loads(script.with_name(script.name + ".state.json").read_text())
            assert state["fix"] == len(started)

    check()
