"""The hallmark check: a real note on a real commit, and every forgery the issue names."""

from __future__ import annotations

import json

import pytest
from gatehelp import (
    RUN,
    bash,
    commit_file,
    decision,
    git,
    hook_env,
    loop_events,
    make_repo,
    run_hook,
    signed_note,
    strike_note,
)
from hallmark.core import journal
from hallmark.core.gates import hallmark
from hallmark.core.paths import discover
from hallmark.hooks.main import run


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path)


def commit(r, name: str = "feature.py") -> str:
    return commit_file(r, name)


def note(r, body: str, target: str = "HEAD") -> None:
    git(r.wt, "notes", "--ref=hallmark", "add", "-f", "-m", body, target, env=r.env)


def strike(r, sha: str, **kwargs) -> None:
    strike_note(r, sha, **kwargs)


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
    code, out, _ = run_hook(
        "pre-tool-use", bash("git push origin HEAD && gh pr create --fill", repo.wt), hook_env(repo, pycache)
    )
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
    note(repo, json.dumps({"v": 3, "item": repo.item, "sha": sha}))
    assert "not a version-2 hallmark" in message(push_answer(repo))


def test_a_note_written_by_hand_with_a_forged_journal_line(repo):
    """A hand-written note plus a `hallmarked` appended out of turn: the fold ignores it."""
    sha = commit(repo)
    strike(repo, sha)
    journal.append(discover(repo.main).item_journal(repo.item), "hallmarked", item=repo.item, actor="assayer", sha=sha)
    text = message(push_answer(repo))
    assert "records no hallmarked" in text and "development" in text


def test_a_note_naming_an_item_that_does_not_exist(repo):
    sha = commit(repo)
    note(repo, json.dumps(signed_note(repo, sha, item="H-0999")))
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


# -- the chain: hallmarked -> verdict -> run_started (issue 12) --------------------------------------


def _journal(r):
    return discover(r.main).item_journal(r.item)


def test_a_hallmarked_line_appended_by_hand_is_not_the_loops(repo):
    """The red team's forgery: the item is in review, a `hallmarked` line is printf'd into its journal
    and a note written by hand. The fold accepts the line; the chain finds no run behind it."""
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False, started=False, verdict=False)
    journal.append(_journal(repo), "hallmarked", item=repo.item, actor="assayer", sha=sha, round=1)
    strike(repo, sha, run=None)
    text = message(push_answer(repo))
    assert "is not the loop's" in text and "names no review run" in text


def test_a_hallmarked_line_naming_a_run_that_never_started(repo):
    sha = commit(repo)
    loop_events(repo, sha, started=False)
    strike(repo, sha)
    assert "was never started by Hallmark's runner" in message(push_answer(repo))


def test_a_hallmarked_line_with_no_verdict_from_its_run(repo):
    sha = commit(repo)
    loop_events(repo, sha, verdict=False)
    strike(repo, sha)
    assert f"no approving verdict from its review run {RUN}" in message(push_answer(repo))


def test_a_hallmarked_line_written_by_an_agent(repo):
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False)
    journal.append(_journal(repo), "hallmarked", item=repo.item, actor="agent", sha=sha, round=1, run=RUN)
    strike(repo, sha)
    assert "written by 'agent', not by the assayer" in message(push_answer(repo))


def test_a_note_naming_another_run(repo):
    sha = commit(repo)
    loop_events(repo, sha)
    strike(repo, sha, run="20261201T000000000Z-review.jsonl")
    assert "names run" in message(push_answer(repo))


def test_a_stand_in_hallmark_opens_no_gate_outside_a_demo(repo):
    sha = commit(repo)
    loop_events(repo, sha, standin=True)
    strike(repo, sha, standin=True)
    text = message(push_answer(repo))
    assert "stand-in model" in text and "hall demo" in text


def test_the_runner_s_record_alone_marks_a_stand_in_run(repo):
    """Even when the verdict and note say nothing, a run the runner recorded as the stand-in's counts."""
    sha = commit(repo)
    path = _journal(repo)
    journal.append(path, "ready", item=repo.item, actor="you", sha=sha, round=1)
    journal.append(path, "checks_passed", item=repo.item, actor="assayer", sha=sha)
    journal.append(path, "run_started", item=repo.item, actor="assayer (stand-in)", run=RUN, role="review", model="")
    journal.append(path, "verdict", item=repo.item, actor="assayer", sha=sha, decision="approve", run=RUN)
    journal.append(path, "hallmarked", item=repo.item, actor="assayer", sha=sha, run=RUN)
    strike(repo, sha)
    assert "stand-in model" in message(push_answer(repo))


def test_a_stand_in_hallmark_counts_in_a_repo_that_runs_the_stand_in(tmp_path):
    repo = make_repo(tmp_path)
    config = repo.main / ".hallmark.toml"
    config.write_text(config.read_text() + '\n[runner]\nclaude = "hall-standin-claude"\n')
    sha = commit(repo)
    loop_events(repo, sha, standin=True)
    strike(repo, sha, standin=True)
    verdict = hallmark.check(str(repo.wt), discover(repo.main))
    assert verdict.ok and verdict.standin, verdict


def _override(repo, sha: str, *, signed: bool) -> None:
    """A person's `hall verdict` override: the verdict line signed by this machine's key (person_cap)."""
    from gatehelp import _environ
    from hallmark.core import person_cap

    path = _journal(repo)
    fields = {"sha": sha, "decision": "approve", "human_override": True, "model": "human override", "run": None}
    line = journal.make_event("verdict", repo.item, "you", fields)
    if signed:
        with _environ(repo.env):  # the key of the repo's own data dir, the one `hall init` trusted
            person_cap.seal(line, discover(repo.main))
    with journal.locked(path):
        journal.append_unlocked(path, line)
    journal.append(path, "hallmarked", item=repo.item, actor="you", sha=sha, round=1, run=None, human_override=True)


def test_a_person_s_override_is_a_hallmark(repo):
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False, started=False, verdict=False)
    _override(repo, sha, signed=True)
    strike(repo, sha, run=None)
    assert push_answer(repo) is None


def test_an_unsigned_person_override_is_no_hallmark(repo):
    """The red team's S15: a person-override chain appended by hand (no cap) stands behind nothing."""
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False, started=False, verdict=False)
    _override(repo, sha, signed=False)
    strike(repo, sha, run=None)
    assert "no verdict of theirs" in message(push_answer(repo))


def test_an_override_line_with_no_verdict_of_the_person(repo):
    sha = commit(repo)
    loop_events(repo, sha, hallmarked=False, started=False, verdict=False)
    journal.append(_journal(repo), "hallmarked", item=repo.item, actor="you", sha=sha, round=1)
    strike(repo, sha, run=None)
    assert "no verdict of theirs" in message(push_answer(repo))


@pytest.mark.parametrize(
    ("carrier", "denied"), [("assayer", "carried by 'assayer', not by the shipper"), ("shipper", None)]
)
def test_only_the_shipper_carries_an_approval(repo, carrier, denied):
    first = commit(repo, "a.py")
    loop_events(repo, first)
    strike(repo, first)
    second = commit(repo, "b.py")
    journal.append(_journal(repo), "rebased", item=repo.item, actor=carrier, sha=second, previous=first, carried=True)
    strike(repo, second, actor="carried", carried_from=first)
    answer = push_answer(repo)
    assert (answer is None) if denied is None else (denied in message(answer))


def test_check_revs_checks_every_commit_in_one_read(repo):
    first = commit(repo, "a.py")
    loop_events(repo, first)
    strike(repo, first)
    paths = discover(repo.main)
    assert hallmark.check_revs(str(repo.wt), [first, "HEAD"], paths).ok
    assert not hallmark.check_revs(str(repo.wt), ["main"], paths).ok
    assert "does not name a commit" in hallmark.check_revs(str(repo.wt), ["nosuchbranch"], paths).reason
    assert "does not name a commit" in hallmark.check_revs(str(repo.wt), ["--output=/tmp/x"], paths).reason


def test_the_stand_in_names_agree_with_the_runner():
    from hallmark.core.runner import command, spawn

    assert hallmark.STANDIN_MODEL == spawn.STANDIN_MODEL
    assert hallmark.STANDIN_COMMANDS == command.STANDIN_COMMANDS
    assert hallmark.STANDIN_LABEL == spawn.STANDIN_LABEL
