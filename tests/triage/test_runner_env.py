"""Headless runs get the same launch environment as `--open` and take-over (HALL_ITEM, project name)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_headless_run_sees_hall_item_and_the_project_name(hall_repo, new_item, standin_claude):
    spawn = pytest.importorskip("hallmark.core.runner.spawn")
    item_id, wt = new_item()
    spawn.run(hall_repo, spawn.RunSpec(role="review", prompt="review this", cwd=wt, item_id=item_id, timeout_s=30))
    launched = standin_claude()
    assert len(launched) == 1
    env = launched[0]["env"]
    assert env["HALL_ITEM"] == item_id
    assert env["AGENTMEMORY_PROJECT_NAME"] == (hall_repo.root / ".agentmemory-project").read_text().strip()
    assert env["HALL_ACTOR"]  # the runner names the role acting
    assert Path(launched[0]["cwd"]).resolve() == wt.resolve()
