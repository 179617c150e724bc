"""The hallmark check: a real note on a real commit, and every forgery the issue names."""

from __future__ import annotations

import json

import pytest
from gatehelp import bash, decision, git, hook_env, make_repo, run_hook
from hallmark.core import journal
from hallmark.core.gates import hallmark
from hallmark.core.paths import discover
from hallmark.hooks.main import run


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path)


def commit(r, name: str = "feature.py") -> str:
    (r.wt / name).write_text(f"# {name}\n")
    git(r.wt, "add", name, env=r.env)
    git(r.wt, "commit", "-q", "-m", f"add {name}", env=r.env)
    return git(r.wt, "rev-parse", "HEAD", env=r.env)


def loop_events(r, sha: str, *, hallmarked: bool = True) -> None:
    """What the review loop records: ready, checks passed, hallmarked (appended as the loop would)."""
    path = discover(r.main).item_journal(r.item)
    journal.append(path, "ready", item=r.item, actor="you", sha=sha, round=1)
    journal.append(path, "checks_passed", item=r.item, actor="assayer", sha=sha)
    if hallmarked:
        journal.append(path, "hallmarked", item=r.item, actor="assayer", sha=sha, round=1)


def note(r, body: str, target: str = "HEAD") -> None:
    git(r.wt, "notes", "--ref=hallmark", "add", "-f", "-m", body, target, env=r.env)


def strike(r, sha: str) -> None:
    note(r, json.dumps({"v": 1, "item": r.item, "sha": sha, "round": 1, "model": "opus", "open_findings": [],
                        "actor": "assayer"}), sha)


def push_answer(r):
    return run("pre-tool-use", json.dumps(bash("git push origin HEAD", r.wt)).encode())


def message(answer) -> str:
    return json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])["error"]["message"]


def test_a_real_hallmark_lets_the_push_through(repo, pycache):
    sha = commit(repo)
    loop_events(repo, sha)
    strike(repo, sha)
    assert hallmark.check(str(repo.wt), discover(repo.main)).ok
    assert push_answer(repo) is None
    code, out, _ = run_hook("pre-tool-use", bash("git push origin HEAD && gh pr create --fill", repo.wt),
                            hook_env(repo, pycache))
    assert code == 0 and decision(out) == "pass"


def test_no_note(repo):
    commit(repo)
    assert "has no hallmark" in message(push_answer(repo))


def test_a_note_copied_from_another_commit(repo):
    first = commit(repo, "a.py")
    loop_events(repo, first)
    strike(repo, first)
    second = commit(repo, "b.py")
    git(repo.wt, "notes", "--ref=hallmark", "copy", first, second, env=repo.env)
    text = message(push_answer(repo))
    assert f"its note is for {first[:7]}, not {second[:7]}" in text


def test_right_sha_but_no_hallmarked_event(repo):
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False)
    strike(repo, sha)
    assert f"the journal of {repo.item} records no hallmarked at {sha[:7]}" in message(push_answer(repo))


def test_a_note_that_is_not_json(repo):
    commit(repo)
    note(repo, "approved by me")
    assert "is not JSON" in message(push_answer(repo))


def test_a_note_of_another_version(repo):
    sha = commit(repo)
    note(repo, json.dumps({"v": 2, "item": repo.item, "sha": sha}))
    assert "not a version-1 hallmark" in message(push_answer(repo))


def test_a_note_written_by_hand_with_a_forged_journal_line(repo):
    """A hand-written note plus a `hallmarked` appended out of turn: the fold ignores it."""
    sha = commit(repo)
    strike(repo, sha)
    journal.append(discover(repo.main).item_journal(repo.item), "hallmarked", item=repo.item, actor="assayer", sha=sha)
    text = message(push_answer(repo))
    assert "records no hallmarked" in text and "development" in text


def test_a_note_naming_an_item_that_does_not_exist(repo):
    sha = commit(repo)
    note(repo, json.dumps({"v": 1, "item": "H-0999", "sha": sha, "round": 1, "model": "x", "actor": "assayer"}))
    assert "H-0999, which has no journal" in message(push_answer(repo))


def test_pull_back_takes_the_hallmark_away(repo):
    sha = commit(repo)
    loop_events(repo, sha)
    strike(repo, sha)
    assert push_answer(repo) is None
    journal.append(discover(repo.main).item_journal(repo.item), "pulled_back", item=repo.item, actor="you", reason="x")
    assert "records no hallmarked" in message(push_answer(repo))


def test_a_later_commit_has_no_hallmark(repo):
    sha = commit(repo, "a.py")
    loop_events(repo, sha)
    strike(repo, sha)
    commit(repo, "b.py")
    assert "has no hallmark" in message(push_answer(repo))


def test_a_hallmark_does_not_open_the_note_gate(repo):
    sha = commit(repo)
    loop_events(repo, sha)
    strike(repo, sha)
    answer = run("pre-tool-use", json.dumps(bash("git notes --ref=hallmark add -f -m x", repo.wt)).encode())
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
