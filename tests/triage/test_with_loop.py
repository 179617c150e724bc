"""Triage against the review loop's own modules: real findings from verdict events, real leases."""

from __future__ import annotations

import json

import pytest
from hallmark.core import items, waiting
from hallmark.core.diff import item_diff
from hallmark.core.takeover import takeover

findings_mod = pytest.importorskip("hallmark.core.loop.findings")
leases = pytest.importorskip("hallmark.core.loop.leases")


def _verdict(repo, item_id, sha):
    # written the way the loop writes it: a `verdict` event carrying the findings of the round
    items.record(
        repo,
        item_id,
        "verdict",
        actor="assayer",
        round=1,
        sha=sha,
        outcome="changes_requested",
        still_open=[],
        findings=[
            {
                "id": "F-1",
                "lens": "correctness",
                "severity": "major",
                "file": "app.py",
                "line": 6,
                "title": "division by zero",
                "scenario": "div(1, 0) raises ZeroDivisionError",
            },
            {
                "id": "F-2",
                "lens": "tests",
                "severity": "minor",
                "file": "tests/test_app.py",
                "line": 1,
                "title": "no test",
                "scenario": "nothing covers div",
            },
        ],
    )


def test_real_findings_anchor_inline(hall_repo, new_item, commit_all):
    item_id, wt = new_item()
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n")
    sha = commit_all(wt)
    _verdict(hall_repo, item_id, sha)
    assert [f["id"] for f in findings_mod.list_findings(hall_repo, item_id, open_only=True)] == ["F-1", "F-2"]
    d = item_diff(hall_repo, item_id)
    hunk = d.files[0].hunks[0]
    assert [(f["id"], f["severity"], f["lens"]) for f in hunk.findings] == [("F-1", "major", "correctness")]
    assert hunk.lines[hunk.findings[0]["line_index"]].text == "    return a / b"
    assert [f["id"] for f in d.unanchored_findings] == ["F-2"]  # its file is not in the change
    items.record(hall_repo, item_id, "fixed", actor="fixer", findings=["F-1"], sha=sha)
    assert [f["id"] for f in item_diff(hall_repo, item_id).files[0].hunks[0].findings] == []  # open only


def test_a_lease_means_working_and_takeover_releases_it(hall_repo, new_item, commit_all):
    item_id, wt = new_item()
    (wt / "w.py").write_text("w = 1\n")
    sha = commit_all(wt)
    items.ready(hall_repo, item_id)
    items.transition(hall_repo, item_id, "checks_passed", actor="assayer", sha=sha)
    leases.acquire(hall_repo, item_id, "review")
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, item_id))[0] == "working"
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    init = {"type": "system", "subtype": "init", "session_id": "s-1", "cwd": str(wt)}
    (runs / "20261130T094312123Z-review.jsonl").write_text(json.dumps(init) + "\n")
    result = takeover(hall_repo, item_id)
    assert result["lease_released"] is True and leases.current(hall_repo, item_id) is None
    assert waiting.classify(hall_repo, items.fold_item(hall_repo, item_id))[0] == "idle"
    assert items.fold_item(hall_repo, item_id).state == "development"
