"""`gh alias set` aliases: the push gate reads gh's config.yml and expands them as gh does, so
`gh pc` (= `pr create`) is denied even in the main checkout, where unknown gh verbs pass."""

from __future__ import annotations

import json

import pytest
from gatehelp import bash, decision, hook_env, run_hook
from hallmark.core.gates.gh_config import read_gh_aliases
from hallmark.hooks.main import run

CONFIG = """\
# What protocol to use when performing git operations.
git_protocol: https
editor:
aliases:
    co: pr checkout
    pc: pr create --fill
    'mg': "pr merge $1 --squash"
    shp: '!gh pr create --title "$1"'
    shv: '!gh pr view $1'
    rel: release create
    lsx: pr list # a comment
    api-merge: api -X PUT repos/o/r/pulls/$1/merge
    pr: pr create
version: "1"
"""

CASES = [
    ("gh pc", "deny"),
    ("gh mg 12", "deny"),
    ("gh shp hi", "deny"),
    ("gh rel v1.0", "deny"),
    ("gh api-merge 3", "deny"),
    ("cd sub && gh pc", "deny"),
    ("gh -R o/r pc", "deny"),
    ("gh co 3", "pass"),
    ("gh lsx", "pass"),
    ("gh shv 4", "pass"),
    ("gh pr list", "pass"),  # `pr` cannot be aliased
    ("gh unknownthing", "pass"),  # not an alias: unknown verbs pass outside a worktree (strict denies them)
]


@pytest.fixture
def gh_config(tmp_path, monkeypatch):
    folder = tmp_path / "gh"
    folder.mkdir()
    (folder / "config.yml").write_text(CONFIG)
    monkeypatch.setenv("GH_CONFIG_DIR", str(folder))
    return folder


def test_the_aliases_map_is_read_without_yaml(gh_config):
    aliases = read_gh_aliases({"GH_CONFIG_DIR": str(gh_config)})
    assert aliases["pc"] == "pr create --fill" and aliases["mg"] == "pr merge $1 --squash"
    assert aliases["shp"] == '!gh pr create --title "$1"' and aliases["lsx"] == "pr list"
    assert "git_protocol" not in aliases and "version" not in aliases
    assert read_gh_aliases({"GH_CONFIG_DIR": str(gh_config / "missing")}) == {}


@pytest.mark.parametrize(("command", "expected"), CASES)
def test_aliases_are_expanded_in_the_main_checkout(gate_repo, gh_config, command, expected):
    answer = run("pre-tool-use", json.dumps(bash(command, gate_repo.main)).encode())
    got = "pass" if answer is None else answer["hookSpecificOutput"]["permissionDecision"]
    assert got == expected, answer


def test_aliases_through_the_real_hook(gate_repo, gh_config, pycache):
    env = hook_env(gate_repo, pycache, GH_CONFIG_DIR=str(gh_config))
    got = {command: decision(run_hook("pre-tool-use", bash(command, gate_repo.main), env)[1]) for command, _ in CASES}
    assert got == dict(CASES)
    (gh_config / "config.yml").write_text("aliases: [broken\n\x00")  # garbage config: no aliases, no crash
    code, out, err = run_hook("pre-tool-use", bash("gh pc", gate_repo.main), env)
    assert code == 0 and decision(out) == "pass" and "Traceback" not in err
