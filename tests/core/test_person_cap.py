"""Person decisions by capability (issue 21 part 2): real repos, real ssh-keygen, real `hall` processes.

A process that removed CLAUDECODE/HALL_SESSION_ID passes the environment check; what it cannot do
is sign with this machine's key. Each attack here ran successfully on the code before the cap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hallmark.core import items, journal, person_cap, questions, signers, stamp_key, states
from hallmark.core.loop import budget

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _item(repo, title: str = "Add mul") -> tuple[str, Path]:
    created = items.new(repo, title=title)
    wt = Path(created["worktree"])
    (wt / "app.py").write_text(f"def add(a, b):\n    return a + b\n# {title}\n")
    git(wt, "add", "-A")
    git(wt, "commit", "-q", "-m", title)
    return created["item"], wt


def _agent_env(tmp_path: Path, how: str) -> dict[str, str]:
    """An agent's shell after `env -u CLAUDECODE -u HALL_SESSION_ID`: no agent variable at all, and
    no readable key: the data dir denied (chmod 000, as the sandbox denies it) or a fresh data dir
    (whose key ensure_key makes, and which no local list trusts)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "HALL_SESSION_ID", "HALL_ACTOR")}
    if how == "fresh":
        env["HALLMARK_DATA_DIR"] = str(tmp_path / "agent-data")
    return env


@pytest.fixture
def person_key(hall_repo):
    """The person's key, made and trusted locally (what `hall init`/the first decision does)."""
    return stamp_key.ensure_signer(hall_repo.paths)


def _run_hall(hall, repo, env, how, *args):
    """`hall` as the agent runs it; "denied": in bubblewrap with the key directory hidden behind an
    empty read-only mount, the way every sandbox profile denies it (chmod 000 stops no root)."""
    if how != "denied":
        return hall(*args, cwd=repo.root, env=env)
    from hallmark.core import signing

    keys = str(signing.key_dir())
    wrapped = ["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", keys, "--remount-ro", keys]
    proc = subprocess.run(
        [shutil.which("bwrap") or "bwrap", *wrapped, str(Path(shutil.which("hall") or "hall")), *args],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return type("R", (), {"code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr})()


def _bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    probe = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def test_a_persons_ready_carries_a_cap_that_verifies_and_is_cached(hall_repo, person_key):
    item_id, _wt = _item(hall_repo)
    items.ready(hall_repo, item_id)
    ready = [e for e in items.item_events(hall_repo, item_id) if e["event"] == "ready"][-1]
    assert ready["cap"]["signer"] == person_key.principal
    assert ready["cap"]["sig"].startswith("-----BEGIN SSH SIGNATURE-----")
    started = time.perf_counter()
    assert person_cap.why_not(ready, hall_repo.paths) is None
    first = time.perf_counter() - started
    assert list((hall_repo.paths.state_dir / person_cap.CACHE_DIR).rglob("*.ok"))
    started = time.perf_counter()
    for _ in range(50):
        assert person_cap.counts(ready, hall_repo.paths)
    cached = (time.perf_counter() - started) / 50
    assert cached < first  # a stat, not an ssh-keygen call


@pytest.mark.parametrize(
    "field,value", [("item", "H-0099"), ("sha", "0" * 40), ("round", 7), ("t", "2030-01-01T00:00:00Z")]
)
def test_the_cap_covers_item_sha_round_and_time(hall_repo, person_key, field, value):
    item_id, _wt = _item(hall_repo)
    items.ready(hall_repo, item_id)
    ready = dict([e for e in items.item_events(hall_repo, item_id) if e["event"] == "ready"][-1])
    ready[field] = value
    assert person_cap.why_not(ready, hall_repo.paths) is not None


def test_a_copied_signed_ready_on_another_item_counts_for_nothing(hall_repo, person_key):
    """The red team's attack: a signed person line copied from another item's journal."""
    signed_id, _ = _item(hall_repo, "signed one")
    items.ready(hall_repo, signed_id)
    target_id, target_wt = _item(hall_repo, "agent's own")
    signed = [e for e in items.item_events(hall_repo, signed_id) if e["event"] == "ready"][-1]
    forged = {**signed, "item": target_id, "sha": git(target_wt, "rev-parse", "HEAD")}
    journal.append_unlocked(hall_repo.paths.item_journal(target_id), forged)
    events = items.item_events(hall_repo, target_id)
    view = states.fold(target_id, events)
    assert view.state == states.CHECKS  # the fold moves, as it did
    why = person_cap.loop_attempt(hall_repo.paths, events, view, auto_ready=False)
    assert why and "an agent's attempt" in why and "`ready`" in why
    # a verbatim replay of the item's own ready after a pull-back is stale, not a new decision
    items.pull_back(hall_repo, signed_id)
    journal.append_unlocked(hall_repo.paths.item_journal(signed_id), dict(signed))
    again = items.item_events(hall_repo, signed_id)
    assert "a replayed" in (
        person_cap.loop_attempt(hall_repo.paths, again, states.fold(signed_id, again), auto_ready=False) or ""
    )


def test_an_unsigned_ready_written_by_hand_stalls_the_item_and_says_so(hall_repo, person_key):
    item_id, wt = _item(hall_repo)
    line = journal.make_event("ready", item_id, "you", {"sha": git(wt, "rev-parse", "HEAD"), "round": 1})
    journal.append_unlocked(hall_repo.paths.item_journal(item_id), line)
    status = items.status_all(hall_repo)
    assert any("unsigned `ready` by you" in w for w in status.warnings or [])
    from hallmark.core import doctor

    row = next(c for c in doctor.run(hall_repo.root).checks if c.check == "decisions")
    assert not row.ok and "an agent's attempt: unsigned `ready`" in row.detail


@pytest.mark.parametrize("how", ["fresh", "denied"])
def test_an_agent_without_the_key_records_no_ready_grant_or_answer(hall_repo, person_key, hall, tmp_path, how):
    if how == "denied" and not _bwrap_works():
        pytest.skip("bubblewrap cannot run here, so no sandbox can hide the key")
    item_id, _wt = _item(hall_repo)
    asked = questions.ask(hall_repo, "which way?", item_id=item_id, actor="agent")
    qid = asked.qid
    env = _agent_env(tmp_path, how)
    before = {p: p.read_bytes() for p in hall_repo.paths.state_dir.rglob("*.jsonl")}
    for args in (["ready", item_id], ["budget", "--grant", "1M"], ["answer", qid, "yes"]):
        result = _run_hall(hall, hall_repo, env, how, *args, "--json")
        assert result.code == 5, (args, result.stdout, result.stderr)
        assert json.loads(result.stdout or result.stderr)["error"]["code"] == "GATE_DENIED"
    after = {p: p.read_bytes() for p in hall_repo.paths.state_dir.rglob("*.jsonl")}
    assert after == before  # nothing recorded at all
    assert items.fold_item(hall_repo, item_id).state == states.DEVELOPMENT
    assert budget.granted_today(hall_repo) == 0


def test_forged_grant_and_answer_lines_count_for_nothing_and_the_person_still_decides(hall_repo, person_key):
    item_id, _wt = _item(hall_repo)
    asked = questions.ask(hall_repo, "which way?", item_id=item_id, actor="agent", session="s-1")
    for path, event, fields, item in (
        (hall_repo.paths.repo_journal, "budget_granted", {"day": budget.today(), "tokens": 9_000_000}, None),
        (hall_repo.paths.item_journal(item_id), "answered", {"qid": asked.qid, "answer": "ship it"}, item_id),
    ):
        journal.append_unlocked(path, journal.make_event(event, item, "you", fields))
    hall_repo.index.catch_up()
    assert budget.granted_today(hall_repo) == 0
    entry = hall_repo.index.question(asked.qid)
    assert entry["answered"] and not questions.answer_counts(hall_repo, entry)
    from hallmark.core.loop import resume

    assert asked.qid not in [q["qid"] for q in resume.owed(hall_repo)]
    # the person's own decisions still work: signed, counted
    budget.grant(hall_repo, 1000)
    assert budget.granted_today(hall_repo) == 1000
    questions.answer(hall_repo, asked.qid, "the careful way")
    hall_repo.index.catch_up()
    assert asked.qid in [q["qid"] for q in resume.owed(hall_repo)]


def test_a_persons_grant_in_a_repo_that_trusts_another_key_is_refused(hall_repo, person_key, tmp_path):
    """Trust on first use only: a data dir pointed elsewhere gets a key no list names."""
    text = signers.local_path(hall_repo.paths).read_text()
    signers.local_path(hall_repo.paths).write_text(text.replace(person_key.key, "ssh-ed25519 AAAAnotours"))
    from hallmark.core.errors import HallError

    with pytest.raises(HallError) as refused:
        budget.grant(hall_repo, 1000)
    assert refused.value.code == "GATE_DENIED" and "not one this repository trusts" in refused.value.message
    assert budget.granted_today(hall_repo) == 0


def test_a_copied_person_override_chain_does_not_stand_behind_a_hallmark(hall_repo, person_key):
    """gates/hallmark.chain: a person's verdict override counts only signed for that item and commit."""
    from hallmark.core.gates import hallmark

    item_id, wt = _item(hall_repo, "overridden")
    sha = git(wt, "rev-parse", "HEAD")
    path = hall_repo.paths.item_journal(item_id)
    items.ready(hall_repo, item_id)
    for name, fields in (
        ("verdict", {"sha": sha, "decision": "approve", "human_override": True, "round": 1}),
        ("hallmarked", {"sha": sha, "round": 1}),
    ):
        with journal.locked(path):
            journal.append_unlocked(
                path, person_cap.seal(journal.make_event(name, item_id, "you", fields), hall_repo.paths)
            )
    events = items.item_events(hall_repo, item_id)
    view = states.fold(item_id, [*events[:-1], {**events[-1], "event": "hallmarked"}])
    view.hallmark_chain = [len(events) - 1]
    assert hallmark.chain(view, events, sha, hall_repo.paths)[0] is None
    # the same chain copied to another item (the red team's S15), or stripped of its cap
    other_id, other_wt = _item(hall_repo, "agent's")
    other_sha = git(other_wt, "rev-parse", "HEAD")
    copied = [
        {**e, "item": other_id, "sha": other_sha} if e["event"] in ("verdict", "hallmarked") else e for e in events
    ]
    assert "no verdict of theirs" in (hallmark.chain(view, copied, other_sha, hall_repo.paths)[0] or "")
    unsigned = [{k: v for k, v in e.items() if k != "cap"} for e in events]
    assert "no verdict of theirs" in (hallmark.chain(view, unsigned, sha, hall_repo.paths)[0] or "")


def test_a_dismissal_written_by_hand_hides_nothing_and_the_persons_does(hall_repo, person_key):
    from hallmark.core import inbox

    item_id, _wt = _item(hall_repo)
    questions.ask(hall_repo, "which way?", item_id=item_id, actor="agent")
    hall_repo.index.catch_up()
    [entry] = inbox.visible(hall_repo)
    path = hall_repo.state_dir / "inbox-dismissed.json"
    path.write_text(json.dumps({entry.key: entry.fingerprint}))  # the old format, written by an agent
    assert [e.key for e in inbox.visible(hall_repo)] == [entry.key]
    forged = {"event": "inbox_dismissed", "actor": "you", "t": "x", "key": entry.key, "fingerprint": entry.fingerprint}
    path.write_text(json.dumps({entry.key: forged}))
    assert [e.key for e in inbox.visible(hall_repo)] == [entry.key]
    inbox.dismiss(hall_repo, 1)
    assert inbox.visible(hall_repo) == []
