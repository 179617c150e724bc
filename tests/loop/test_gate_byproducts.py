"""What the gates leave behind is the gates' doing: a C project whose `make test` leaves binaries (as
zserge/jsmn's does) and a gate that rewrites files (as `ruff check --fix` or pre-commit do) never make
the item's work dirty, never get committed, never fail a good fixer run. The gates run in a clean
checkout of the frozen commit (core/gate_checkout.py). Real repos, real make and cc, the stand-in and
real non-claude fixer engines."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hallmark.core import gate_checkout, inbox, items, states, sweep
from hallmark.core.errors import HallError
from hallmark.core.loop import checks, daemon

pytestmark = pytest.mark.skipif(
    not (shutil.which("make") and shutil.which("cc")), reason="the C project needs make and a C compiler"
)

LIB = "static inline int add(int a, int b) { return a + b; }\n"
TESTS = r"""#include <stdio.h>
#include "../lib.h"
int main(void) {
    if (add(2, 3) != 5) { printf("FAILED: add(2, 3) is %d, not 5 (at line 4)\n", add(2, 3)); return 1; }
    printf("PASSED\n");
    return 0;
}
"""
# like jsmn's: the test binaries land in test/, which nothing git-ignores
MAKEFILE = """\
test: test_default test_strict
\t./test/test_default
\t./test/test_strict

test_default: test/tests.c lib.h
\t$(CC) -o test/$@ test/tests.c

test_strict: test/tests.c lib.h
\t$(CC) -DSTRICT -Wall -o test/$@ test/tests.c

.PHONY: test
"""
BINARIES = ["test/test_default", "test/test_strict"]
BROKEN_LIB = "static inline int add(int a, int b) { return a - b; }\n"


@pytest.fixture
def c_repo(loop_repo, kit):
    root = loop_repo.root
    (root / "lib.h").write_text(LIB)
    (root / "test").mkdir()
    (root / "test" / "tests.c").write_text(TESTS)
    (root / "Makefile").write_text(MAKEFILE)
    kit.write_config(root, gates=["make test"])
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "a tiny C library")
    kit.git(root, "push", "-q", "--no-verify", "origin", "main")
    return kit.reopen(loop_repo)


def _item(repo, kit, files: dict[str, str], title: str = "Add sub") -> tuple[str, Path]:
    created = items.new(repo, title=title)
    wt = Path(created["worktree"])
    for rel, text in files.items():
        (wt / rel).write_text(text)
    kit.git(wt, "add", "-A")
    kit.git(wt, "commit", "-q", "-m", title)
    items.ready(repo, created["item"])
    return created["item"], wt


def _status(wt: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=wt, capture_output=True, text=True, check=True
    ).stdout


def _set(repo, kit, **keys) -> object:
    text = (repo.root / ".hallmark.toml").read_text()
    top = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    (repo.root / ".hallmark.toml").write_text(top + text)
    return kit.reopen(repo)


SUB = {"lib.h": LIB + "static inline int sub(int a, int b) { return a - b; }\n"}


def test_make_tests_binaries_never_dirty_the_item_and_it_ships(c_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    item_id, wt = _item(c_repo, kit, SUB)
    kit.run_loop(c_repo)
    view = items.fold_item(c_repo, item_id)
    assert view.state == states.CLOSED, view.hold_reason  # the old shipper held it: "uncommitted changes"
    assert _status(wt) == ""  # nothing of the gate's in the item's worktree
    (run,) = kit.events(c_repo, item_id, "check_run")
    assert run["exit_code"] == 0 and run["ran_in"] == str(wt.parent / (".hallmark-checks-" + wt.name))
    assert sorted(run["wrote"]) == ["test/test_default", "test/test_strict"]  # left in the gate checkout
    remote = kit.git(c_repo.bare, "ls-tree", "-r", "--name-only", view.branch).split()
    assert not set(BINARIES) & set(remote)


def test_pull_back_and_ready_again_after_checks_is_not_refused(c_repo, kit):
    item_id, _wt = _item(c_repo, kit, SUB)
    daemon.do_checks(c_repo, items.fold_item(c_repo, item_id))
    assert items.fold_item(c_repo, item_id).state == states.REVIEW
    items.pull_back(c_repo, item_id, reason="one more look")
    again = items.ready(c_repo, item_id)  # the old code: DIRTY_WORKTREE … test/test_default … commit or stash them
    assert again["state"] == states.CHECKS
    daemon.do_checks(c_repo, items.fold_item(c_repo, item_id))
    cached = kit.events(c_repo, item_id, "check_run")[-1]
    assert cached["cached"] is True  # the same commit: served from the cache, no manual clean-up needed


def test_the_stand_in_fixer_commits_its_fix_and_never_the_binaries(c_repo, kit, scenario):
    scenario(
        {
            "review": [kit.approve()],
            "fix": [{"edits": [{"file": "lib.h", "write": LIB}], "message": "add adds again"}],
        }
    )
    item_id, wt = _item(c_repo, kit, {"lib.h": BROKEN_LIB}, title="Break add")
    (wt / "notes.txt").write_text("the person's scratch file, untracked\n")  # a careful agent leaves it alone
    kit.run_loop(c_repo)
    view = items.fold_item(c_repo, item_id)
    assert view.state == states.CLOSED, view.hold_reason
    assert kit.git(wt, "show", "--name-only", "--format=", "HEAD").split() == ["lib.h"]
    shipped = kit.git(c_repo.bare, "log", "--name-only", "--format=", f"main..{view.branch}").split()
    assert set(shipped) == {"lib.h"}  # the old stand-in's `git add -A` shipped the 2 binaries
    assert (wt / "notes.txt").is_file() and "notes.txt" not in shipped
    failed = [e for e in kit.events(c_repo, item_id, "check_run") if e["exit_code"]]
    assert failed and "FAILED: add(2, 3) is -1" in failed[0]["output"]


def test_a_careful_fixer_that_commits_only_its_file_is_judged_on_its_commit(c_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    fixer = f"printf '%s\\n' {shlex.quote(LIB.strip())} > lib.h && git add lib.h && git commit -q -m 'Fix add'"
    repo = _set(c_repo, kit, fixer=fixer)
    item_id, _wt = _item(repo, kit, {"lib.h": BROKEN_LIB}, title="Break add")
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    ends = [e for e in kit.events(repo, item_id, "run_ended") if e.get("role") == "fix"]
    # the old loop: "the fixer left uncommitted changes (test/test_default, test/test_strict)" twice, held
    assert [e["failed"] for e in ends] == [None]
    assert view.state == states.CLOSED, view.hold_reason


def test_a_fixer_that_runs_make_itself_is_judged_on_its_commit_and_the_leftovers_never_ship(c_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    fixer = f"printf '%s\\n' {shlex.quote(LIB.strip())} > lib.h && make -s test >/dev/null && git add lib.h && git commit -q -m 'Fix'"
    repo = _set(c_repo, kit, fixer=fixer)
    item_id, wt = _item(repo, kit, {"lib.h": BROKEN_LIB}, title="Break add")
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.state == states.CLOSED, view.hold_reason
    (submitted,) = [e for e in kit.events(repo, item_id, "fix_submitted")]
    assert sorted(submitted["left_uncommitted"]) == BINARIES  # its own build's outputs, named, not checked
    (notice,) = [e for e in kit.events(repo, item_id, "notice") if e.get("kind") == "left_in_worktree"]
    assert sorted(notice["files"]) == BINARIES and "not part of it" in notice["text"]
    remote = kit.git(repo.bare, "ls-tree", "-r", "--name-only", view.branch).split()
    assert not set(BINARIES) & set(remote)
    assert sorted(_status(wt).split()) == sorted(["??", "??", *BINARIES])  # left where it made them


def test_edits_to_tracked_files_after_approval_hold_the_ship_naming_them(c_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    item_id, wt = _item(c_repo, kit, SUB)
    daemon.do_checks(c_repo, items.fold_item(c_repo, item_id))
    daemon.do_review(c_repo, items.fold_item(c_repo, item_id))
    assert items.fold_item(c_repo, item_id).state == states.HALLMARKED
    (wt / "Makefile").write_text(MAKEFILE + "# edited by hand\n")
    daemon.do_ship(c_repo, items.fold_item(c_repo, item_id))
    view = items.fold_item(c_repo, item_id)
    assert view.hold == "ship_failed" and "uncommitted changes to Makefile" in view.hold_reason


def test_a_gate_that_rewrites_files_fails_and_changes_nothing_the_agent_owns(c_repo, kit):
    # `ruff check --fix` / pre-commit: exits 0 after rewriting; the next gate must still see the commit
    fmt = "sed -i 's/ *$//' lib.h"
    kit.write_config(c_repo.root, gates=[fmt, "grep -q ' $' lib.h"])
    repo = kit.reopen(c_repo)
    item_id, wt = _item(repo, kit, {"lib.h": LIB.rstrip("\n") + "   \n"}, title="Trailing blanks")
    outcome = checks.run_checks(repo, item_id, items.fold_item(repo, item_id).sha, wt)
    first, second = outcome.results
    assert first.rewrote == ["lib.h"] and first.gate_exit == 0 and first.exit_code == checks.REWROTE_EXIT
    assert "changed 1 tracked file(s) of the commit: lib.h" in first.condensed
    assert "-static inline int add" in first.condensed and str(wt) + "/" not in first.condensed.split("Its changes")[0]
    assert second.passed  # it saw the frozen commit, trailing blanks and all, not the first gate's rewrite
    assert _status(wt) == ""  # the old code: ` M lib.h` in the worktree, then DIRTY_WORKTREE and a blamed fixer
    (event,) = [e for e in kit.events(repo, item_id, "check_run") if e.get("rewrote")]
    assert event["exit_code"] == 1 and event["gate_exit"] == 0 and "lib.h" in event["output"]


def test_hall_fixed_names_the_files_and_never_suggests_committing_build_outputs(c_repo, kit, scenario):
    scenario({"review": [kit.reject()], "fix": [{"edits": []}]})
    item_id, wt = _item(c_repo, kit, SUB)
    daemon.do_checks(c_repo, items.fold_item(c_repo, item_id))
    daemon.do_review(c_repo, items.fold_item(c_repo, item_id))
    assert items.fold_item(c_repo, item_id).state == states.FIXING
    subprocess.run(["make", "-s", "test"], cwd=wt, check=True, capture_output=True)
    from hallmark.core.loop import fix

    with pytest.raises(HallError) as caught:
        fix.mark_fixed(c_repo, item_id, [], [("F-1", "it is right")])
    assert caught.value.code == "DIRTY_WORKTREE" and "test/test_default" in caught.value.message
    assert any("never commit build outputs" in step for step in caught.value.next)


def test_the_gate_checkout_goes_once_the_worktree_went(c_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    shipped, shipped_wt = _item(c_repo, kit, SUB)
    kit.run_loop(c_repo)
    place = shipped_wt.parent / (".hallmark-checks-" + shipped_wt.name)
    assert place.is_dir() and items.fold_item(c_repo, shipped).state == states.CLOSED
    sweep.sweep(c_repo)
    kit.run_loop(c_repo)  # the daemon's next pass
    assert not shipped_wt.exists() and not place.exists()
    dropped, dropped_wt = _item(c_repo, kit, {"lib.h": LIB + "/* another tree */\n"}, title="Another")
    daemon.do_checks(c_repo, items.fold_item(c_repo, dropped))
    other = dropped_wt.parent / (".hallmark-checks-" + dropped_wt.name)
    assert other.is_dir()
    answer = items.drop(c_repo, dropped, reason="not needed")
    assert answer["worktree_removed"] is True
    kit.run_loop(c_repo)
    assert not other.exists() and str(other) not in kit.git(c_repo.root, "worktree", "list")
    assert not [e for e in inbox.report(c_repo)["entries"] if e["item"] in (shipped, dropped)]


def test_remove_takes_the_gate_checkout_at_once_and_prune_takes_orphans(c_repo, kit):
    item_id, wt = _item(c_repo, kit, SUB)
    daemon.do_checks(c_repo, items.fold_item(c_repo, item_id))
    place = gate_checkout.location(wt)
    assert place.is_dir() and gate_checkout.remove(c_repo, wt) is True
    assert not place.exists() and str(place) not in kit.git(c_repo.root, "worktree", "list")
    assert gate_checkout.remove(c_repo, wt) is False
    other, other_wt = _item(c_repo, kit, {"lib.h": LIB + "/* other */\n"}, title="Other")
    daemon.do_checks(c_repo, items.fold_item(c_repo, other))
    kit.git(c_repo.root, "worktree", "remove", "--force", str(other_wt))  # a person's own clean-up
    assert gate_checkout.prune(c_repo) == [str(gate_checkout.location(other_wt))]
    assert not gate_checkout.location(other_wt).exists()


def test_the_gate_checkout_has_the_worktree_copy_files(loop_repo, kit):
    text = (loop_repo.root / ".hallmark.toml").read_text()
    (loop_repo.root / ".hallmark.toml").write_text(text + '[worktree]\ncopy = [".env"]\n')
    (loop_repo.root / ".env").write_text("API_TOKEN=not-a-real-one\n")  # untracked in the main checkout
    kit.write_config(loop_repo.root, extra='[worktree]\ncopy = [".env"]\n', gates=["grep -q API_TOKEN .env"])
    repo = kit.reopen(loop_repo)
    item_id, wt = _item(repo, kit, {"app.py": "def add(a, b):\n    return a + b\n"}, title="Reword")
    outcome = checks.run_checks(repo, item_id, items.fold_item(repo, item_id).sha, wt)
    assert outcome.passed and (Path(outcome.checkout) / ".env").read_text() == "API_TOKEN=not-a-real-one\n"
    assert outcome.results[0].wrote == []  # the copy is Hallmark's, not the gate's by-product
