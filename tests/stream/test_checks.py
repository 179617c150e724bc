"""run_checks on real temporary repos with real shell gates: events, logs, cache, condensing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hallmark.core import git as core_git
from hallmark.core import items, journal
from hallmark.core.loop import checks
from hallmark.core.repo import open_repo

PY = sys.executable


def _configure(root: Path, gates: list[str], no_cache: list[str] | None = None, timeout: str | None = None) -> None:
    lines = ["gates = " + json.dumps(gates), "gates_no_cache = " + json.dumps(no_cache or [])]
    if timeout:
        lines += ["[runner]", f'timeout = "{timeout}"']
    (root / ".hallmark.toml").write_text("\n".join(lines) + "\n")
    core_git.run(["add", "-A"], root)
    core_git.run(["commit", "-q", "-m", "gates"], root)


def _new_item(repo) -> tuple[str, Path, str]:
    """A real item with its own worktree; returns (id, worktree, frozen sha)."""
    result = items.new(repo, title="checks target")
    worktree = Path(result["worktree"])
    return result["item"], worktree, core_git.head_sha(worktree)


def _check_runs(repo, item_id: str) -> list[dict]:
    return [e for e in journal.read(repo.paths.item_journal(item_id)).events if e["event"] == "check_run"]


def _reopen(root: Path):
    return open_repo(root)


@pytest.fixture
def item_repo(hall_repo):
    return hall_repo


def test_passing_and_failing_gates_are_recorded_in_order(item_repo):
    root = item_repo.root
    _configure(root, [f"{PY} -c \"print('fine')\"", f"{PY} -c \"import sys; print('boom'); sys.exit(3)\""])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)

    outcome = checks.run_checks(repo, item_id, sha, wt)

    assert not outcome.passed
    assert [r.exit_code for r in outcome.results] == [0, 3]
    assert [r.cached for r in outcome.results] == [False, False]
    events = _check_runs(repo, item_id)
    assert [e["exit_code"] for e in events] == [0, 3]
    assert [e["gate"] for e in events] == [1, 2]
    assert events[0]["actor"] == "assayer"
    assert "output" not in events[0]
    assert "boom" in events[1]["output"]
    assert events[1]["family"] == "verbatim" and events[1]["condensed"]["bytes_in"] == len("boom\n")
    assert events[1]["sha"] == sha and events[1]["tree"]
    assert all(isinstance(e["duration_ms"], int) and e["duration_ms"] >= 0 for e in events)
    # full logs on disk, named in the result and the event
    assert Path(events[1]["log"]).read_text() == "boom\n"
    assert Path(outcome.results[0].log_path).read_text() == "fine\n"
    # the fixer's text names the failure and its log, and says what passed
    text = outcome.condensed
    assert "FAIL" in text and "exit 3" in text and "boom" in text and events[1]["log"] in text
    assert text.splitlines()[0].startswith("ok ")
    assert text.splitlines()[3].startswith("$ ") and text.splitlines()[4] == "boom"


def test_a_pass_on_the_same_tree_is_served_from_the_cache(item_repo):
    root = item_repo.root
    marker = root.parent / "ran.txt"
    gate = f"{PY} -c \"open(r'{marker}', 'a').write('x')\""
    _configure(root, [gate])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)

    first = checks.run_checks(repo, item_id, sha, wt)
    second = checks.run_checks(repo, item_id, sha, wt)

    assert first.passed and second.passed
    assert marker.read_text() == "x"  # the gate really ran once
    assert [r.cached for r in second.results] == [True]
    assert second.results[0].log_path == first.results[0].log_path
    events = _check_runs(repo, item_id)
    assert [e["cached"] for e in events] == [False, True]
    assert events[1]["duration_ms"] == 0 and events[1]["original_duration_ms"] == events[0]["duration_ms"]
    cache_files = list((repo.state_dir / "checks-cache").glob("*.jsonl"))
    assert len(cache_files) == 1
    record = json.loads(cache_files[0].read_text().splitlines()[0])
    assert record["exit_code"] == 0 and record["command"] == gate and record["tree"] == first.tree


def test_a_failure_is_never_served_from_the_cache(item_repo):
    root = item_repo.root
    counter = root.parent / "count.txt"
    gate = f"{PY} -c \"import sys; open(r'{counter}', 'a').write('x'); sys.exit(1)\""
    _configure(root, [gate])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    checks.run_checks(repo, item_id, sha, wt)
    again = checks.run_checks(repo, item_id, sha, wt)
    assert counter.read_text() == "xx"
    assert not again.passed and not again.results[0].cached


def test_gates_no_cache_always_rerun(item_repo):
    root = item_repo.root
    counter = root.parent / "net.txt"
    gate = f"{PY} -c \"open(r'{counter}', 'a').write('x')\""
    _configure(root, [gate], no_cache=[gate])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    checks.run_checks(repo, item_id, sha, wt)
    second = checks.run_checks(repo, item_id, sha, wt)
    assert counter.read_text() == "xx"
    assert second.results[0].cached is False


def test_the_cache_key_follows_tree_command_and_gate_list(item_repo):
    root = item_repo.root
    counter = root.parent / "tree.txt"
    gate = f"{PY} -c \"open(r'{counter}', 'a').write('x')\""
    _configure(root, [gate])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    checks.run_checks(repo, item_id, sha, wt)
    (wt / "app.py").write_text("def add(a, b):\n    return b + a\n")
    core_git.run(["commit", "-q", "-am", "change"], wt)
    changed = checks.run_checks(repo, item_id, core_git.head_sha(wt), wt)
    assert counter.read_text() == "xx"
    assert changed.results[0].cached is False
    # same tree, different gate list: a different key
    k1 = checks.cache_key(changed.tree, gate, [gate])
    k2 = checks.cache_key(changed.tree, gate, [gate, "make lint"])
    assert k1 != k2
    assert k1 == checks.cache_key(changed.tree, gate, [gate])


def test_the_gates_check_the_frozen_commit_not_the_worktrees_uncommitted_edits(item_repo):
    root = item_repo.root
    counter = root.parent / "dirty.txt"
    gate = f"{PY} -c \"import app; assert app.add(1, 2) == 3; open(r'{counter}', 'a').write('x')\""
    _configure(root, [gate])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    (wt / "app.py").write_text("uncommitted = True\n")  # would fail the gate, but it is not the commit
    first = checks.run_checks(repo, item_id, sha, wt)
    assert first.passed and first.cacheable is True
    second = checks.run_checks(repo, item_id, sha, wt)
    assert counter.read_text() == "x" and second.results[0].cached is True
    assert (wt / "app.py").read_text() == "uncommitted = True\n"  # the worktree is left as it was


def test_gates_run_through_the_shell_in_a_clean_checkout_of_the_commit(item_repo, tmp_path):
    root = item_repo.root
    _configure(root, ["test -f app.py && echo here=$(pwd)", "exit 7"])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    outcome = checks.run_checks(repo, item_id, sha, wt)
    assert outcome.results[0].passed
    place = wt.parent / (".hallmark-checks-" + wt.name)
    assert Path(outcome.results[0].log_path).read_text().strip().endswith("here=" + str(place))
    assert outcome.checkout == str(place) and core_git.head_sha(place) == sha
    assert outcome.results[1].exit_code == 7


def test_a_gate_past_its_timeout_is_killed_and_fails(item_repo):
    root = item_repo.root
    _configure(root, [f"{PY} -c \"import time; print('start', flush=True); time.sleep(30)\""])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    outcome = checks.run_checks(repo, item_id, sha, wt, timeout_s=1.0)
    result = outcome.results[0]
    assert result.timed_out and result.exit_code == checks.TIMEOUT_EXIT
    assert result.duration_ms < 20_000
    assert "timeout" in Path(result.log_path).read_text()
    assert _check_runs(repo, item_id)[0]["timed_out"] is True


def test_long_failing_output_is_condensed_for_the_fixer(item_repo):
    root = item_repo.root
    script = "; ".join(
        [
            "import sys",
            "[print(f'progress line {i}') for i in range(500)]",
            "print('FINAL ERROR: it broke')",
            "sys.exit(2)",
        ]
    )
    _configure(root, [f'{PY} -c "{script}"'])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    outcome = checks.run_checks(repo, item_id, sha, wt)
    result = outcome.results[0]
    full = Path(result.log_path).read_text()
    assert full.count("progress line") == 500
    assert len(result.condensed) < len(full) / 3
    assert "FINAL ERROR: it broke" in result.condensed
    assert "(exit 2)" in result.condensed
    assert result.log_path in result.condensed


def test_no_gates_configured_passes_with_a_clear_message(item_repo):
    repo = _reopen(item_repo.root)
    item_id, wt, sha = _new_item(repo)
    outcome = checks.run_checks(repo, item_id, sha, wt, gates=[])
    assert outcome.passed and outcome.results == []
    assert "No gates are configured" in outcome.condensed
    assert _check_runs(repo, item_id) == []


def test_repo_level_checks_without_an_item_use_the_repo_journal(item_repo):
    root = item_repo.root
    _configure(root, ["true"])
    repo = _reopen(root)
    outcome = checks.run_checks(repo, None, core_git.head_sha(root), root)
    assert outcome.passed
    events = [e for e in journal.read(repo.paths.repo_journal).events if e["event"] == "check_run"]
    assert len(events) == 1 and events[0]["item"] is None


def test_a_missing_worktree_is_a_clear_error(item_repo, tmp_path):
    from hallmark.core.errors import HallError

    repo = _reopen(item_repo.root)
    item_id, _wt, sha = _new_item(repo)
    with pytest.raises(HallError) as caught:
        checks.run_checks(repo, item_id, sha, tmp_path / "gone")
    assert "missing" in caught.value.message and caught.value.code == "COMMAND_FAILED"
    assert _check_runs(repo, item_id) == []


def test_a_worktree_at_another_commit_still_checks_the_frozen_one(item_repo):
    root = item_repo.root
    _configure(root, ["test -f app.py"])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    core_git.run(["rm", "-q", "app.py"], wt)
    core_git.run(["commit", "-q", "-m", "moved on"], wt)
    outcome = checks.run_checks(repo, item_id, sha, wt)
    assert outcome.passed and outcome.cacheable is True  # sha has app.py, whatever HEAD is now
    assert checks.run_checks(repo, item_id, core_git.head_sha(wt), wt).passed is False


def test_a_giant_log_is_condensed_from_its_head_and_tail(tmp_path):
    log = tmp_path / "big.log"
    log.write_bytes(b"FIRST LINE\n" + b"x" * 5000 + b"\n" + b"LAST LINE\n")
    text = checks._read_log(log, cap=1000)
    assert text.startswith("FIRST LINE") and text.rstrip().endswith("LAST LINE")
    assert f"bytes of the {log.stat().st_size}-byte log not read here" in text
    assert len(text) < 1200


def test_an_untracked_file_in_the_worktree_is_not_what_the_gates_see(item_repo):
    root = item_repo.root
    _configure(root, ["test ! -e test_forgotten.py", "test -f build/out.bin || echo no-build"])
    repo = _reopen(root)
    item_id, wt, sha = _new_item(repo)
    (wt / "test_forgotten.py").write_text("def test_x():\n    assert True\n")  # passes here, fails for everyone else
    (wt / "build").mkdir()
    (wt / "build" / "out.bin").write_text("artifact")
    outcome = checks.run_checks(repo, item_id, sha, wt)
    assert outcome.passed and outcome.cacheable is True
    assert "no-build" in Path(outcome.results[1].log_path).read_text()
