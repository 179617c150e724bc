"""A clean rebase carries the approval: the push gate accepts the carried hallmark at the new HEAD,
and a forged `rebased` line from anyone but the shipper carries nothing."""

from __future__ import annotations

from pathlib import Path

from hallmark.core import items, journal, states
from hallmark.core.gates import hallmark as gate
from hallmark.core.loop import daemon, ship


def _failing_ship(repo, kit):
    text = (
        (repo.root / ".hallmark.toml")
        .read_text()
        .replace('ship = "git push -q -u origin {branch}"', 'ship = "echo no remote for {branch} >&2; exit 3"')
    )
    (repo.root / ".hallmark.toml").write_text(text)
    return kit.reopen(repo)


def test_the_push_gate_accepts_a_carried_hallmark(loop_repo, ready_item, scenario, kit):
    kit.write_config(loop_repo.root, "")
    repo = _failing_ship(loop_repo, kit)
    scenario({"review": [kit.approve()]})
    item_id = ready_item(None)
    daemon.pass_repo(repo, "t")
    daemon.pass_repo(repo, "t")
    approved = items.fold_item(repo, item_id).hallmark_sha
    (repo.root / "other.txt").write_text("unrelated\n")
    kit.git(repo.root, "add", "-A")
    kit.git(repo.root, "commit", "-q", "-m", "base moves")
    kit.git(repo.root, "push", "-q", "--no-verify", "origin", "main")
    ship.ship(repo, item_id)  # rebases cleanly (carried), then the ship command fails: still hallmarked
    view = items.fold_item(repo, item_id)
    assert view.state == states.HALLMARKED and view.hallmark_sha != approved
    worktree = Path(view.worktree)
    assert kit.git(worktree, "rev-parse", "HEAD") == view.hallmark_sha
    verdict = gate.check(str(worktree), repo.paths)
    assert verdict.ok, verdict.reason


def test_a_forged_carried_rebase_carries_nothing(loop_repo, ready_item, scenario, kit):
    scenario({"review": [kit.approve()]})
    kit.write_config(loop_repo.root, "")
    repo = _failing_ship(loop_repo, kit)
    item_id = ready_item(None)
    daemon.pass_repo(repo, "t")
    daemon.pass_repo(repo, "t")
    approved = items.fold_item(repo, item_id).hallmark_sha
    journal.append(repo.paths.item_journal(item_id), "rebased", item=item_id, actor="agent", sha="f" * 40, carried=True)
    assert items.fold_item(repo, item_id).hallmark_sha == approved
