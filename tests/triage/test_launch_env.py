"""launch_env: HALL_ITEM and one project identity across all worktrees."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hallmark.core.launch_env import launch_env, normalise_remote, project_name


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Owner/repo.git", "github.com/Owner/repo"),
        ("https://github.com/owner/repo.git", "github.com/owner/repo"),
        ("https://user:tok@GitHub.com/owner/repo/", "github.com/owner/repo"),
        ("ssh://git@github.com:22/owner/repo.git", "github.com/owner/repo"),
        ("/srv/git/project.git", "project"),
        ("file:///srv/git/project.git", "project"),
    ],
)
def test_normalise_remote(url: str, expected: str) -> None:
    assert normalise_remote(url) == expected


def test_directory_name_when_nothing_else(git_repo: Path) -> None:
    env = launch_env(git_repo, "H-0001")
    assert env == {"HALL_ITEM": "H-0001", "AGENTMEMORY_PROJECT_NAME": git_repo.name}


def test_origin_url_beats_directory_name(git_repo: Path) -> None:
    git(git_repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    assert project_name(git_repo) == "github.com/acme/widgets"


def test_project_file_wins_and_actor_passes(hall_repo) -> None:
    root = hall_repo.root
    git(root, "remote", "add", "origin", "https://github.com/acme/widgets")
    (root / ".agentmemory-project").write_text("# identity\nacme-widgets\n")
    env = launch_env(hall_repo, "H-0007", actor="fixer")
    assert env == {"HALL_ITEM": "H-0007", "AGENTMEMORY_PROJECT_NAME": "acme-widgets", "HALL_ACTOR": "fixer"}


def test_same_identity_from_a_worktree(hall_repo) -> None:
    from hallmark.core.repo import open_repo

    root = hall_repo.root
    wt = root.parent / "wt"
    git(root, "worktree", "add", "-q", "-b", "side", str(wt))
    committed = (root / ".agentmemory-project").read_text().strip()  # proposed by hall init
    assert project_name(open_repo(wt)) == project_name(hall_repo) == committed


def test_agrees_with_the_memory_store(hall_repo):
    identity = pytest.importorskip("hallmark.core.memory.identity")
    assert launch_env(hall_repo, "H-0001")["AGENTMEMORY_PROJECT_NAME"] == identity.current(hall_repo.paths).value


def test_uncommitted_identity_file_falls_back_to_main_checkouts_file(git_repo):
    (git_repo / ".agentmemory-project").write_text("acme-widgets\n")  # not committed
    assert project_name(git_repo) == "acme-widgets"


def test_json_project_file(git_repo: Path) -> None:
    (git_repo / ".agentmemory-project").write_text('{"name": "acme"}\n')
    assert launch_env(git_repo, None) == {"AGENTMEMORY_PROJECT_NAME": "acme"}
