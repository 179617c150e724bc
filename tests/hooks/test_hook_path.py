"""The hook path imports only what it is allowed to: a short list of light core modules per event.

Claude Code runs a hook on every prompt and tool call, so each event's imports are pinned here (in a
fresh interpreter, as `hall-hook` runs). A module that is not on the list fails the test: a twin of a
core module written for the hook (a second fold, lock or lookup) or a heavy import (pydantic, the
SQLite index, dataclasses and typing on the per-call hooks) comes back only by changing this list.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gatehelp import bash

HOOKS = {"hallmark", "hallmark.hooks", "hallmark.hooks.main", "hallmark.hooks.reply", "hallmark.hooks.common"}
LIGHT_CORE = {"hallmark.core", "hallmark.core.clock", "hallmark.core.errors", "hallmark.core.ids",
              "hallmark.core.item_lookup", "hallmark.core.journal", "hallmark.core.paths", "hallmark.core.secrets",
              "hallmark.core.states"}
GATES = {f"hallmark.core.gates{suffix}" for suffix in (
    "", ".decide", ".edit", ".git_hooks", ".protected", ".settings", ".shell_text", ".git_cmds", ".git_subs", ".git_config",
    ".hallmark", ".names", ".push", ".refspecs", ".run", ".runners", ".shell", ".wrappers")} | {"hallmark.core.config_raw"}
ORIENTATION = {"hallmark.core.next_steps", "hallmark.core.orientation"}
# never on a hook that runs on every prompt or tool call
PER_CALL_FORBIDDEN = {"pydantic", "textual", "rich", "git", "filelock", "sqlite3", "dataclasses", "typing",
                      "inspect", "ast", "tomllib"}
# SessionStart (once per session) reads the inbox count and the memory store, still without these
SESSION_FORBIDDEN = {"pydantic", "textual", "rich", "git", "filelock"}
SESSION_START = LIGHT_CORE | ORIENTATION | HOOKS | {f"hallmark.{name}" for name in (
    "hooks.session_start", "hooks.context", "core.actor", "core.atomic", "core.config_raw", "core.derived_db",
    "core.inbox", "core.index", "core.loop", "core.loop.daemon_state", "core.memory", "core.memory.briefing",
    "core.memory.checkpoint", "core.memory.decisions", "core.memory.identity", "core.memory.inject",
    "core.memory.lifecycle", "core.memory.notes", "core.memory.search_index", "core.memory.similarity",
    "core.memory.store", "core.repo", "core.runs", "core.seen", "core.waiting")}


def _modules(repo, payload: dict, event: str) -> tuple[dict | None, set[str]]:
    code = ("import json, sys\n"
            "from hallmark.hooks.main import run\n"
            f"answer = run({event!r}, {json.dumps(payload).encode()!r})\n"
            "print(json.dumps({'answer': answer, 'modules': sorted(sys.modules)}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=repo.env, check=True)
    out = json.loads(proc.stdout)
    return out["answer"], set(out["modules"])


def _check(modules: set[str], allowed: set[str], forbidden: set[str]) -> None:
    ours = {m for m in modules if m.startswith("hallmark")}
    assert ours - allowed == set(), "not on the hook path's list"
    assert {m for m in modules if m.split(".")[0] in forbidden} == set()


@pytest.fixture(scope="module")
def warm(shared_repo):
    """One gated call first: the config cache the gates read is built once, as in any session."""
    _modules(shared_repo, {"tool_name": "Edit", "cwd": str(shared_repo.wt),
                           "tool_input": {"file_path": str(shared_repo.wt / "app.py")}}, "pre-tool-use")
    return shared_repo


def test_pre_tool_use_loads_only_the_gates_and_light_core(warm):
    repo = warm
    cases = {
        "edit in the worktree": {"tool_name": "Edit", "cwd": str(repo.wt),
                                 "tool_input": {"file_path": str(repo.wt / "app.py")}},
        "edit in the main checkout": {"tool_name": "Edit", "cwd": str(repo.main), "tool_input": {"file_path": "app.py"}},
        "push": bash("git push origin main", repo.wt),
        "plain": bash("ls -la", repo.wt),
        "compound": bash("cd . && bash -c 'git push'", repo.wt),
    }
    answers = {}
    for name, payload in cases.items():
        answer, modules = _modules(repo, payload, "pre-tool-use")
        answers[name] = (answer or {}).get("hookSpecificOutput", {}).get("permissionDecision")
        # only a command the plain-word path cannot split loads the tree-sitter parser (which imports typing)
        forbidden = PER_CALL_FORBIDDEN - {"typing"} if name == "compound" else PER_CALL_FORBIDDEN
        assert ("tree_sitter" in modules) == (name == "compound")
        _check(modules, HOOKS | LIGHT_CORE | GATES | {"hallmark.hooks.pre_tool_use"}, forbidden)
    assert answers == {"edit in the worktree": None, "edit in the main checkout": "deny", "push": "deny",
                       "plain": None, "compound": "deny"}


@pytest.mark.parametrize(("event", "extra"), [
    ("user-prompt-submit", ORIENTATION | {"hallmark.hooks.user_prompt_submit"}),
    ("post-tool-use", GATES | {"hallmark.hooks.post_tool_use", "hallmark.core.memory", "hallmark.core.gates.ran",
                               "hallmark.core.memory.failures"}),
    ("stop", {"hallmark.hooks.stop", "hallmark.core.transcript_usage", "hallmark.core.usage_ledger"}),
    ("notification", {"hallmark.hooks.notification"}),
])
def test_every_per_call_hook_stays_on_its_list(warm, event, extra):
    payload = {"cwd": str(warm.wt), "session_id": "s", "prompt": "hi", "tool_name": "Bash",
               "tool_input": {"command": "ls"}, "tool_response": {"stdout": "", "stderr": "x: command not found",
                                                                  "exit_code": 127}, "message": "m"}
    _, modules = _modules(warm, payload, event)
    _check(modules, HOOKS | LIGHT_CORE | extra, PER_CALL_FORBIDDEN)


def test_session_start_stays_on_its_list(warm):
    answer, modules = _modules(warm, {"cwd": str(warm.wt), "session_id": "s", "source": "startup"}, "session-start")
    _check(modules, SESSION_START, SESSION_FORBIDDEN)
    assert "hallmark.core.items" not in modules  # next_for comes from core/next_steps, not the verbs
    assert warm.item in answer["hookSpecificOutput"]["additionalContext"]
