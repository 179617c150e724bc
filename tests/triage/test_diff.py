"""The item's diff against the merge-base: committed + uncommitted + untracked, findings anchored."""

from __future__ import annotations

import subprocess

import pytest
from hallmark.core import diff as diffmod
from hallmark.core.errors import HallError


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_against_merge_base_not_base_tip(hall_repo, new_item, commit_all):
    item_id, wt = new_item()
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    commit_all(wt, "sub")
    # the base moves on after the branch was cut: its change must NOT show in the item's diff
    (hall_repo.root / "README.md").write_text("# demo\nbase moved\n")
    commit_all(hall_repo.root, "base moves")
    (wt / "notes.txt").write_text("uncommitted, untracked\n")
    (wt / "README.md").write_text("# demo, edited in the worktree\n")
    d = diffmod.item_diff(hall_repo, item_id)
    by_path = {f.path: f for f in d.files}
    assert set(by_path) == {"app.py", "notes.txt", "README.md"}
    assert (by_path["app.py"].added, by_path["app.py"].removed) == (4, 0)
    assert by_path["notes.txt"].status == "untracked" and by_path["notes.txt"].added == 1
    readme = by_path["README.md"]
    assert [ln.text for ln in readme.hunks[0].lines if ln.kind == "-"] == ["# demo"]
    assert "base moved" not in str(d.to_dict())
    assert d.merge_base == git(hall_repo.root, "merge-base", "main", git(wt, "rev-parse", "HEAD"))
    added = [ln for ln in by_path["app.py"].hunks[0].lines if ln.kind == "+"]
    assert added[-1].new == 6 and added[-1].text == "    return a - b"


def test_ignore_whitespace(hall_repo, new_item):
    item_id, wt = new_item()
    (wt / "app.py").write_text("def add(a, b):\n    return  a + b\n")
    assert diffmod.item_diff(hall_repo, item_id).files
    assert diffmod.item_diff(hall_repo, item_id, ignore_whitespace=True).files == []


def test_rename_delete_and_odd_names(hall_repo, new_item, commit_all):
    item_id, wt = new_item()
    git(wt, "mv", "app.py", "calc.py")
    (wt / "README.md").unlink()
    (wt / "sp ace é.txt").write_text("hi\n--- not a header\n")
    commit_all(wt, "rename")
    files = {f.path: f for f in diffmod.item_diff(hall_repo, item_id).files}
    assert files["calc.py"].status == "renamed" and files["calc.py"].old_path == "app.py"
    assert files["README.md"].status == "deleted" and files["README.md"].removed == 1
    odd = files["sp ace é.txt"]
    assert odd.status == "added" and odd.added == 2
    assert odd.hunks[0].lines[1].text == "--- not a header"


def test_anchor_findings_inline_file_level_and_elsewhere(hall_repo, new_item):
    item_id, wt = new_item()
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n")
    d = diffmod.item_diff(hall_repo, item_id)
    findings = [
        {
            "id": "F-1",
            "lens": "correctness",
            "severity": "major",
            "file": "app.py",
            "line": 6,
            "scenario": "div(1, 0) raises",
            "status": "open",
            "round": 1,
        },
        {"id": "F-2", "lens": "style", "severity": "nit", "file": "app.py", "line": 400, "scenario": "far away"},
        {"id": "F-3", "lens": "security", "severity": "minor", "file": "other.py", "line": 1, "scenario": "untouched"},
    ]
    elsewhere = diffmod.anchor_findings(d.files, findings)
    app = d.files[0]
    anchored = app.hunks[0].findings
    assert [f["id"] for f in anchored] == ["F-1"]
    assert app.hunks[0].lines[anchored[0]["line_index"]].text == "    return a / b"
    assert [f["id"] for f in app.findings] == ["F-2"]
    assert [f["id"] for f in elsewhere] == ["F-3"]


def test_item_without_worktree_or_branch_is_a_clear_error(hall_repo, new_item):
    from hallmark.core import items

    item_id, _wt = new_item()
    items.drop(hall_repo, item_id, reason="no")
    git(hall_repo.root, "branch", "-D", items.fold_item(hall_repo, item_id).branch)
    with pytest.raises(HallError) as err:
        diffmod.item_diff(hall_repo, item_id)
    assert err.value.code == "WRONG_STATE"


def test_dropped_item_still_diffs_from_its_branch(hall_repo, new_item, commit_all):
    from hallmark.core import items

    item_id, wt = new_item()
    (wt / "kept.py").write_text("k = 1\n")
    commit_all(wt)
    items.drop(hall_repo, item_id, reason="later")
    assert not wt.exists()
    assert [f.path for f in diffmod.item_diff(hall_repo, item_id).files] == ["kept.py"]


def test_cli_diff_json_and_stat(hall_repo, new_item, hall):
    item_id, wt = new_item()
    (wt / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")
    full = hall("diff", item_id, "--json", cwd=hall_repo.root)
    assert full.code == 0, full.stderr
    data = full.json
    assert data["files"][0]["hunks"][0]["lines"] and data["next"]
    assert data["unanchored_findings"] == []
    stat = hall("diff", "--stat", cwd=wt).json  # the item we stand in
    assert stat["files"] == [
        {"path": "app.py", "old_path": "app.py", "status": "modified", "added": 1, "removed": 1, "binary": False}
    ]
    bad = hall("diff", "H-9999", cwd=hall_repo.root)
    assert bad.code != 0 and bad.json["error"]["code"] == "ITEM_NOT_FOUND"


def test_parse_survives_hypothesis_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.text(alphabet="+- \\@abc,0123456789\n", max_size=30), max_size=20))
    def check(chunks):
        text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n" + "".join(chunks)
        files = diffmod.parse_unified(text)
        assert len(files) == 1
        f = files[0]
        assert f.added == sum(1 for h in f.hunks for ln in h.lines if ln.kind == "+")
        assert f.removed == sum(1 for h in f.hunks for ln in h.lines if ln.kind == "-")

    check()


def test_binary_file_and_text_rendering(hall_repo, new_item):
    from hallmark.tui.cli.items import diff_text
    from rich.console import Console

    item_id, wt = new_item()
    (wt / "logo.bin").write_bytes(bytes(range(256)) * 4)
    (wt / "app.py").write_text("def add(a, b):\n    return b + a\n")
    d = diffmod.item_diff(hall_repo, item_id)
    binary = next(f for f in d.files if f.path == "logo.bin")
    assert binary.binary and binary.hunks == []
    data = d.to_dict()
    data["unanchored_findings"] = [
        {"file": "elsewhere.py", "line": 3, "severity": "minor", "lens": "docs", "scenario": "stale"}
    ]
    data["files"][0]["hunks"][0]["findings"] = [
        {"id": "F-9", "severity": "major", "lens": "correctness", "scenario": "swapped", "line_index": 2}
    ]
    console = Console(width=100, record=True, color_system=None)
    console.print(diff_text(data))
    out = console.export_text()
    assert "app.py" in out and "+    return b + a" in out and "-    return a + b" in out
    assert "▲ F-9 major [correctness]: swapped" in out
    assert "elsewhere.py:3 minor [docs]: stale" in out
    stat_only = {**d.stat().to_dict(), "next": []}
    console = Console(width=100, record=True, color_system=None)
    console.print(diff_text(stat_only))
    assert "logo.bin" in console.export_text() and "@@" not in console.export_text()


def test_untracked_files_read_directly(hall_repo, new_item):
    item_id, wt = new_item()
    (wt / "nl.txt").write_text("a\nb")  # no newline at the end
    (wt / "blob.dat").write_bytes(b"\x00\x01binary")
    (wt / "empty.txt").write_text("")
    (wt / "ignored.log").write_text("x\n")
    (wt / ".gitignore").write_text("*.log\n")
    files = {f.path: f for f in diffmod.item_diff(hall_repo, item_id).files}
    assert set(files) == {"nl.txt", "blob.dat", "empty.txt", ".gitignore"}
    nl = files["nl.txt"]
    assert nl.added == 2 and [ln.kind for ln in nl.hunks[0].lines] == ["+", "+", "\\"]
    assert files["blob.dat"].binary and files["empty.txt"].added == 0


def test_a_missing_base_branch_is_a_clear_error(hall_repo, new_item):
    item_id, _ = new_item()
    git(hall_repo.root, "branch", "-m", "main", "trunk")
    with pytest.raises(HallError) as err:
        diffmod.item_diff(hall_repo, item_id)
    assert err.value.code == "COMMAND_FAILED" and "'main' does not exist" in err.value.message
