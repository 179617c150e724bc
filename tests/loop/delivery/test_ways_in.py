"""Ways in from GitHub: `hall new --issue <n>` makes the item from the issue, and its PR closes it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hallmark.core import items, states
from hallmark.core.loop import daemon

SHIP = "git push -q -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}"


def test_new_from_an_issue_takes_its_title_and_body_and_the_pr_closes_it(loop_repo, github, hall, kit, scenario):
    path = loop_repo.root / ".hallmark.toml"
    path.write_text(re.sub(r"^ship = .*$", "ship = " + json.dumps(SHIP), path.read_text(), flags=re.M))
    github.issues[7] = {"title": "Add mul", "body": "We need multiplication for the invoice totals."}
    made = hall("new", "--issue", "7", cwd=loop_repo.root)
    assert made.code == 0, made.stdout
    item_id = made.json["item"]
    repo = kit.reopen(loop_repo)
    view = items.fold_item(repo, item_id)
    assert view.title == "Add mul" and "invoice totals" in view.request
    (linked,) = kit.events(repo, item_id, "issue_linked")
    assert linked["issue"] == 7 and linked["url"].endswith("/issues/7")
    wt = Path(view.worktree)
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    kit.git(wt, "add", "-A")
    kit.git(wt, "commit", "-q", "-m", "mul")
    scenario({"review": [kit.approve()]})
    items.ready(repo, item_id)
    for _ in range(6):
        daemon.pass_repo(repo, "t")
        if items.fold_item(repo, item_id).state == states.CLOSED:
            break
    assert "Closes #7" in github.prs[1].body and "invoice totals" in github.prs[1].body


def test_an_issue_github_cannot_give_makes_no_item(loop_repo, github, hall, kit):
    github.down = True
    made = hall("new", "--issue", "7", cwd=loop_repo.root)
    assert made.code == 1 and made.json["error"]["code"] == "GH_UNAVAILABLE"
    assert kit.reopen(loop_repo).index.items() == []


def test_adopt_a_persons_pr_and_its_ship_updates_that_pr(loop_repo, github, hall, kit, scenario, sg, tmp_path):
    path = loop_repo.root / ".hallmark.toml"
    path.write_text(re.sub(r"^ship = .*$", "ship = " + json.dumps(SHIP), path.read_text(), flags=re.M))
    root = loop_repo.root
    kit.git(root, "checkout", "-q", "-b", "feature")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "bob's start")
    kit.git(root, "push", "-q", "--no-verify", "origin", "feature")
    kit.git(root, "checkout", "-q", "main")
    kit.git(root, "branch", "-q", "-D", "feature")
    github.prs[5] = sg.PullRequest(5, "Bob's feature", "bob's words", "feature", "main", author="bob")
    github.next_number = 6
    made = hall("adopt", "--pr", "5", cwd=root)
    assert made.code == 0, made.stdout
    item_id = made.json["item"]
    repo = kit.reopen(loop_repo)
    view = items.fold_item(repo, item_id)
    assert view.branch == "feature" and view.title == "Bob's feature"
    wt = Path(view.worktree)
    assert wt.name.endswith("-pr-5") and (wt / "app.py").exists()
    (adopted,) = kit.events(repo, item_id, "pr_adopted")
    assert adopted["number"] == 5 and adopted["head"] == github.head_sha("feature")
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    kit.git(wt, "commit", "-q", "-am", "mul")
    scenario({"review": [kit.approve()]})
    items.ready(repo, item_id)
    for _ in range(6):
        daemon.pass_repo(repo, "t")
        if items.fold_item(repo, item_id).state == states.CLOSED or items.fold_item(repo, item_id).hold:
            break
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED, (view.hold, view.hold_reason)
    assert view.pr.endswith("/pull/5") and list(github.prs) == [5] and github.called("PullRequestCreate") == []
    assert github.head_sha("feature") == view.hallmark_sha and kit.events(repo, item_id, "pr_updated")
    assert "## What" in github.prs[5].body and github.prs[5].comments  # the review is on bob's PR
