"""The Delivery Office against the scripted GitHub: it watches each shipped PR until it merges."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from hallmark.core import items, states
from hallmark.core.delivery import view as delivery_view
from hallmark.core.delivery import watch
from hallmark.core.loop import daemon

T0 = time.time() + 3600  # later than the daemon passes that shipped the item (they asked GitHub too)
SHIP = "git push -q -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}"


def _shipped(loop_repo, ready_item, scenario, kit, interval: str = "1s") -> tuple[object, str]:
    path = loop_repo.root / ".hallmark.toml"
    text = re.sub(r"^ship = .*$", "ship = " + __import__("json").dumps(SHIP), path.read_text(), flags=re.M)
    path.write_text(text + f'[delivery]\ninterval = "{interval}"\n')
    repo = kit.reopen(loop_repo)
    scenario({"review": [kit.approve("fine")]})
    item_id = ready_item()
    for _ in range(6):
        daemon.pass_repo(repo, "t")
        if items.fold_item(repo, item_id).state == states.CLOSED:
            return repo, item_id
    raise AssertionError(items.fold_item(repo, item_id))


def _view(repo, item_id):
    return delivery_view.fold(items.item_events(repo, item_id))


def test_the_office_records_what_changed_and_only_that(loop_repo, github, ready_item, scenario, kit, sg, hall):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    pr = github.prs[1]
    pr.checks = [{"name": "tests", "status": "IN_PROGRESS", "conclusion": ""}]
    (step,) = watch.watch(repo, now=T0 + 1000.0)
    assert step["outcome"] == "pr_status" and "ci" in step["changed"]
    seen = _view(repo, item_id)
    assert seen.state == "OPEN" and seen.ci == "pending" and seen.mergeable == "MERGEABLE" and not seen.is_green()
    assert watch.watch(repo, now=T0 + 1000.5) == []  # the interval has not passed: GitHub is not asked
    assert watch.watch(repo, now=T0 + 1002.0)[0]["changed"] == []  # asked, nothing changed, nothing recorded
    assert len(kit.events(repo, item_id, "pr_status")) == 2  # the daemon's first look, then pending
    # the world changes between passes: the check goes red, a reviewer opens a thread, the base moves
    pr.checks = [{"name": "tests", "status": "COMPLETED", "conclusion": "FAILURE"}]
    pr.threads.append(sg.Thread("T_1", "alice", "please name this better", "app.py", 5))
    pr.mergeable, pr.merge_state = "CONFLICTING", "DIRTY"
    (step,) = watch.watch(repo, now=T0 + 1004.0)
    assert set(step["changed"]) >= {"ci", "failing", "threads", "mergeable"}
    last = kit.events(repo, item_id, "pr_status")[-1]
    assert last["threads"][0] | {"id": "T_1"} == last["threads"][0]
    assert last["threads"][0]["author"] == "alice" and last["threads"][0]["path"] == "app.py"
    seen = _view(repo, item_id)
    assert seen.ci == "failing" and seen.failing == ["tests"] and seen.open_threads == 1
    assert seen.mergeable == "CONFLICTING" and not seen.is_green()
    status = hall("status", item_id, cwd=repo.root)
    assert status.code == 0 and status.json["delivery"]["ci"] == "failing"
    assert "CI failing (tests)" in status.json["delivery"]["line"]
    # every request the office made is one the scripted GitHub knows
    ops = {r["op"] for r in github.requests}
    assert {"PullRequestByNumber", "HallmarkReviewThreads"} <= ops


def test_github_unreachable_is_gh_unavailable_said_once_and_never_green(
    loop_repo, github, ready_item, scenario, kit, hall
):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    github.prs[1].checks = [{"name": "tests"}]
    watch.watch(repo, now=T0 + 1000.0)
    assert _view(repo, item_id).is_green()
    github.down = True
    (step,) = watch.watch(repo, now=T0 + 1002.0)
    assert step["outcome"] == "GH_UNAVAILABLE"
    watch.watch(repo, now=T0 + 1004.0)
    assert len(kit.events(repo, item_id, "gh_unavailable")) == 1  # once per outage
    seen = _view(repo, item_id)
    assert seen.state == "GH_UNAVAILABLE" and seen.ci == "unknown" and not seen.is_green()
    assert "GH_UNAVAILABLE" in hall("status", item_id, cwd=repo.root).json["delivery"]["line"]
    github.down = False
    watch.watch(repo, now=T0 + 1006.0)
    assert _view(repo, item_id).is_green()  # back: the current answer is recorded again


def test_a_merged_pr_is_delivered_and_its_worktree_removed(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    wt = Path(items.fold_item(repo, item_id).worktree)
    watch.watch(repo, now=T0 + 1000.0)
    assert wt.is_dir()  # the PR is open: the worktree stays for the office
    github.prs[1].state = "MERGED"  # a squash merge: nothing in git says so, only GitHub's state
    (step,) = watch.watch(repo, now=T0 + 1002.0)
    assert step["outcome"] == "delivered" and step["worktree_removed"] is True
    assert not wt.exists() and kit.events(repo, item_id, "worktree_removed")
    (delivered,) = kit.events(repo, item_id, "delivered")
    assert delivered["state"] == "MERGED" and _view(repo, item_id).delivered
    assert watch.watch(repo, now=T0 + 1010.0) == []  # delivered: never asked again
    branch = items.fold_item(repo, item_id).branch
    assert kit.git(repo.root, "branch", "--list", branch)  # the branch stays


def test_a_dirty_worktree_of_a_closed_pr_is_kept_and_said_once(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    wt = Path(items.fold_item(repo, item_id).worktree)
    (wt / "app.py").write_text("# a person's edit, not committed\n")
    github.prs[1].state = "CLOSED"
    (step,) = watch.watch(repo, now=T0 + 1000.0)
    assert (
        step["outcome"] == "delivered" and step["worktree_removed"] is False and "uncommitted" in step["worktree_kept"]
    )
    watch.watch(repo, now=T0 + 1002.0)
    watch.watch(repo, now=T0 + 1004.0)
    kept = [e for e in kit.events(repo, item_id, "notice") if e.get("kind") == "worktree_kept"]
    assert len(kept) == 1 and (wt / "app.py").read_text() == "# a person's edit, not committed\n"
    subprocess.run(["git", "checkout", "--", "app.py"], cwd=wt, check=True)  # the person cleans up
    (step,) = watch.watch(repo, now=T0 + 1006.0)
    assert step["outcome"] == "swept" and step["worktree_removed"] is True and not wt.exists()


def test_the_daemon_runs_the_office_and_watch_false_turns_it_off(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    github.prs[1].state = "MERGED"
    path = repo.root / ".hallmark.toml"
    path.write_text(path.read_text() + "watch = false\n")
    off = kit.reopen(repo)
    assert [
        s for s in daemon.pass_repo(off, "t") if s.get("step") == "delivery" or s.get("outcome") == "delivered"
    ] == []
    path.write_text(path.read_text().replace("watch = false\n", ""))
    on = kit.reopen(repo)
    time.sleep(1.1)  # the interval (1s) since the shipping passes asked
    daemon.pass_repo(on, "t")
    assert kit.events(on, item_id, "delivered")


def test_a_merged_prs_worktree_holding_an_ignored_file_is_kept(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    wt = Path(items.fold_item(repo, item_id).worktree)
    exclude = Path(kit.git(repo.root, "rev-parse", "--git-common-dir"))
    exclude = (exclude if exclude.is_absolute() else repo.root / exclude) / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("build/\n")
    (wt / "build").mkdir()
    (wt / "build" / "notes.txt").write_text("a person's local notes, git-ignored\n")
    github.prs[1].state = "MERGED"
    (step,) = watch.watch(repo, now=T0)
    assert step["outcome"] == "delivered" and step["worktree_removed"] is False
    assert (wt / "build" / "notes.txt").exists()
