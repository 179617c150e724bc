"""Shipping on real repos: the gates run again on a rebased commit, the hallmark is struck only on a
checked commit, the ship command runs exactly once across a daemon crash, and the hallmark notes
reach the remote, where `hall verify` confirms them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hallmark.core import inbox, items, states
from hallmark.core.loop import daemon, findings, review, ship, ship_once
from hallmark.core.runner import lifecycle

BIN = Path(sys.executable).parent
GATES = ["python3 -c 'import use; use.check()'"]
UTIL = "def helper(x):\n    return x * 2\n"
USE = "import util\n\n\ndef check():\n    assert util.helper(2) == 4\n"


def _config(repo, kit, ship_command: str = "git push -q -u origin {branch}"):
    kit.write_config(repo.root, gates=GATES)
    text = (
        (repo.root / ".hallmark.toml")
        .read_text()
        .replace('ship = "git push -q -u origin {branch}"', f"ship = {json.dumps(ship_command)}")
    )
    (repo.root / ".hallmark.toml").write_text(text)
    (repo.root / "util.py").write_text(UTIL)
    (repo.root / "use.py").write_text("import util\n\n\ndef check():\n    pass\n")
    kit.git(repo.root, "add", "-A")
    kit.git(repo.root, "commit", "-q", "-m", "util and its gate")
    kit.git(repo.root, "push", "-q", "--no-verify", "origin", "main")
    return kit.reopen(repo)


def _hallmarked(repo, ready_item, scenario, kit) -> str:
    scenario({"review": [kit.approve()]})
    item_id = ready_item({"use.py": USE}, title="use the helper")
    daemon.pass_repo(repo, "t")  # checks
    daemon.pass_repo(repo, "t")  # review
    assert items.fold_item(repo, item_id).state == states.HALLMARKED
    return item_id


def _land_on_main(repo, kit, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (repo.root / rel).write_text(text)
    kit.git(repo.root, "add", "-A")
    kit.git(repo.root, "commit", "-q", "-m", message)
    kit.git(repo.root, "push", "-q", "--no-verify", "origin", "main")


def _notes(repo) -> list[str]:
    out = subprocess.run(
        ["git", "notes", "--ref=refs/notes/hallmark", "list"], cwd=repo.root, capture_output=True, text=True
    ).stdout
    return [line.split()[1] for line in out.splitlines()]


def test_a_helper_renamed_on_main_sends_the_item_back_to_fixing_not_out(loop_repo, ready_item, scenario, kit):
    """The review's case: the item adds a caller of a helper, main renames the helper while the item
    is hallmarked, the rebase is clean. The rebased commit fails its gates: not shipped, no hallmark
    on it, back to fixing with the failure as a finding (a new round); then fixed and shipped."""
    repo = _config(loop_repo, kit)
    scenario({"review": [kit.approve()]})
    item_id = ready_item(
        {
            "extra.py": "import util\n\n\ndef double(x):\n    return util.helper(x)\n",
            "use.py": "import extra\n\n\ndef check():\n    assert extra.double(2) == 4\n",
        },
        title="use the helper",
    )
    daemon.pass_repo(repo, "t")
    daemon.pass_repo(repo, "t")
    approved = items.fold_item(repo, item_id).hallmark_sha
    _land_on_main(repo, kit, {"util.py": "def helper2(x):\n    return x * 2\n"}, "rename helper -> helper2")
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "recheck_failed", result
    view = items.fold_item(repo, item_id)
    assert view.state == states.FIXING and view.round == 2 and view.hallmark_sha == ""
    assert view.sha == result["sha"] != approved
    assert kit.git(repo.bare, "branch", "--list", view.branch) == ""  # not shipped
    assert _notes(repo) == [approved]  # no hallmark on the rebased commit nobody checked green
    red = [e for e in kit.events(repo, item_id, "check_run") if e["sha"] == result["sha"]]
    assert red and red[0]["exit_code"] != 0 and "helper" in red[0]["output"]
    (finding,) = [f for f in findings.list_findings(repo, item_id) if f["status"] == "open"]
    assert finding["severity"] == "blocker" and "after the rebase onto origin/main" in finding["title"]
    assert [f["command"] for f in findings.failing_checks(repo, item_id)] == GATES
    # the fixer fixes it on top of the rebased commit; the loop approves and ships the checked commit
    scenario(
        {
            "fix": [
                {
                    "edits": [
                        {"file": "extra.py", "write": "import util\n\n\ndef double(x):\n    return util.helper2(x)\n"}
                    ],
                    "fixed": ["F-1"],
                }
            ],
            "review": [kit.approve("fixed for the new name")],
        }
    )
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED, kit.events(repo, item_id)[-3:]
    shipped = kit.events(repo, item_id, "shipped")[-1]["sha"]
    assert kit.git(repo.bare, "rev-parse", view.branch) == shipped
    runs = [e for e in kit.events(repo, item_id, "check_run") if e["sha"] == shipped and e["exit_code"] == 0]
    assert runs, "the shipped commit's gates ran"


def test_a_clean_rebase_runs_the_gates_on_the_new_commit_and_strikes_it_there(loop_repo, ready_item, scenario, kit):
    repo = _config(loop_repo, kit)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    approved = items.fold_item(repo, item_id).hallmark_sha
    _land_on_main(repo, kit, {"other.txt": "unrelated\n"}, "unrelated")
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "shipped"
    new = result["sha"]
    ran = [e for e in kit.events(repo, item_id, "check_run") if e["sha"] == new]
    assert [e["exit_code"] for e in ran] == [0] and ran[0]["cached"] is False
    rebased = kit.events(repo, item_id, "rebased")[-1]
    assert (
        rebased["carried"] is True and rebased["tree_changed"] is True and rebased["checked"][0]["command"] == GATES[0]
    )
    note = review.read_note(repo, new)
    assert note["actor"] == "carried" and note["carried_from"] == approved and note["sha"] == new
    # the rebased tree is served from the cache the next time anything checks it
    again = __import__("hallmark.core.loop.checks", fromlist=["x"]).run_checks(
        repo, item_id, new, Path(items.fold_item(repo, item_id).worktree)
    )
    assert again.passed and again.results[0].cached


def test_the_hallmark_notes_reach_the_remote_and_hall_verify_confirms_them(
    loop_repo, ready_item, scenario, kit, hall, tmp_path
):
    repo = _config(loop_repo, kit)
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    result = ship.ship(repo, item_id)
    sha = result["sha"]
    note = subprocess.run(
        ["git", "--git-dir", str(repo.bare), "notes", "--ref=refs/notes/hallmark", "show", sha],
        capture_output=True,
        text=True,
    )
    assert note.returncode == 0 and json.loads(note.stdout)["sha"] == sha
    # where the loop ran: every check, the journal included
    here = hall("verify", sha, cwd=repo.root)
    assert here.code == 0 and here.json["journal"] == "checked" and here.json["item"] == item_id
    branch = items.fold_item(repo, item_id).branch
    assert hall("verify", "main", cwd=repo.root).code == 5  # main itself carries no hallmark
    # a CI clone: fetch the branch and the notes, verify without a journal
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", str(repo.bare), str(ci)], check=True)
    no_notes = hall("verify", f"origin/{branch}", cwd=ci)
    assert no_notes.code == 5 and "git fetch origin" in no_notes.json["error"]["next"][0]
    subprocess.run(["git", "fetch", "-q", "origin", "+refs/notes/hallmark:refs/notes/hallmark"], cwd=ci, check=True)
    ok = hall("verify", f"origin/{branch}", cwd=ci)
    assert ok.code == 0 and ok.json["journal"] == "unavailable" and ok.json["sha"] == sha
    assert hall("verify", "--strict", f"origin/{branch}", cwd=ci).code == 5
    assert not (ci / ".git" / "hallmark").exists()  # verifying never makes a clone look set up
    # the stand-in struck this hallmark: outside a repo that runs the stand-in (a demo's), it verifies nowhere
    config = ci / ".hallmark.toml"
    kept = config.read_text()
    config.write_text(kept.replace('claude = "hall-standin-claude"', ""))
    elsewhere = hall("verify", f"origin/{branch}", cwd=ci)
    assert elsewhere.code == 5 and "stand-in" in elsewhere.json["error"]["message"]
    config.write_text(kept)
    # a note copied onto another commit does not verify
    kit.git(ci, "checkout", "-q", "-b", "forged", f"origin/{branch}")
    (ci / "x.txt").write_text("x\n")
    kit.git(ci, "add", "x.txt")
    kit.git(ci, "commit", "-q", "-m", "forged")
    kit.git(ci, "notes", "--ref=refs/notes/hallmark", "copy", sha, "HEAD")
    forged = hall("verify", "HEAD", cwd=ci)
    assert forged.code == 5 and f"not {kit.git(ci, 'rev-parse', 'HEAD')[:7]}" in forged.json["error"]["message"]


def test_notes_merge_with_notes_another_machine_pushed(loop_repo, ready_item, scenario, kit, tmp_path):
    repo = _config(loop_repo, kit)
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(repo.bare), str(other)], check=True)
    kit.git(other, "notes", "--ref=refs/notes/hallmark", "add", "-m", '{"v":1,"note":"from elsewhere"}', "HEAD")
    kit.git(other, "push", "-q", "origin", "refs/notes/hallmark")
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "shipped"
    listed = subprocess.run(
        ["git", "--git-dir", str(repo.bare), "notes", "--ref=refs/notes/hallmark", "list"],
        capture_output=True,
        text=True,
    ).stdout
    annotated = {line.split()[1] for line in listed.splitlines()}
    assert result["sha"] in annotated and kit.git(other, "rev-parse", "HEAD") in annotated


def test_the_ship_command_runs_once_across_a_daemon_crash(loop_repo, ready_item, scenario, kit, tmp_path):
    counter = tmp_path / "ship-count"
    repo = _config(loop_repo, kit, f"git push -q -u origin {{branch}} && echo shipped >> {counter} && sleep 60")
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    proc = subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(repo.root)],
        cwd=repo.root,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (counter.exists() and counter.read_text()):
        time.sleep(0.05)
    assert counter.read_text() == "shipped\n", "the ship command never ran"
    os.killpg(proc.pid, signal.SIGKILL)  # the daemon dies mid-ship, before it records `shipped`
    proc.wait(timeout=10)
    lock = ship_once.lock_path(repo, item_id)
    from hallmark.core.runs import lock_is_held

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and lock_is_held(lock):
        time.sleep(0.05)
    assert not lock_is_held(lock), "the ship command outlived its daemon"
    assert items.fold_item(repo, item_id).state == states.HALLMARKED
    kit.run_loop(repo)  # the next daemon asks the remote first
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED
    assert counter.read_text() == "shipped\n"  # exactly once
    (shipped,) = kit.events(repo, item_id, "shipped")
    assert shipped["recovered"] is True and "already has" in shipped["why"]
    assert len(kit.events(repo, item_id, "ship_started")) == 1


def test_a_ship_still_running_is_never_started_again(loop_repo, ready_item, scenario, kit, tmp_path):
    counter = tmp_path / "ship-count"
    repo = _config(loop_repo, kit, f"echo shipped >> {counter} && git push -q -u origin {{branch}}")
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    view = items.fold_item(repo, item_id)
    items.record(
        repo,
        item_id,
        "ship_started",
        actor="shipper",
        sha=view.hallmark_sha,
        command="…",
        remote="origin",
        branch=view.branch,
    )
    lock = lifecycle.RunLock(ship_once.lock_path(repo, item_id))
    lock.acquire()  # a ship command from before, still running
    try:
        assert ship.ship(repo, item_id)["outcome"] == "ship_in_progress"
        assert not counter.exists()
    finally:
        lock.release()
    assert ship.ship(repo, item_id)["outcome"] == "shipped"  # the remote had nothing: it runs now, once
    assert counter.read_text() == "shipped\n"


def test_a_cut_short_ship_with_an_uncheckable_command_is_held_for_you(loop_repo, ready_item, scenario, kit):
    repo = _config(loop_repo, kit, "echo shipping {branch} somewhere")
    item_id = _hallmarked(repo, ready_item, scenario, kit)
    view = items.fold_item(repo, item_id)
    items.record(
        repo,
        item_id,
        "ship_started",
        actor="shipper",
        sha=view.hallmark_sha,
        command="rig submit",
        remote=None,
        branch=view.branch,
    )
    result = ship.ship(repo, item_id)
    assert result["outcome"] == "held"
    assert items.fold_item(repo, item_id).hold == "ship_interrupted"
    assert [e["kind"] for e in inbox.report(repo)["entries"]] == ["ship_interrupted"]
    items.retry(repo, item_id, reason="it did not go out")
    assert ship.ship(repo, item_id)["outcome"] == "shipped"
