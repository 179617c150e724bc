"""Reopen and address: red CI, review threads and conflicts send a shipped item back, said exactly."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from hallmark.core import inbox, items, states
from hallmark.core.delivery import watch
from hallmark.core.loop import daemon

T0 = time.time() + 3600
SHIP = "git push -q -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}"


def _shipped(loop_repo, ready_item, scenario, kit, reviews: int = 1):
    path = loop_repo.root / ".hallmark.toml"
    text = re.sub(r"^ship = .*$", "ship = " + json.dumps(SHIP), path.read_text(), flags=re.M)
    path.write_text(text + '[delivery]\ninterval = "1s"\n')
    repo = kit.reopen(loop_repo)
    scenario({"review": [kit.approve(f"review {n}") for n in range(reviews)]})
    item_id = ready_item()
    _until_closed(repo, item_id)
    return repo, item_id


def _until_closed(repo, item_id: str) -> None:
    for _ in range(6):
        daemon.pass_repo(repo, "t")
        view = items.fold_item(repo, item_id)
        if view.state == states.CLOSED or view.hold:
            return


def test_red_ci_reopens_with_the_failing_log_and_a_passing_rerun_restores(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    github.prs[1].checks = [
        {"name": "tests", "conclusion": "FAILURE", "run": 42, "log": "FAILED test_app.py::t - boom\n"}
    ]
    (step,) = watch.watch(repo, now=T0)
    assert step["outcome"] == "reopened" and step["reopened"] == "ci_failed"
    view = items.fold_item(repo, item_id)
    assert view.state == states.DEVELOPMENT and view.hold == "ci_failed" and "tests" in view.hold_reason
    log = repo.paths.item_dir(item_id) / "ci-run-42.log"
    assert "FAILED test_app.py::t - boom" in log.read_text() and str(log) in view.hold_reason
    (entry,) = [e for e in inbox.report(repo)["entries"] if e["item"] == item_id]
    assert entry["kind"] == "ci_failed"
    # the re-run passes, nothing changed: back to closed, no run, no new review
    github.prs[1].checks = [{"name": "tests", "conclusion": "SUCCESS", "run": 43}]
    (step,) = watch.watch(repo, now=T0 + 2)
    assert step["outcome"] == "restored"
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED and not view.hold


def test_a_reviewers_thread_reopens_then_the_update_resolves_it(loop_repo, github, ready_item, scenario, kit, sg):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit, reviews=2)
    github.prs[1].threads.append(sg.Thread("T_1", "alice", "mul needs a docstring", "app.py", 5))
    (step,) = watch.watch(repo, now=T0)
    assert step["reopened"] == "feedback"
    view = items.fold_item(repo, item_id)
    assert view.hold == "feedback" and "alice on app.py:5: mul needs a docstring" in view.hold_reason
    assert watch.watch(repo, now=T0 + 2) == [] or items.fold_item(repo, item_id).hold == "feedback"
    wt = Path(view.worktree)
    (wt / "app.py").write_text((wt / "app.py").read_text() + '\n\n"""Arithmetic."""\n')
    kit.git(wt, "commit", "-q", "-am", "docstring, as alice asked")
    items.ready(repo, item_id)
    _until_closed(repo, item_id)
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED and len(github.prs) == 1
    assert github.prs[1].threads[0].resolved and kit.events(repo, item_id, "thread_resolved")
    assert github.head_sha(view.branch) == view.hallmark_sha
    # the thread it answered is not new feedback again
    (step,) = watch.watch(repo, now=T0 + 10)
    assert step["outcome"] == "pr_status" and items.fold_item(repo, item_id).state == states.CLOSED


def test_a_conflicting_pr_reopens_with_the_rebase_steps(loop_repo, github, ready_item, scenario, kit):
    repo, item_id = _shipped(loop_repo, ready_item, scenario, kit)
    github.prs[1].mergeable, github.prs[1].merge_state = "CONFLICTING", "DIRTY"
    (step,) = watch.watch(repo, now=T0)
    assert step["reopened"] == "conflict"
    view = items.fold_item(repo, item_id)
    assert view.state == states.DEVELOPMENT and view.hold == "conflict"
    assert view.hold_next[-1] == f"hall ready {item_id}" and "rebase origin/main" in view.hold_next[1]
