"""One owner per concept: the text that builds each shared thing appears in its owner's module only.

Each row names a piece of code that had copies before (the hook path's light twins, the runs folder
computed in five places, hook replies built by hand) and the one module that may write it now. A
copy coming back, in core, hooks or tui, fails here with its file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    p for top in ("core", "hooks", "tui") for p in (PROJECT / top).rglob("*.py") if "__snapshots__" not in p.parts
)

# (what, a regex over the source, the only files that may contain it)
OWNERS = [
    ("the item fold (events in, ItemView out)", r"def (?:fold|apply)\(\s*(?:item_id|view)", {"core/states.py"}),
    ("the item transition table", r"""["']proposed_ready["']\s*:\s*\{""", {"core/states.py"}),
    ("a hook's JSON answer", r"hookSpecificOutput", {"hooks/reply.py"}),
    ("the error body", r"""["']error["']\s*:\s*\{\s*["']code["']""", {"core/errors.py"}),
    ("an exclusive flock (the journal's one lock)", r"LOCK_EX", {"core/journal.py"}),
    # (filelock only where there is no fcntl: the journal's lock, the run lock's hand-over, the run probe)
    ("a filelock lock", r"FileLock\(", {"core/journal.py", "core/runner/lifecycle.py", "core/runs.py"}),
    ("the session-id pattern", r"\bSESSION_ID\s*=\s*re\.compile", {"core/ids.py"}),
    ("a session's file under sessions/", r"""["']sessions["']\s*/""", {"core/ids.py"}),
    ("the worktree map (which item owns a path)", r"worktrees\.json", {"core/item_lookup.py"}),
    (
        "a read of item.json (a cache, never read for decisions)",
        r"item\.json",
        {"core/items.py", "core/states.py", "core/damaged.py", "core/gates/runs_others.py", "core/item_lookup.py"},
    ),
    ("the [capture] defaults", r"""["']docs/["'],\s*["']\*\.md["']""", {"core/config_raw.py"}),
    (
        "a path into a runs folder",
        r"""/\s*["']runs["']|["']runs["']\s*/|join\([^)]*["']runs["']\s*\)""",
        {"core/runs.py"},
    ),
    ("the run file name's stamp", r"\\d\{8\}T", {"core/runs.py"}),
    ("the run-lock probe (a shared flock)", r"LOCK_SH", {"core/runs.py"}),
    ("a run's end line, written", r"""["']type["']\s*:\s*["']hall_run_end""", {"core/runs.py"}),
    ("the end mark", r"END_MARK\s*=", {"core/runs.py"}),
    ("following a growing stream (offset, inode, truncation)", r"st\.st_ino\s*!=\s*self\.", {"core/runner/follow.py"}),
]


def _rel(path: Path) -> str:
    return path.relative_to(PROJECT).as_posix()


@pytest.mark.parametrize(("what", "pattern", "owners"), OWNERS, ids=[row[0] for row in OWNERS])
def test_each_concept_is_written_in_its_owner_only(what: str, pattern: str, owners: set[str]):
    regex = re.compile(pattern)
    found = {_rel(p) for p in SOURCES if regex.search(p.read_text(encoding="utf-8"))}
    assert found - owners == set(), f"{what}: written outside {sorted(owners)}"
    assert found, f"{what}: its owner no longer has it (update this table)"


def test_the_hook_twins_are_gone():
    for gone in ("core/gates/itemstate.py", "core/transitions.py", "core/run_locks.py"):
        assert not (PROJECT / gone).exists(), gone
    common = (PROJECT / "hooks" / "common.py").read_text(encoding="utf-8")
    assert "class _Lock" not in common and "fcntl" not in common
