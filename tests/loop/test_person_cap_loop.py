"""The loop acts only on a person's signed decisions (issue 21 part 2), end to end with the stand-in.

Before the cap, an agent appending a `ready` line (or copying a signed one from another item) had
the daemon check, review, strike and ship its commit. Now the item stays where it is, a notice says
what the line is, and the person's own `ready` still takes it all the way.
"""

from __future__ import annotations

import shutil

import pytest
from hallmark.core import inbox, items, journal, states

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")


def _agent_item(repo, kit, title: str) -> tuple[str, str]:
    from pathlib import Path

    created = items.new(repo, title=title)
    wt = Path(created["worktree"])
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    kit.git(wt, "add", "-A")
    kit.git(wt, "commit", "-q", "-m", title)
    return created["item"], kit.git(wt, "rev-parse", "HEAD")


def test_a_copied_ready_is_not_worked_and_the_persons_own_ready_ships(loop_repo, ready_item, scenario, kit):
    scenario({"review": [kit.approve("clean"), kit.approve("clean")]})
    signed_id = ready_item(title="the person's")
    target, sha = _agent_item(loop_repo, kit, "the agent's")
    signed = kit.events(loop_repo, signed_id, "ready")[-1]
    forged = {**signed, "item": target, "sha": sha}  # the red team's copied person line
    journal.append_unlocked(loop_repo.paths.item_journal(target), forged)
    assert items.fold_item(loop_repo, target).state == states.CHECKS

    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, signed_id).state == states.CLOSED  # the signed one went all the way
    after = kit.events(loop_repo, target)
    assert [e["event"] for e in after if e["event"] in ("checks_passed", "hallmarked", "shipped")] == []
    notices = [e for e in after if e["event"] == "notice" and e.get("kind") == "unsigned_decision"]
    assert len(notices) == 1 and "an agent's attempt" in notices[0]["text"]
    assert any("an agent's attempt" in n.text for n in inbox.notices(loop_repo))
    kit.run_loop(loop_repo)  # a second pass says it once
    assert len([e for e in kit.events(loop_repo, target) if e.get("kind") == "unsigned_decision"]) == 1
    assert kit.git(loop_repo.bare, "branch", "--list").count("\n") == 1  # only the person's item reached it

    # the person decides: their own `ready` (signed) counts, though the fold says checks already
    items.ready(loop_repo, target)
    kit.run_loop(loop_repo)
    assert items.fold_item(loop_repo, target).state == states.CLOSED


def test_an_unsigned_retry_does_not_release_a_hold(loop_repo, ready_item, kit):
    item_id = ready_item()
    items.record(loop_repo, item_id, "held", actor="assayer", kind="checks", reason="held for the test")
    line = journal.make_event("retried", item_id, "you", {"reason": "let me through"})
    journal.append_unlocked(loop_repo.paths.item_journal(item_id), line)
    view = items.fold_item(loop_repo, item_id)
    assert not view.hold  # the fold releases it, as it did
    kit.run_loop(loop_repo)
    assert not kit.events(loop_repo, item_id, "checks_passed")
    items.retry(loop_repo, item_id, reason="the person's own")
    kit.run_loop(loop_repo)
    assert kit.events(loop_repo, item_id, "checks_passed")
