"""Git's own wall: the pre-push hook `hall init` installs refuses any pushed commit without a valid
hallmark, whoever pushes (a script here, not the Claude Code hook), and lets hallmarked work go.

Every push in this file is real: a local bare repository is the remote.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from gatehelp import GateRepo, commit_file, git, hallmark_commit, make_repo
from hallmark.core import githooks
from hallmark.core.paths import discover


@pytest.fixture
def repo(tmp_path) -> GateRepo:
    r = make_repo(tmp_path)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=r.env)
    git(r.main, "remote", "add", "origin", str(bare), env=r.env)
    r.bare = bare  # type: ignore[attr-defined]
    return r


def script_push(r: GateRepo, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A Python script pushing through git: what an agent's script, a Makefile or an npm script does."""
    code = "import subprocess, sys\nsys.exit(subprocess.run(['git', 'push', *sys.argv[1:]]).returncode)\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd or r.wt, env=r.env, capture_output=True, text=True, timeout=60
    )


def remote_has(r: GateRepo, ref: str) -> bool:
    return (
        subprocess.run(
            ["git", "rev-parse", "--verify", "-q", ref],
            cwd=r.bare,
            env=r.env,  # type: ignore[attr-defined]
            capture_output=True,
        ).returncode
        == 0
    )


def test_init_installs_the_hook_and_doctor_sees_it(repo):
    hook = Path(git(repo.main, "rev-parse", "--git-path", "hooks", env=repo.env))
    hook = (repo.main / hook / "pre-push") if not hook.is_absolute() else hook / "pre-push"
    assert githooks.MARK in hook.read_text() and os.access(hook, os.X_OK)
    assert githooks.status(discover(repo.main))["ok"]


def test_a_script_pushing_an_unhallmarked_commit_is_refused(repo):
    commit_file(repo, "feature.py")
    branch = git(repo.wt, "branch", "--show-current", env=repo.env)
    done = script_push(repo, "origin", f"HEAD:refs/heads/{branch}")
    assert done.returncode != 0
    assert "Hallmark refuses to push" in done.stderr and "has no hallmark" in done.stderr
    assert f"hall ready {repo.item}" in done.stderr  # names the item and what to run
    assert not remote_has(repo, f"refs/heads/{branch}")


def test_the_hallmarked_commit_goes_through(repo):
    sha = commit_file(repo, "feature.py")
    hallmark_commit(repo, sha)
    branch = git(repo.wt, "branch", "--show-current", env=repo.env)
    done = script_push(repo, "-u", "origin", branch)
    assert done.returncode == 0, done.stderr
    assert git(repo.bare, "rev-parse", f"refs/heads/{branch}", env=repo.env) == sha  # type: ignore[attr-defined]


def test_the_shipper_push_of_a_hallmarked_item_goes_through_with_no_special_environment(repo):
    """The ship template, run as the shipper runs it (sh -c in the worktree): it passes because the
    commit is hallmarked, and the same command is refused on an unhallmarked commit."""
    sha = commit_file(repo, "feature.py")
    branch = git(repo.wt, "branch", "--show-current", env=repo.env)
    ship = f"git push -q -u origin {branch}"
    refused = subprocess.run(
        ["sh", "-c", ship],
        cwd=repo.wt,
        env={**repo.env, "HALL_ACTOR": "shipper"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "Hallmark refuses" in refused.stderr  # the actor opens nothing
    hallmark_commit(repo, sha)
    done = subprocess.run(["sh", "-c", ship], cwd=repo.wt, env=repo.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert remote_has(repo, f"refs/heads/{branch}")


def test_every_ref_of_a_push_is_checked(repo):
    sha = commit_file(repo, "feature.py")
    hallmark_commit(repo, sha)
    branch = git(repo.wt, "branch", "--show-current", env=repo.env)
    done = script_push(repo, "origin", branch, "main")  # main is not hallmarked
    assert done.returncode != 0 and "push main" in done.stderr
    assert not remote_has(repo, f"refs/heads/{branch}")  # git sends nothing when the hook refuses
    done = script_push(repo, "--all", "origin")
    assert done.returncode != 0


def test_a_tag_on_an_unhallmarked_commit_is_refused_and_a_deletion_passes(repo):
    commit_file(repo, "feature.py")
    git(repo.wt, "tag", "-a", "v1", "-m", "v1", env=repo.env)
    assert script_push(repo, "origin", "v1").returncode != 0
    sha = git(repo.wt, "rev-parse", "HEAD", env=repo.env)
    hallmark_commit(repo, sha)
    assert script_push(repo, "origin", "v1").returncode == 0  # the annotated tag is peeled to its commit
    assert script_push(repo, "origin", ":refs/tags/v1").returncode == 0  # a deletion sends no commit


def test_the_record_itself_may_be_pushed_but_nothing_else_under_its_name(repo):
    """The shipper pushes refs/notes/hallmark with the branch (so CI can `hall verify`): the local notes
    commit, holding only notes, passes; a code commit sent under the notes ref's name, or a notes
    commit whose tree carries a file, is refused."""
    sha = commit_file(repo, "feature.py")
    hallmark_commit(repo, sha)
    assert script_push(repo, "origin", "refs/notes/hallmark").returncode == 0
    assert remote_has(repo, "refs/notes/hallmark")
    other = commit_file(repo, "smuggled.py")
    done = script_push(repo, "origin", f"+{other}:refs/notes/hallmark")
    assert done.returncode != 0 and "Hallmark refuses to push" in done.stderr
    blob = git(repo.main, "hash-object", "-w", "--stdin", env=repo.env, input="print('code')\n")
    tree = git(repo.main, "mktree", env=repo.env, input=f"100644 blob {blob}\tpayload.py\n")
    forged = git(repo.main, "commit-tree", tree, "-p", "refs/notes/hallmark", "-m", "n", env=repo.env)
    git(repo.main, "update-ref", "refs/notes/hallmark", forged, env=repo.env)
    done = script_push(repo, "origin", "refs/notes/hallmark")
    assert done.returncode != 0 and "not notes" in done.stderr


def test_a_hook_that_was_there_is_chained(tmp_path):
    r = make_repo(tmp_path)
    hooks = Path(git(r.main, "rev-parse", "--git-common-dir", env=r.env))
    hooks = (r.main / hooks if not hooks.is_absolute() else hooks) / "hooks"
    paths = discover(r.main)
    githooks.remove(paths)
    marker = tmp_path / "user-hook-ran"
    user = hooks / "pre-push"
    user.write_text(f'#!/bin/sh\ncat > {marker}\necho "$@" >> {marker}\nexit 0\n')
    user.chmod(user.stat().st_mode | stat.S_IXUSR)
    assert not githooks.status(paths)["ok"]
    result = githooks.install(paths)
    assert result["dirs"][0]["action"] == "chain and install"
    assert (hooks / githooks.CHAINED).read_text().startswith("#!/bin/sh\ncat >")
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=r.env)
    git(r.main, "remote", "add", "origin", str(bare), env=r.env)
    sha = commit_file(r, "feature.py")
    hallmark_commit(r, sha)
    branch = git(r.wt, "branch", "--show-current", env=r.env)
    done = subprocess.run(["git", "push", "origin", branch], cwd=r.wt, env=r.env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ran = marker.read_text()
    assert sha in ran and "origin" in ran  # the chained hook saw the same stdin and arguments
    user_refuses = hooks / githooks.CHAINED
    user_refuses.write_text("#!/bin/sh\necho the user says no >&2\nexit 1\n")
    done = subprocess.run(
        ["git", "push", "origin", f"{branch}:refs/heads/again"], cwd=r.wt, env=r.env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "the user says no" in done.stderr
    assert githooks.install(paths)["dirs"][0]["action"] == "unchanged"
    githooks.remove(paths)
    assert user.read_text().startswith("#!/bin/sh\necho the user says no")  # restored


def test_core_hooks_path_and_husky_are_honoured(tmp_path):
    r = make_repo(tmp_path)
    paths = discover(r.main)
    (r.main / ".husky" / "_").mkdir(parents=True)
    husky_user = r.main / ".husky" / "pre-push"
    husky_user.write_text("#!/bin/sh\nexit 0\n")
    wrapper = r.main / ".husky" / "_" / "pre-push"
    wrapper.write_text('#!/bin/sh\n. "$(dirname "$0")/../pre-push"\n')
    wrapper.chmod(0o755)
    git(r.main, "config", "core.hooksPath", ".husky/_", env=r.env)
    state = githooks.status(paths)
    assert not state["ok"]
    githooks.install(paths)
    assert githooks.status(paths)["ok"]
    assert githooks.MARK in wrapper.read_text()
    assert (r.main / ".husky" / "_" / githooks.CHAINED).is_file()
    wt_hook = r.wt / ".husky" / "_" / "pre-push"  # a relative hooksPath resolves in each worktree
    assert githooks.MARK in wt_hook.read_text()
    assert git(r.wt, "status", "--porcelain", env=r.env) == ""  # excluded: the worktree stays clean
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=r.env)
    git(r.main, "remote", "add", "origin", str(bare), env=r.env)
    commit_file(r, "feature.py")
    branch = git(r.wt, "branch", "--show-current", env=r.env)
    done = subprocess.run(["git", "push", "origin", branch], cwd=r.wt, env=r.env, capture_output=True, text=True)
    assert done.returncode != 0 and "Hallmark refuses" in done.stderr


def test_a_missing_hall_hook_refuses_and_names_the_repair(repo):
    hooks = Path(git(repo.main, "rev-parse", "--git-common-dir", env=repo.env))
    hook = (repo.main / hooks if not hooks.is_absolute() else hooks) / "hooks" / "pre-push"
    hook.write_text(hook.read_text().replace("HALL_HOOK='", "HALL_HOOK='/nowhere"))
    done = script_push(repo, "origin", "HEAD:refs/heads/x")
    assert done.returncode != 0 and "hall setup git" in done.stderr
    assert not githooks.status(discover(repo.main))["ok"]


def test_setup_git_repairs_and_doctor_names_it(repo, hall):
    hooks = Path(git(repo.main, "rev-parse", "--git-common-dir", env=repo.env))
    hook = (repo.main / hooks if not hooks.is_absolute() else hooks) / "hooks" / "pre-push"
    hook.unlink()
    doctor = hall("doctor", cwd=repo.main, env=repo.env).json
    check = next(c for c in doctor["checks"] if c["check"] == "pre-push")
    assert not check["ok"] and check["fix"] == "hall setup git"
    assert hall("setup", "git", "--dry-run", cwd=repo.main, env=repo.env).json["dirs"][0]["action"] == "install"
    assert not hook.exists()
    done = hall("setup", "git", cwd=repo.main, env=repo.env)
    assert done.code == 0 and json.loads(done.stdout)["ok"]
    assert githooks.MARK in hook.read_text()
    refused = hall("setup", "git", cwd=repo.main, env={**repo.env, "CLAUDECODE": "1"})
    assert refused.code == 5  # a person's setup


def test_a_new_worktree_under_a_relative_hooks_path_gets_the_hook(tmp_path):
    from hallmark.core import items
    from hallmark.core.repo import open_repo

    r = make_repo(tmp_path)
    paths = discover(r.main)
    (r.main / ".githooks").mkdir()
    git(r.main, "config", "core.hooksPath", ".githooks", env=r.env)
    githooks.install(paths)
    saved = dict(os.environ)
    os.environ.update(r.env)
    try:
        created = items.new(open_repo(r.main), title="second", actor="you")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    hook = Path(created["worktree"]) / ".githooks" / "pre-push"
    assert githooks.MARK in hook.read_text()
    assert githooks.status(paths)["ok"]
