"""The Dispatch Dock on real repos: rebase onto the moved base, conflicts, a failing ship command, PR links."""

from __future__ import annotations

from pathlib import Path

from hallmark.core import inbox, items, states
from hallmark.core.loop import daemon, review, ship


def _hallmarked(repo, ready_item, scenario, kit, files=None) -> str:
    scenario({"review": [kit.approve()]})
    item_id = ready_item(files)
    daemon.pass_repo(repo, "t")  # checks
    daemon.pass_repo(repo, "t")  # review
    assert items.fold_item(repo, item_id).state == states.HALLMARKED
    return item_id


def _move_base(repo, kit, rel: str, text: str) -> None:
    """Someone else lands a commit on main (pushed to origin)."""
    (repo.root / rel).write_text(text)
    kit.git(repo.root, "add", "-A")
    kit.git(repo.root, "commit", "-q", "-m", f"base moves: {rel}")
    kit.git(repo.root, "push", "-q", "--no-verify", "origin", "main")


def test_a_rebase_that_keeps_the_patch_carries_the_hallmark(loop_repo, ready_item, scenario, kit):
    item_id = _hallmarked(loop_repo, ready_item, scenario, kit)
    approved = items.fold_item(loop_repo, item_id).hallmark_sha
    _move_base(loop_repo, kit, "other.txt", "unrelated\n")
    result = ship.ship(loop_repo, item_id)
    assert result["outcome"] == "shipped" and result["sha"] != approved
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.CLOSED
    note = review.read_note(loop_repo, result["sha"])
    assert note["actor"] == "carried" and note["carried_from"] == approved and note["sha"] == result["sha"]
    rebased = kit.events(loop_repo, item_id, "rebased")[0]
    assert rebased["carried"] is True and rebased["previous"] == approved
    assert kit.git(loop_repo.bare, "rev-parse", view.branch) == result["sha"]
    assert kit.git(loop_repo.bare, "merge-base", "--is-ancestor", "main", view.branch) == ""


def test_a_conflicting_rebase_is_held_for_you_with_the_files_and_steps_that_work(
    loop_repo, ready_item, scenario, kit, hall
):
    item_id = _hallmarked(loop_repo, ready_item, scenario, kit)
    _move_base(loop_repo, kit, "app.py", "def add(a, b):\n    return b + a  # changed on main\n")
    result = ship.ship(loop_repo, item_id)
    assert result["outcome"] == "held" and result["files"] == ["app.py"]
    view = items.fold_item(loop_repo, item_id)
    assert view.state == states.DEVELOPMENT and view.hold == "conflict" and "app.py" in view.hold_reason
    wt = Path(view.worktree)
    assert kit.git(wt, "status", "--porcelain") == ""  # the rebase was aborted
    assert kit.git(loop_repo.bare, "branch", "--list", view.branch) == ""  # nothing pushed
    (entry,) = inbox.report(loop_repo)["entries"]
    assert entry["kind"] == "conflict" and "app.py" in entry["text"]
    assert entry["next"] == [f"git -C {wt} rebase origin/main", f"hall ready {item_id}"]
    # ready before the rebase would review the same commit and conflict again: refused, with the steps
    again = hall("ready", item_id, cwd=loop_repo.root)
    assert again.code == 4 and again.json["error"]["next"][0] == f"git -C {wt} rebase origin/main"
    # the steps work: rebase by hand, resolve, continue, ready
    proc = hall_git(wt, "rebase", "origin/main")
    assert proc.returncode != 0
    (wt / "app.py").write_text(
        "def add(a, b):\n    return b + a  # changed on main\n\n\ndef mul(a, b):\n    return a * b\n"
    )
    kit.git(wt, "add", "app.py")
    kit.git(wt, "-c", "core.editor=true", "rebase", "--continue")
    done = hall("ready", item_id, cwd=loop_repo.root)
    assert done.code == 0, done.stdout
    assert items.fold_item(loop_repo, item_id).state == states.CHECKS and not items.fold_item(loop_repo, item_id).hold


def hall_git(cwd: Path, *args: str):
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def test_a_failing_ship_command_holds_the_item(loop_repo, ready_item, scenario, kit):
    kit.write_config(loop_repo.root, "")
    text = (
        (loop_repo.root / ".hallmark.toml")
        .read_text()
        .replace('ship = "git push -q -u origin {branch}"', 'ship = "echo no remote for {branch} >&2; exit 3"')
    )
    (loop_repo.root / ".hallmark.toml").write_text(text)
    repo = kit.reopen(loop_repo)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "held"
    view = items.fold_item(repo, item_id)
    assert view.state == states.HALLMARKED and view.hold == "ship_failed" and "exited 3" in view.hold_reason
    assert [e["kind"] for e in inbox.report(repo)["entries"]] == ["ship_failed"]


def test_the_pr_link_from_the_ship_command_is_recorded(loop_repo, ready_item, scenario, kit):
    text = (
        (loop_repo.root / ".hallmark.toml")
        .read_text()
        .replace(
            'ship = "git push -q -u origin {branch}"',
            'ship = "git push -q -u origin {branch} && echo https://github.com/o/r/pull/42"',
        )
    )
    (loop_repo.root / ".hallmark.toml").write_text(text)
    repo = kit.reopen(loop_repo)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    daemon.pass_repo(repo, "t")
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED and view.pr == "https://github.com/o/r/pull/42"
    body = (repo.paths.item_dir(item_id) / "pr-body.md").read_text()
    assert body.startswith("## What") and "## How" in body and item_id in body


def test_a_rebase_that_changes_the_patch_pulls_the_item_back(loop_repo, ready_item, scenario, kit):
    lines = [f"line {n}\n" for n in range(1, 11)]
    (loop_repo.root / "data.txt").write_text("".join(lines))
    kit.git(loop_repo.root, "add", "-A")
    kit.git(loop_repo.root, "commit", "-q", "-m", "data")
    kit.git(loop_repo.root, "push", "-q", "--no-verify", "origin", "main")
    changed = list(lines)
    changed[1] = "line 2 changed by the item\n"
    item_id = _hallmarked(loop_repo, ready_item, scenario, kit, {"data.txt": "".join(changed)})
    on_main = list(lines)
    on_main[3] = "line 4 changed on main\n"  # in the item's context, but no conflict
    _move_base(loop_repo, kit, "data.txt", "".join(on_main))
    result = ship.ship(loop_repo, item_id)
    assert result["outcome"] == "pulled_back" and "changed the approved patch" in result["reason"]
    assert items.fold_item(loop_repo, item_id).state == states.DEVELOPMENT
    assert kit.git(loop_repo.bare, "branch", "--list", items.fold_item(loop_repo, item_id).branch) == ""
