"""The smallest end-to-end: init, new, ready through the real `hall`."""

from pathlib import Path


def test_new_and_ready(hall, hall_repo):
    root = hall_repo.root
    created = hall("new", "--title", "Fix the parser", cwd=root)
    assert created.code == 0, created.stdout
    data = created.json
    assert data["item"] == "H-0001" and data["state"] == "development"
    assert Path(data["worktree"]).is_dir()
    ready = hall("ready", cwd=Path(data["worktree"]))
    assert ready.code == 0, ready.stdout
    assert ready.json["state"] == "checks"
