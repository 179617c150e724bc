"""core/item_lookup.py with many items: the same answers as the journals give, and items/ listed at
most once per hook call (it was listed, and every name tested against a list, three times an Edit:
1.7 s a call at 10,000 items).

A real repo (hall init, hall new) plus many items written with the product's own journal encoder,
their worktrees real directories; nothing mocked. Counting os.listdir (the standard library's, in a
fresh interpreter) is how the once-per-call bound is checked without timing anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import item_lookup, journal, worktree_owners
from hallmark.core.paths import discover

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gates"))

from gatehelp import GateRepo, make_repo

MANY = 1500


def _item(paths, item: str, worktree: Path, *actions: str) -> None:
    events = [
        journal.make_event(
            "created", item, "you", {"title": item, "branch": f"hm/{item}", "worktree": str(worktree), "base": "main"}
        )
    ]
    events += [journal.make_event(a, item, "you", {"reason": "x"} if a == "dropped" else {}) for a in actions]
    path = paths.item_journal(item)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(journal.encode(e) for e in events))


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> tuple[GateRepo, Path]:
    base = tmp_path_factory.mktemp("lookup")
    repo = make_repo(base)
    paths = discover(repo.main)
    trees = base / "trees"
    for n in range(MANY):
        item = f"H-{n + 100:05d}"
        (trees / item).mkdir(parents=True)
        _item(paths, item, trees / item, *(["dropped"] if n % 3 == 0 else []))
    # a nested worktree (inside another item's) and two items sharing one directory
    (trees / "H-00101" / "inner").mkdir()
    _item(paths, "H-09001", trees / "H-00101" / "inner")
    (trees / "shared").mkdir()
    _item(paths, "H-09002", trees / "shared")
    _item(paths, "H-09003", trees / "shared")
    old = 1_000_000_000 * 1_000_000_000  # items/ listed long ago: a scan may be kept (not racy)
    os.utime(paths.items_dir, ns=(old, old))
    return repo, trees


def _expected_map(paths) -> dict[str, dict[str, str]]:
    """The map straight from the journals: every item folder's creation line."""
    found = {}
    for name in os.listdir(paths.items_dir):
        events = journal.read(paths.item_journal(name)).events
        if events and events[0].get("worktree"):
            found[name] = {"worktree": os.path.realpath(events[0]["worktree"]), "branch": events[0]["branch"]}
    return found


def test_worktree_map_is_every_live_item_with_many_items(many):
    repo, _ = many
    paths = discover(repo.main)
    expected = _expected_map(paths)
    assert len(expected) == MANY + 4
    assert dict(item_lookup.worktree_map(paths)) == expected
    assert dict(item_lookup.worktree_map(paths)) == expected  # the kept scan: the same answer
    cache = json.loads((paths.state_dir / "cache" / item_lookup.CACHE_NAME).read_text())
    assert set(cache["items"]) == set(expected)


def test_the_owner_of_a_path_with_many_items(many):
    repo, trees = many
    paths = discover(repo.main)
    assert item_lookup.item_for_path(paths, trees / "H-00101" / "x.py").id == "H-00101"  # type: ignore[union-attr]
    assert item_lookup.item_for_path(paths, trees / "H-00101" / "inner" / "y").id == "H-09001"  # type: ignore[union-attr]
    assert item_lookup.item_for_path(paths, trees / "H-00100" / "z") is None  # dropped: not active
    assert item_lookup.item_for_path(paths, trees / "shared" / "a").id == "H-09003"  # type: ignore[union-attr]
    assert item_lookup.item_for_path(paths, trees) is None
    assert item_lookup.item_for_path(paths, repo.wt / "app.py").id == repo.item  # type: ignore[union-attr]
    assert item_lookup.checkout_of(paths, str(trees / "H-00101" / "inner" / "y")) == str(trees / "H-00101" / "inner")
    assert item_lookup.checkout_of(paths, str(trees / "H-00100" / "z")) == str(trees / "H-00100")
    assert item_lookup.checkout_of(paths, str(repo.main / "app.py")) == str(repo.main)
    assert item_lookup.checkout_of(paths, str(repo.wt / "app.py")) == str(repo.wt)
    assert item_lookup.checkout_of(paths, str(trees)) is None
    assert len(item_lookup.checkouts(paths)) == 2 + MANY + 4  # main, the git worktree, every item's


def test_an_item_added_or_removed_after_a_kept_scan_is_seen(tmp_path: Path):
    repo = make_repo(tmp_path)
    paths = discover(repo.main)
    old = 1_000_000_000 * 1_000_000_000
    os.utime(paths.items_dir, ns=(old, old))
    assert set(item_lookup.worktree_map(paths)) == {repo.item}  # kept: items/ is old
    (tmp_path / "new").mkdir()
    _item(paths, "H-0777", tmp_path / "new")  # items/ changes: its mtime moves
    assert set(item_lookup.worktree_map(paths)) == {repo.item, "H-0777"}
    assert item_lookup.item_for_path(paths, tmp_path / "new" / "f").id == "H-0777"  # type: ignore[union-attr]
    for name in os.listdir(paths.item_dir("H-0777")):
        os.unlink(paths.item_dir("H-0777") / name)
    os.rmdir(paths.item_dir("H-0777"))
    assert set(item_lookup.worktree_map(paths)) == {repo.item}
    assert item_lookup.item_for_path(paths, tmp_path / "new" / "f") is None


def test_an_item_whose_creation_line_comes_later_is_found(tmp_path: Path):
    """items/<id>/ exists before its first line is written (hall new, mid-way): the scan is not
    kept until every item has its creation line."""
    repo = make_repo(tmp_path)
    paths = discover(repo.main)
    paths.item_dir("H-0778").mkdir()
    old = 1_000_000_000 * 1_000_000_000
    os.utime(paths.items_dir, ns=(old, old))
    assert set(item_lookup.worktree_map(paths)) == {repo.item}
    stamp = worktree_owners.read_stamp(_owners(paths))
    assert stamp is not None and set(stamp["pending"]) == {"H-0778"}  # watched, not blocking the stamp
    (tmp_path / "late").mkdir()
    _item(paths, "H-0778", tmp_path / "late")  # items/ itself does not change here
    assert set(item_lookup.worktree_map(paths)) == {repo.item, "H-0778"}
    assert item_lookup.item_for_path(paths, tmp_path / "late" / "f").id == "H-0778"  # type: ignore[union-attr]


def test_a_creation_line_appended_after_a_torn_one_is_found(tmp_path: Path):
    """A writer died mid-line; the retry's creation event follows in the same file (the folder's
    mtime does not move, the journal's size does)."""
    repo = make_repo(tmp_path)
    paths = discover(repo.main)
    journal_path = paths.item_journal("H-0780")
    journal_path.parent.mkdir()
    journal_path.write_bytes(b'{"v":1,"t":"2026-')
    old = 1_000_000_000 * 1_000_000_000
    os.utime(paths.items_dir, ns=(old, old))
    assert item_lookup.item_for_path(paths, tmp_path / "torn" / "f") is None
    (tmp_path / "torn").mkdir()
    event = journal.make_event(
        "created", "H-0780", "you", {"title": "t", "branch": "b", "worktree": str(tmp_path / "torn")}
    )
    journal.append_unlocked(journal_path, event)
    os.utime(journal_path.parent, ns=(old, old))
    assert item_lookup.item_for_path(paths, tmp_path / "torn" / "f").id == "H-0780"  # type: ignore[union-attr]


COUNT = """
import json, os, sys
from hallmark.hooks.main import run
items = sys.argv[1]
calls = []
real = os.listdir
def listdir(path="."):
    calls.append(os.fspath(path))
    return real(path)
os.listdir = listdir
answer = run("pre-tool-use", sys.stdin.buffer.read())
print(json.dumps({"answer": answer, "items_listed": sum(1 for c in calls if c == items)}))
"""


@pytest.mark.parametrize("where", ["in the item's worktree", "in the main checkout"])
def test_an_edit_lists_items_at_most_once(many, where):
    repo, _ = many
    paths = discover(repo.main)
    target = repo.wt / "app.py" if where == "in the item's worktree" else repo.main / "app.py"
    payload = {
        "session_id": "s",
        "cwd": str(target.parent),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(target)},
    }
    proc = subprocess.run(
        [sys.executable, "-c", COUNT, str(paths.items_dir)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=repo.env,
        timeout=120,
        check=True,
    )
    out = json.loads(proc.stdout)
    decision = (out["answer"] or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    assert decision == (None if where == "in the item's worktree" else "deny")
    assert out["items_listed"] <= 1
    again = subprocess.run(
        [sys.executable, "-c", COUNT, str(paths.items_dir)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=repo.env,
        timeout=120,
        check=True,
    )
    assert json.loads(again.stdout)["items_listed"] == 0  # items/ unchanged: the owner shards answer


def _owners(paths) -> Path:
    return paths.state_dir / "cache" / worktree_owners.DIR_NAME


def test_the_owner_shards_answer_and_are_rebuilt_when_damaged(many):
    repo, trees = many
    paths = discover(repo.main)
    item_lookup._SCANS.clear()
    item_lookup.worktree_map(paths)  # a scan: shards and stamp written
    folder = _owners(paths)
    assert worktree_owners.read_stamp(folder) is not None
    assert worktree_owners.all_items(folder) >= set(_expected_map(paths))
    victim = folder / worktree_owners.bucket(str(trees / "H-00101"))
    victim.unlink()
    item_lookup._SCANS.clear()
    assert item_lookup.item_for_path(paths, trees / "H-00101" / "x").id == "H-00101"  # type: ignore[union-attr]
    assert victim.exists() and worktree_owners.read_stamp(folder) is not None
    victim.write_text("{not json")
    assert item_lookup.checkout_of(paths, str(trees / "H-00101" / "x")) == str(trees / "H-00101")
    assert json.loads(victim.read_text())["v"] == worktree_owners.VERSION


def test_an_item_another_writer_added_to_the_map_gets_its_shard(tmp_path: Path):
    """A writer that keeps only worktrees.json (an older hall-hook still running) adds an item: the
    next scan finds it missing from the shards and writes its bucket."""
    repo = make_repo(tmp_path)
    paths = discover(repo.main)
    old = 1_000_000_000 * 1_000_000_000
    os.utime(paths.items_dir, ns=(old, old))
    item_lookup.worktree_map(paths)
    (tmp_path / "older").mkdir()
    _item(paths, "H-0779", tmp_path / "older")
    cache = paths.state_dir / "cache" / item_lookup.CACHE_NAME
    data = json.loads(cache.read_text())
    data["items"]["H-0779"] = {"worktree": os.path.realpath(tmp_path / "older"), "branch": "hm/H-0779"}
    cache.write_text(json.dumps(data))
    os.utime(paths.items_dir, ns=(old + 10**9, old + 10**9))
    item_lookup._SCANS.clear()
    assert item_lookup.item_for_path(paths, tmp_path / "older" / "f").id == "H-0779"  # type: ignore[union-attr]
    item_lookup._SCANS.clear()
    assert "H-0779" in worktree_owners.all_items(_owners(paths))
    assert worktree_owners.read_stamp(_owners(paths)) == {
        "items": [paths.items_dir.stat().st_ino, old + 10**9],
        "pending": {},
    }


def test_a_repo_without_hall_init_has_no_items_and_gets_no_state_dir(git_repo: Path):
    paths = discover(git_repo)
    assert dict(item_lookup.worktree_map(paths)) == {}
    assert item_lookup.item_for_path(paths, git_repo / "app.py") is None
    assert item_lookup.checkout_of(paths, str(git_repo / "app.py")) == str(git_repo)
    assert not paths.state_dir.exists()
