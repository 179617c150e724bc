"""The push gate follows build runners: make targets, just recipes, package.json scripts.

A push hidden in `make publish` is a push (denied in any mode, naming the file and target);
a harmless target passes; a target that cannot be followed but mentions push or release is
denied in strict mode inside an item's worktree only. Every command is only a string handed to
the hook; nothing here runs a push.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import pytest
from gatehelp import bash, decision, git, hook_env, make_repo, run_hook
from hallmark.core.gates import push, scripts
from hallmark.hooks.main import run

MAKEFILE = (
    "GIT = git\n"
    "PY ?= python3\n"
    ".PHONY: all test publish ship again tag-release env-push\n"
    "all: test\n"
    "test:\n\t@pytest -q\n"
    "publish: test\n\t-git push origin HEAD\n"
    "ship: publish\n"
    "again:\n\t$(MAKE) publish\n"
    "via-var:\n\t$(GIT) push --tags\n"
    "env-push:\n\t$(UPLOADER) push\n"
    "tag-release:\n\t$(call do_release,v1)\n"
    "continued:\n\techo one && \\\n\t  git push\n"
    "inline: ; git push origin main\n"
    "dollars:\n\tfor f in *.py; do echo $$f; done\n"
    "cov:\n\t$(PYTEST) --cov $(wildcard src/*.py)\n"
)
JUSTFILE = (
    'set shell := ["bash", "-c"]\n'
    "alias d := deploy\n\n"
    "test:\n    pytest -q\n\n"
    "deploy target='prod': test\n    @echo deploying {{target}}\n    git push origin main\n\n"
    "release:\n    #!/usr/bin/env python3\n    import subprocess\n    subprocess.run(['git', 'push'])\n\n"
    "script:\n    #!/usr/bin/env bash\n    set -e\n    git push --tags\n\n"
    "computed:\n    {{ uploader }} release\n"
)
PACKAGE = {
    "name": "demo",
    "scripts": {
        "test": "pytest -q",
        "build": "echo build",
        "release": "git push --tags",
        "postversion": "git push --follow-tags",
        "deploy": "npm run build && npm run release",
        "prebuild": "echo pre",
    },
}


def answer(payload: dict) -> str:
    out = run("pre-tool-use", json.dumps(payload).encode())
    return "pass" if out is None else out["hookSpecificOutput"]["permissionDecision"]


def reason(payload: dict) -> str:
    out = run("pre-tool-use", json.dumps(payload).encode())
    assert out is not None, "expected a denial"
    return out["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    built = make_repo(tmp_path_factory.mktemp("runners"))
    git(built.main, "tag", "v0", env=built.env)  # `git push --tags` sends it: an unhallmarked commit
    for where in (built.wt, built.main):
        (where / "Makefile").write_text(MAKEFILE)
        (where / "justfile").write_text(JUSTFILE)
        (where / "package.json").write_text(json.dumps(PACKAGE))
        (where / "tools").mkdir()
        (where / "tools" / "Makefile").write_text("up:\n\tgit push origin main\nlint:\n\truff check .\n")
        (where / "tools" / "release.mk").write_text("publish:\n\tgh pr create --fill\n")
        (where / "tools" / "bad").mkdir()
        (where / "tools" / "bad" / "package.json").write_text('{"scripts": {"release": ')
        (where / "web").mkdir()
        (where / "web" / "package.json").write_text(
            json.dumps({"scripts": {"release": "yarn run tag", "tag": "git push origin --tags"}})
        )
    return built


@contextmanager
def push_guard(built, value: str):
    config = built.main / ".hallmark.toml"
    saved = config.read_text()
    if re.search(r"(?m)^push_guard\s*=", saved):
        text = re.sub(r"(?m)^push_guard\s*=.*$", f'push_guard = "{value}"', saved)
    else:
        text = re.sub(r"(?m)^\[capture\]\s*$", f'[capture]\npush_guard = "{value}"', saved, count=1)
    assert text != saved or value == "strict"
    config.write_text(text)
    try:
        yield
    finally:
        config.write_text(saved)


PUSHES = [
    "make publish",
    "make ship",
    "make again",
    "make via-var",
    "make continued",
    "make inline",
    "make -C tools up",
    "make -Ctools up",
    "make --directory=tools up",
    "make -f tools/release.mk publish",
    "make -f tools/release.mk",
    "cd tools && make",
    "cd tools && make up",
    "make -j 4 publish",
    "make PY=python publish",
    "gmake publish",
    "just deploy",
    "just d",
    "just deploy staging",
    "just script",
    "just --justfile justfile deploy",
    "npm run release",
    "npm run-script release",
    "npm run deploy",
    "npm version patch",
    "npm --prefix web run release",
    "pnpm run release",
    "pnpm release",
    "pnpm -C web release",
    "yarn release",
    "yarn run release",
    "yarn --cwd web release",
    "bun run release",
    "bun release",
    "cd web && npm run release",
    "timeout 60 make publish",
    "env CI=1 make publish",
    "bash -c 'make publish'",
    "make test && make publish",
]
HARMLESS = [
    "make test",
    "make",
    "make all",
    "make dollars",
    "make cov",
    "make -C tools lint",
    "make -n test",
    "make missing-target",
    "just test",
    "just --list",
    "just",
    "npm test",
    "npm run build",
    "npm run test",
    "pnpm test",
    "yarn test",
    "yarn build",
    "bun run build",
    "npm install",
    "npm run",
    "npm ci",
    "yarn",
    "bun x.ts",
    "bun run x.ts",
    "make -C nowhere publish",
    "npm --prefix nowhere run release",
]


@pytest.mark.parametrize("command", PUSHES)
def test_a_push_in_a_runner_is_denied_in_the_worktree(repo, command):
    assert answer(bash(command, repo.wt)) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "make publish",
        "just deploy",
        "npm run release",
        "pnpm release",
        "yarn release",
        "bun run release",
        "make -C tools up",
    ],
)
def test_a_push_in_a_runner_is_denied_outside_a_worktree_and_in_parse_mode(repo, command):
    assert answer(bash(command, repo.main)) == "deny"
    with push_guard(repo, "parse"):
        assert answer(bash(command, repo.wt)) == "deny"


@pytest.mark.parametrize("command", HARMLESS)
def test_a_harmless_target_passes(repo, command):
    assert answer(bash(command, repo.wt)) == "pass"


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("make publish", "Makefile target publish"),
        ("make -f tools/release.mk publish", "release.mk target publish"),
        ("just deploy", "justfile recipe deploy"),
        ("npm run release", "package.json script release"),
        ("npm version patch", "package.json script postversion"),
        ("yarn --cwd web release", "script tag"),
    ],
)
def test_the_denial_names_the_file_and_target(repo, command, named):
    text = reason(bash(command, repo.wt))
    assert named in text and "publishes" in text


UNFOLLOWABLE = [
    "make tag-release",  # $(call …) that mentions release
    "make env-push",  # a command word from the environment, and the body says push
    "just release",  # a python shebang recipe that mentions push
    "just computed",  # a {{ }} interpolation that mentions release
    "npm --prefix tools/bad run release",  # package.json that cannot be parsed
    "make -f tools publish",  # a makefile that cannot be read (a directory)
]


# a command word computed at run time is strict in the main checkout too (issue 12)
COMPUTED_WORD = {"make env-push", "just computed"}


@pytest.mark.parametrize("command", UNFOLLOWABLE)
def test_strict_mode_denies_what_cannot_be_followed_only_in_a_worktree(repo, command):
    assert answer(bash(command, repo.wt)) == "deny"
    assert "cannot follow" in reason(bash(command, repo.wt))
    assert answer(bash(command, repo.main)) == ("deny" if command in COMPUTED_WORD else "pass")
    with push_guard(repo, "parse"):
        assert answer(bash(command, repo.wt)) == "pass"


def test_push_allow_lets_an_unfollowable_target_through(repo):
    config = repo.main / ".hallmark.toml"
    saved = config.read_text()
    config.write_text(re.sub(r"(?m)^\[capture\]\s*$", '[capture]\npush_allow = ["make tag-release"]', saved, count=1))
    try:
        assert answer(bash("make tag-release", repo.wt)) == "pass"
        assert answer(bash("make publish", repo.wt)) == "deny"  # a real push is never allowed by the list
    finally:
        config.write_text(saved)


def test_through_the_real_hook_process(repo, pycache):
    env = hook_env(repo, pycache)
    for command, where, expected in (
        ("make publish", repo.wt, "deny"),
        ("make test", repo.wt, "pass"),
        ("npm run release", repo.main, "deny"),
        ("just test", repo.wt, "pass"),
        ("make tag-release", repo.wt, "deny"),
        ("make tag-release", repo.main, "pass"),
    ):
        code, out, err = run_hook("pre-tool-use", bash(command, where), env)
        assert code == 0 and "Traceback" not in err
        assert decision(out) == expected, (command, out)
        if expected == "deny" and command == "make publish":
            assert "Makefile target publish" in json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]


# -- the parsers, in-process ------------------------------------------------------------------


def test_a_recursive_makefile_terminates(tmp_path):
    (tmp_path / "Makefile").write_text("loop:\n\t$(MAKE) loop\n\t$(MAKE) -C . loop\nx:\n\tgit push\n")
    assert push.analyze("make loop", push.Context(str(tmp_path))) == []
    assert [f.kind for f in push.analyze("make x", push.Context(str(tmp_path)))] == ["push"]


def test_default_goal_and_patterns(tmp_path):
    (tmp_path / "Makefile").write_text(
        ".DEFAULT_GOAL := up\nfirst:\n\techo hi\nup:\n\tgit push\ndeploy-%:\n\tgit push $* main\n"
    )
    kinds = lambda c: [f.kind for f in push.analyze(c, push.Context(str(tmp_path)))]  # noqa: E731
    assert kinds("make") == ["push"]
    assert kinds("make first") == []
    assert kinds("make deploy-origin") == ["push"]


def test_shell_assignments_run_when_make_reads_the_file(tmp_path):
    (tmp_path / "Makefile").write_text("V := $(shell git push -q)\nall:\n\techo hi\n")
    assert [f.kind for f in push.analyze("make", push.Context(str(tmp_path)))] == ["push"]


def test_a_script_body_that_is_not_a_string_is_strict(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"release": ["git", "push"]}}))
    steps = scripts.plan("npm", ["run", "release"], str(tmp_path))
    assert [s.kind for s in steps] == ["strict"]
