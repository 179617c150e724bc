"""The edit gate: real paths compared by components, free globs, the three capture modes."""

from __future__ import annotations

import json
import os

import pytest
from gatehelp import bash, decision, git, hook_env, make_repo, run_hook
from hallmark.core.gates.edit import is_free
from hallmark.hooks.main import run


def edit(path: str, cwd, tool: str = "Edit") -> dict:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    return {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_name": tool,
        "tool_input": {key: path, "old_string": "a", "new_string": "b", "content": "x"},
    }


def answer(payload: dict) -> str:
    out = run("pre-tool-use", json.dumps(payload).encode())
    return "pass" if out is None else out["hookSpecificOutput"]["permissionDecision"]


@pytest.fixture(scope="module")
def r(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("edit"))
    os.symlink(repo.main / "app.py", repo.wt / "link-to-main.py")
    os.symlink(repo.wt / "app.py", repo.other / "link-into-worktree.py")
    os.symlink(repo.main, repo.other / "main-link")
    return repo


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit", "NotebookEdit"])
def test_every_edit_tool_is_gated_in_the_main_checkout(r, tool):
    assert answer(edit(str(r.main / "app.py"), r.main, tool)) == "deny"
    assert answer(edit(str(r.wt / "app.py"), r.main, tool)) == "pass"


CASES = [
    # (path, cwd: main|wt|other, expected)
    ("app.py", "main", "deny"),  # relative to the payload's cwd
    ("app.py", "wt", "pass"),
    ("./src/../app.py", "wt", "pass"),
    ("../repo/app.py", "wt", "deny"),  # `..` out of the worktree into the main checkout
    ("{wt}/../repo/app.py", "main", "deny"),
    ("{wt}/sub/../app.py", "main", "pass"),
    ("{wt}/link-to-main.py", "wt", "deny"),  # a symlink in the worktree pointing into the main checkout
    ("{other}/link-into-worktree.py", "main", "pass"),  # an outside path resolving into the worktree
    ("{other}/main-link/app.py", "wt", "deny"),  # a symlinked directory into the main checkout
    ("{other}/main-link/app.py", "other", "deny"),  # from outside any repo, aimed at one: still gated (issue 12)
    ("{other}/x.py", "main", "pass"),  # /repo-other shares /repo's prefix but is outside the repo
    ("/tmp/elsewhere.py", "main", "pass"),  # outside the repository: never gated
    ("~/notes.py", "main", "pass"),
    ("docs/guide.txt", "main", "pass"),  # free: docs/
    ("src/docs/guide.txt", "main", "pass"),
    ("NOTES.md", "main", "pass"),  # free: *.md
    ("deep/er/CHANGELOG.md", "main", "pass"),
    ("docsx/guide.txt", "main", "deny"),
    ("README.md.bak", "main", "deny"),
    ("{main}/.git/hallmark/items/H-0001/events.jsonl", "wt", "deny"),  # Hallmark's state, by hand
    ("{main}/.git/config", "main", "deny"),
    ("{main}/.hallmark.toml", "wt", "deny"),  # an item cannot loosen its own gates
]


@pytest.mark.parametrize(("path", "where", "expected"), CASES)
def test_paths(r, path, where, expected):
    cwd = {"main": r.main, "wt": r.wt, "other": r.other}[where]
    full = path.format(wt=r.wt, main=r.main, other=r.other)
    assert answer(edit(full, cwd)) == expected


def test_git_commit_outside_a_worktree(r):
    assert answer(bash("git commit -m x", r.main)) == "deny"  # app.py is staged in the main checkout
    assert answer(bash("git commit -m x", r.wt)) == "pass"
    assert answer(bash(f"cd {r.main} && git commit -m x", r.wt)) == "deny"
    assert answer(bash(f"git -C {r.main} commit -m x", r.wt)) == "deny"
    assert answer(bash("git commit -m x -- README.md docs/a.txt", r.main)) == "pass"  # only free paths
    assert answer(bash("git commit -m x app.py", r.main)) == "deny"


def test_a_commit_of_only_free_paths_is_not_gated(tmp_path):
    repo = make_repo(tmp_path)
    git(repo.main, "reset", "-q", env=repo.env)  # unstage app.py
    (repo.main / "docs").mkdir()
    (repo.main / "docs" / "plan.txt").write_text("plan\n")
    git(repo.main, "add", "docs/plan.txt", env=repo.env)
    assert answer(bash("git commit -m plan", repo.main)) == "pass"
    assert answer(bash("git add app.py && git commit -m plan", repo.main)) == "deny"
    assert answer(bash("git add -A && git commit -m plan", repo.main)) == "deny"
    assert answer(bash("git add NOTES.md && git commit -m plan", repo.main)) == "pass"


@pytest.mark.parametrize(("mode", "expected"), [("gate", "deny"), ("ask", "ask"), ("off", "pass")])
def test_capture_modes(tmp_path, pycache, mode, expected):
    repo = make_repo(tmp_path)
    config = repo.main / ".hallmark.toml"
    config.write_text(config.read_text().replace('mode = "gate"', f'mode = "{mode}"'))
    assert answer(edit(str(repo.main / "app.py"), repo.main)) == expected
    assert answer(bash("git commit -m x", repo.main)) == expected
    code, out, _ = run_hook("pre-tool-use", edit(str(repo.main / "app.py"), repo.main), hook_env(repo, pycache))
    assert code == 0 and decision(out) == expected
    if expected != "pass":
        reason = json.loads(json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"])
        assert 'hall new --title "…"' in reason["error"]["next"] and "hall adopt" in reason["error"]["next"]
    # git's own directory stays closed whatever the mode
    assert answer(edit(str(repo.main / ".git" / "hallmark" / "x"), repo.wt)) == "deny"


def test_config_is_read_from_the_main_checkout_only(tmp_path):
    repo = make_repo(tmp_path)
    (repo.wt / ".hallmark.toml").write_text('[capture]\nmode = "off"\n')
    assert answer(edit(str(repo.main / "app.py"), repo.wt)) == "deny"


def test_a_broken_config_fails_closed_and_names_doctor(tmp_path):
    repo = make_repo(tmp_path)
    (repo.main / ".hallmark.toml").write_text("[capture\nmode = ")
    out = run("pre-tool-use", json.dumps(edit(str(repo.main / "app.py"), repo.main)).encode())
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "hall doctor" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_a_dropped_items_worktree_is_not_active(tmp_path, hall):
    repo = make_repo(tmp_path)
    assert answer(edit(str(repo.wt / "app.py"), repo.wt)) == "pass"
    result = hall("drop", repo.item, "--reason", "no", "--keep-worktree", cwd=repo.main, env=repo.env)
    assert result.code == 0, result.stdout
    assert answer(edit(str(repo.wt / "app.py"), repo.wt)) == "deny"


@pytest.mark.parametrize(
    ("rel", "free"),
    [
        ("docs/a.py", True),
        ("a/docs/b.py", True),
        ("docs", False),
        ("README.md", True),
        ("a/b/c.md", True),
        ("a.mdx", False),
        ("src/x.py", False),
        ("mydocs/x", False),
    ],
)
def test_free_globs(rel, free):
    assert is_free(rel, ["docs/", "*.md"]) is free


def test_anchored_free_globs():
    assert is_free("design/notes/a.txt", ["design/notes/"])
    assert not is_free("x/design/notes/a.txt", ["design/notes/"])
    assert is_free("spec/a.txt", ["/spec/*.txt"])
    assert not is_free("spec/sub/a.py", ["/spec/*.txt"])


# -- issue 12: the edit gate's three holes, the protected files, and no switching off near a repo ---------


def test_a_hard_link_into_the_main_checkout_is_denied(tmp_path):
    """`ln main/app.py /tmp/x.py` then Write /tmp/x.py: the realpath is outside the repo, the inode is not."""
    repo = make_repo(tmp_path)
    outside = tmp_path / "outside.py"
    os.link(repo.main / "app.py", outside)
    inside = repo.wt / "linked.py"
    os.link(repo.main / "app.py", inside)
    assert answer(edit(str(outside), repo.main, "Write")) == "deny"
    assert answer(edit(str(inside), repo.wt)) == "deny"  # in the worktree, but it is main's app.py
    reason = run("pre-tool-use", json.dumps(edit(str(outside), repo.wt)).encode())["hookSpecificOutput"]
    assert "hard links" in reason["permissionDecisionReason"]
    (tmp_path / "single.py").write_text("x\n")
    assert answer(edit(str(tmp_path / "single.py"), repo.main)) == "pass"


def test_proc_self_cwd_is_the_sessions_directory_not_the_hooks(tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    monkeypatch.chdir(tmp_path)  # the hook's own directory is somewhere harmless
    assert answer(edit("/proc/self/cwd/app.py", repo.main)) == "deny"
    assert answer(edit("/proc/self/cwd/app.py", repo.wt)) == "pass"
    assert answer(edit("/proc/thread-self/cwd/../repo/app.py", repo.wt)) == "deny"
    assert answer(edit("/proc/self/fd/3", repo.wt)) == "deny"  # a descriptor: unknowable from here


def test_a_directory_named_like_a_free_file_frees_nothing(tmp_path):
    repo = make_repo(tmp_path)
    assert not is_free("notes.md/app.py", ["docs/", "*.md"])
    (repo.main / "trick.md").mkdir()
    assert answer(edit(str(repo.main / "trick.md" / "code.py"), repo.main, "Write")) == "deny"
    assert answer(edit(str(repo.main / "trick.md" / "x.md"), repo.main, "Write")) == "pass"


@pytest.mark.parametrize("rel", [".claude/settings.json", ".claude/settings.local.json"])
def test_claude_settings_are_never_an_agent_s_edit(tmp_path, rel):
    """Project settings can switch hooks off (disableAllHooks) or loosen permissions: closed even in an
    item's worktree and in capture mode off."""
    repo = make_repo(tmp_path)
    config = repo.main / ".hallmark.toml"
    config.write_text(config.read_text().replace('mode = "gate"', 'mode = "off"'))
    assert answer(edit(str(repo.wt / rel), repo.wt, "Write")) == "deny"
    assert answer(edit(str(repo.main / rel), repo.main, "Write")) == "deny"
    assert answer(edit(str(repo.main / ".hallmark.toml"), repo.main, "Write")) == "deny"  # mode off or not


def test_the_user_s_claude_settings_and_hall_hook_are_closed(tmp_path):
    repo = make_repo(tmp_path)
    home_claude = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude")
    assert answer(edit(os.path.join(home_claude, "settings.json"), repo.wt, "Write")) == "deny"
    assert answer(edit(os.path.join(home_claude, "hallmark", "current", "hooks.json"), repo.wt, "Write")) == "deny"
    import sys

    assert answer(edit(os.path.join(os.path.dirname(sys.executable), "hall-hook"), repo.wt, "Write")) == "deny"


def test_a_write_from_outside_any_repo_aimed_at_one_is_gated(tmp_path, pycache):
    """The red team: a payload whose cwd is /tmp (or a nested repo) got no answer at all."""
    repo = make_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = hook_env(repo, pycache)
    code, out, _ = run_hook("pre-tool-use", edit(str(repo.main / "app.py"), elsewhere, "Write"), env)
    assert code == 0 and decision(out) == "deny"
    code, out, _ = run_hook("pre-tool-use", edit(str(repo.wt / "app.py"), elsewhere, "Write"), env)
    assert decision(out) == "pass"  # the item's worktree, from anywhere


def test_a_nested_repo_inside_the_worktree_does_not_switch_the_gates_off(tmp_path):
    repo = make_repo(tmp_path)
    nested = repo.wt / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q", env=repo.env)
    assert answer(bash("git push origin HEAD", nested)) == "deny"
    assert answer(bash(f"git -C {repo.main} push origin main", nested)) == "deny"
    assert answer(edit(str(repo.main / "app.py"), nested)) == "deny"
    assert answer(bash("hall ready", nested)) == "deny"
