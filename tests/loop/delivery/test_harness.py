"""The harness itself: the real gh reaches the scripted GitHub, and git fetches over https."""

from __future__ import annotations

import json
import subprocess


def _gh(cwd, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["gh", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_the_real_gh_opens_and_views_a_pr_on_the_scripted_github(loop_repo, github, kit):
    root = loop_repo.root
    kit.git(root, "fetch", "-q", "origin")  # git over https through the scripted server
    kit.git(root, "checkout", "-q", "-b", "topic")
    (root / "t.txt").write_text("t\n")
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "t")
    kit.git(root, "push", "-q", "--no-verify", "origin", "topic")
    made = _gh(root, "pr", "create", "--base", "main", "--head", "topic", "--title", "T", "--body", "B")
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip().endswith("/acme/remote/pull/1")
    viewed = _gh(root, "pr", "view", "1", "--json", "state,mergeable,headRefOid,statusCheckRollup")
    assert viewed.returncode == 0, viewed.stderr
    data = json.loads(viewed.stdout)
    assert data["state"] == "OPEN" and data["headRefOid"] == kit.git(root, "rev-parse", "HEAD")
    assert [r["op"] for r in github.requests] == [
        "RepositoryInfo",
        "PullRequestForBranch",
        "PullRequestCreate",
        "PullRequestByNumber",
    ], github.ops()


def test_the_real_gh_reads_a_failing_job_log(loop_repo, github, kit, sg):
    root = loop_repo.root
    github.prs[1] = sg.PullRequest(1, "T", "B", "main", "main")
    github.prs[1].checks = [
        {"name": "tests", "conclusion": "FAILURE", "run": 42, "log": "FAILED test_x.py::t - boom\n"}
    ]
    got = _gh(root, "run", "view", "42", "--log-failed")
    assert got.returncode == 0, got.stderr
    assert "FAILED test_x.py::t - boom" in got.stdout
