"""Git hooks that publish: `git commit` (and the other hook-running commands) run the repo's hooks,
so a hook an agent can edit (core.hooksPath inside the worktree, husky's `.husky/`) must not become
a way to push without a hallmark."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from gatehelp import bash, decision, hook_env, make_repo, run_hook
from hallmark.hooks.main import run


def verdict(command: str, cwd) -> tuple[str, str]:
    answer = run("pre-tool-use", json.dumps(bash(command, cwd)).encode())
    if answer is None:
        return "pass", ""
    out = answer["hookSpecificOutput"]
    return out["permissionDecision"], out.get("permissionDecisionReason", "")


def write_hook(path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(0o755)


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path)


def test_a_hooks_path_hook_that_pushes_makes_commit_a_push(repo):
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=repo.wt, check=True, env=repo.env)
    hook = repo.wt / ".githooks" / "pre-commit"
    write_hook(hook, "#!/bin/sh\n# lint only: never git push from here\nruff check .\n")
    assert verdict("git commit -m x", repo.wt)[0] == "pass"  # a comment that says push is not a push
    write_hook(hook, "#!/bin/sh\nruff check .\ngit push origin HEAD\n")
    got, reason = verdict("git commit -m x", repo.wt)
    assert got == "deny" and "pre-commit hook" in json.loads(reason)["error"]["message"]
    assert verdict("git add -A && git commit -am x", repo.wt)[0] == "deny"
    assert verdict("git commit --no-verify -m x", repo.wt)[0] == "pass"  # pre-commit does not run
    assert verdict("git status", repo.wt)[0] == "pass"


def test_husky_wrappers_lead_to_the_users_hook(repo):
    """husky v9: core.hooksPath = .husky/_ (wrappers), the user's hook is .husky/<name>."""
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=repo.wt, check=True, env=repo.env)
    write_hook(repo.wt / ".husky" / "_" / "post-checkout", '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    write_hook(repo.wt / ".husky" / "_" / "h", "#!/usr/bin/env sh\n# runs .husky/$n\n")
    write_hook(repo.wt / ".husky" / "post-checkout", "npx lint-staged\n")
    assert verdict("git checkout -b other", repo.wt)[0] == "pass"
    write_hook(repo.wt / ".husky" / "post-checkout", "gh pr create --fill\n")
    assert verdict("git checkout -b other", repo.wt)[0] == "deny"
    assert verdict("git switch main", repo.wt)[0] == "deny"


def test_the_default_hooks_dir_is_shared_by_every_worktree(repo, pycache):
    """Without core.hooksPath the hooks live in the common dir: a worktree's commit runs them too.
    Through the real hook process."""
    common = subprocess.run(
        ["git", "rev-parse", "--git-common-dir"], cwd=repo.wt, capture_output=True, text=True, check=True, env=repo.env
    ).stdout.strip()
    hooks = os.path.join(repo.wt if not os.path.isabs(common) else "", common, "hooks")
    write_hook(__import__("pathlib").Path(hooks) / "post-commit", "#!/bin/sh\ngit push -q origin HEAD\n")
    env = hook_env(repo, pycache)
    code, out, err = run_hook("pre-tool-use", bash("git commit -m x", repo.wt), env)
    assert code == 0 and decision(out) == "deny", err
    code, out, _ = run_hook("pre-tool-use", bash("git commit -m x", repo.main), env)
    assert decision(out) == "deny"  # the main checkout has no hallmark either
