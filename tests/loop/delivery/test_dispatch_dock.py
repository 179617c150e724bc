"""The Dispatch Dock against the scripted GitHub: a real PR, its body, the reviews as comments."""

from __future__ import annotations

import re
from pathlib import Path

from hallmark.core import items, states
from hallmark.core.loop import daemon, ship

SHIP = "git push -q -u origin {branch} && gh pr create --base {base} --head {branch} --title {title} --body-file {body_file}"


def _use_gh(repo) -> None:
    """The repo's config ships with the default gh command (the loop fixture's pushes only)."""
    path = repo.root / ".hallmark.toml"
    text = re.sub(r"^ship = .*$", "ship = " + __import__("json").dumps(SHIP), path.read_text(), flags=re.M)
    path.write_text(text)


def _hallmarked(repo, ready_item, scenario, kit, reviews=None) -> str:
    scenario({"review": reviews or [kit.approve("mul is right and tested")]})
    item_id = ready_item()
    for _ in range(6):
        daemon.pass_repo(repo, "t")
        if items.fold_item(repo, item_id).state == states.HALLMARKED:
            return item_id
    raise AssertionError(items.fold_item(repo, item_id))


def _passes(repo, item_id: str, n: int = 6) -> None:
    """Daemon passes until the item closes, is held, or n passes went by."""
    for _ in range(n):
        daemon.pass_repo(repo, "t")
        view = items.fold_item(repo, item_id)
        if view.state == states.CLOSED or view.hold:
            return


def test_ship_opens_one_pr_with_what_why_how_and_the_hallmark(loop_repo, github, ready_item, scenario, kit):
    _use_gh(loop_repo)
    repo = kit.reopen(loop_repo)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "shipped", result
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED and view.pr == "https://localhost/acme/remote/pull/1"
    (pr,) = github.prs.values()
    assert pr.head == view.branch and pr.base == "main" and pr.title == "Add mul"
    for part in ("## What", "## Why", "## How", "mul is right and tested", f"Hallmark: {view.hallmark_sha}", item_id):
        assert part in pr.body, part
    (opened,) = kit.events(repo, item_id, "pr_opened")
    assert opened["number"] == 1 and opened["pr"] == view.pr
    # the review is a comment the server received, and its URL (read back) is recorded
    (comment,) = pr.comments
    assert "mul is right and tested" in comment["body"] and "approve" in comment["body"]
    (posted,) = kit.events(repo, item_id, "review_posted")
    assert posted["url"] == comment["url"] and result["reviews_posted"] == [comment["url"]]
    assert len(github.called("PullRequestCreate")) == 1


def test_a_review_post_that_silently_did_nothing_is_a_failure(loop_repo, github, ready_item, scenario, kit):
    _use_gh(loop_repo)
    repo = kit.reopen(loop_repo)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    github.drop_comments = True  # gh pr comment exits 0, and GitHub keeps nothing
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "shipped" and result["reviews_posted"] == []
    assert "shows no such comment" in result["review_comment_failed"][0]
    assert kit.events(repo, item_id, "review_posted") == []
    (notice,) = [e for e in kit.events(repo, item_id, "notice") if e.get("kind") == "review_comment_failed"]
    assert "review 1" in notice["text"]


def test_a_reopened_item_updates_its_pr_instead_of_opening_another(loop_repo, github, ready_item, scenario, kit):
    _use_gh(loop_repo)
    repo = kit.reopen(loop_repo)
    scenario({"review": [kit.approve("first"), kit.approve("second")]})
    item_id = ready_item()
    _passes(repo, item_id)
    first = items.fold_item(repo, item_id)
    assert first.state == states.CLOSED and first.pr
    items.transition(repo, item_id, "reopened", actor="delivery", reason="a reviewer asked for a docstring")
    wt = Path(first.worktree)
    (wt / "app.py").write_text((wt / "app.py").read_text() + '\n\n"""Arithmetic."""\n')
    kit.git(wt, "commit", "-q", "-am", "docstring")
    items.ready(repo, item_id)
    _passes(repo, item_id)
    again = items.fold_item(repo, item_id)
    assert again.state == states.CLOSED and again.pr == first.pr, (
        again.hold,
        again.hold_reason,
        [(r["op"], r.get("query", "")[:600]) for r in github.requests[-4:]],
    )
    assert len(github.prs) == 1 and len(github.called("PullRequestCreate")) == 1
    (updated,) = kit.events(repo, item_id, "pr_updated")
    assert updated["number"] == 1 and updated["sha"] == again.hallmark_sha
    assert github.head_sha(again.branch) == again.hallmark_sha
    assert f"Hallmark: {again.hallmark_sha}" in github.prs[1].body
    assert [c["body"].count("Hallmark review") for c in github.prs[1].comments] == [1, 1]


def test_an_update_never_overwrites_a_persons_push(loop_repo, github, ready_item, scenario, kit, tmp_path):
    _use_gh(loop_repo)
    repo = kit.reopen(loop_repo)
    scenario({"review": [kit.approve("first"), kit.approve("second")]})
    item_id = ready_item()
    _passes(repo, item_id)
    first = items.fold_item(repo, item_id)
    other = tmp_path / "person"
    kit.git(tmp_path, "clone", "-q", str(loop_repo.bare), str(other))
    kit.git(other, "checkout", "-q", first.branch)
    (other / "theirs.txt").write_text("a person's commit\n")
    kit.git(other, "add", "-A")
    kit.git(other, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-q", "-m", "theirs")
    kit.git(other, "push", "-q", "--no-verify", "origin", first.branch)
    theirs = kit.git(other, "rev-parse", "HEAD")
    items.transition(repo, item_id, "reopened", actor="delivery", reason="r")
    wt = Path(first.worktree)
    kit.git(wt, "commit", "-q", "--allow-empty", "-m", "mine")
    (wt / "mine.txt").write_text("mine\n")
    kit.git(wt, "add", "-A")
    kit.git(wt, "commit", "-q", "--amend", "-m", "mine")
    items.ready(repo, item_id)
    _passes(repo, item_id)
    view = items.fold_item(repo, item_id)
    assert view.hold == "ship_failed" and github.head_sha(first.branch) == theirs
