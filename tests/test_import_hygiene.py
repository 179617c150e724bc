"""Import hygiene at run time: what each entry point loads, in a fresh interpreter.

pyproject.toml's [tool.importlinter] contracts hold the import graph statically; they list each
deliberate deferral (an import inside a function) as ignored. This file proves at run time, in a
subprocess, that the deferrals stay deferred and that nothing heavy loads where it must not:

- IMPORTS: one table of (what, statement, forbidden modules), no repository needed;
- the hook path's allow-list per event (Claude Code runs a hook on every prompt and tool call, so
  each event's modules are pinned: a twin of a core module written for the hook, or a heavy import
  such as pydantic, the SQLite index, dataclasses or typing on the per-call hooks, comes back only by
  changing a list here), and the read commands of the CLI on a real repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "gates"))

from gatehelp import GateRepo, bash, make_repo

PROJECT = Path(__file__).resolve().parent.parent


def _walk(package: str) -> str:
    """A statement importing every module of a package (what a static contract covers)."""
    return (
        f"import importlib, pkgutil, {package}\n"
        f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
        "    importlib.import_module(m.name)\n"
    )


GATE_MODULES = [
    "push",
    "forges",
    "runners",
    "writes",
    "wrappers",
    "git_cmds",
    "git_config",
    "git_hooks",
    "refspecs",
    "hall_cmds",
    "hallmark",
    "prepush",
    "decide",
    "edit",
    "scripts",
    "shell_text",
    "env_xargs",
    "gh_config",
    "shell_words",
]
TERMINAL = {"textual", "rich"}
HEAVY = {"pydantic", "rich", "textual", "git"}
PLAIN_PUSH = (
    "from hallmark.core.gates.push import analyze, Context\n"
    "analyze('git push origin main', Context('/tmp', alias_lookup=lambda *a: None))\n"
)

# (what, a statement run in a fresh interpreter, modules that must not be loaded after it: a name
# forbids the module and everything under it)
IMPORTS = [
    (
        "every core module imports no face and no terminal library",
        _walk("hallmark.core"),
        TERMINAL | {"hallmark.tui", "hallmark.hooks"},
    ),
    (
        "every hook module imports no face and nothing heavy",
        _walk("hallmark.hooks"),
        HEAVY | {"filelock", "hallmark.tui"},
    ),
    (
        "every command module imports no textual (hall tui and hall demo open the app in their handlers)",
        _walk("hallmark.tui.cli"),
        {"textual", "hallmark.tui.app", "hallmark.tui.screens"},
    ),
    (
        "building the whole command line imports no textual",
        "from hallmark.tui.cli import build_parser\nbuild_parser()\n",
        {"textual"},
    ),
    (
        "memory's hook modules (inject, failures) import nothing heavy",
        "import hallmark.core.memory.inject, hallmark.core.memory.failures\n",
        HEAVY,
    ),
    (
        "every gate module and git's pre-push hook import nothing heavy",
        "import importlib\n"
        f"for m in {GATE_MODULES!r}: importlib.import_module('hallmark.core.gates.' + m)\n"
        "import hallmark.hooks.git_pre_push, hallmark.core.person_only, hallmark.core.githooks\n",
        HEAVY,
    ),
    (
        "a plain git push loads no forge, runner, writer or script rules",
        PLAIN_PUSH,
        {f"hallmark.core.gates.{m}" for m in ("forges", "runners", "writes", "hall_cmds", "scripts")},
    ),
    (
        "the journal's lock takes its flock without filelock",
        "import tempfile\nfrom pathlib import Path\nfrom hallmark.core import journal\n"
        "with journal.locked(Path(tempfile.mkdtemp()) / 'events.jsonl', timeout=5): pass\n",
        {"filelock"},
    ),
    (
        "the help screen lists the app's keys without importing the app (the app passes its class in)",
        "from hallmark.tui.screens import help\nhelp.all_bindings(object)\n",
        {"hallmark.tui.app"},
    ),
]


def _loaded(statement: str, **kwargs) -> set[str]:
    code = statement + "import sys, json\nprint(json.dumps(sorted(sys.modules)))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, **kwargs)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(json.loads(proc.stdout.splitlines()[-1]))


def _forbidden_found(modules: set[str], forbidden: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden))


@pytest.mark.parametrize(("what", "statement", "forbidden"), IMPORTS, ids=[row[0] for row in IMPORTS])
def test_an_import_loads_nothing_it_must_not(what: str, statement: str, forbidden: set[str]):
    assert _forbidden_found(_loaded(statement), forbidden) == [], what


def test_read_commands_import_no_heavy_library(hall_repo):
    """status, log and inbox on a pipe stay on the stdlib path: no rich, pydantic, textual or GitPython."""
    code = (
        "import io, contextlib, json\n"
        "from hallmark.tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    codes = [main(['status']), main(['status', '--all']), main(['log']), main(['inbox'])]\n"
        "print(json.dumps(codes))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code + "import sys\nprint(json.dumps(sorted(sys.modules)))\n"],
        cwd=hall_repo.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    codes, modules = (json.loads(line) for line in proc.stdout.splitlines()[-2:])
    assert codes == [0, 0, 0, 0], proc.stderr[-2000:]
    assert _forbidden_found(set(modules), HEAVY) == []


# ---- the hook path: the modules each event may load ----

HOOKS = {"hallmark", "hallmark.hooks", "hallmark.hooks.main", "hallmark.hooks.reply", "hallmark.hooks.common"}
LIGHT_CORE = {
    "hallmark.core",
    "hallmark.core.bounded_read",
    "hallmark.core.clock",
    "hallmark.core.errors",
    "hallmark.core.fold_cache",
    "hallmark.core.hallmark_note",  # the push gate parses and verifies a signed note (stdlib, ssh-keygen)
    "hallmark.core.ids",
    "hallmark.core.item_lookup",
    "hallmark.core.journal",
    "hallmark.core.paths",
    "hallmark.core.secrets",
    "hallmark.core.signers",
    "hallmark.core.signing",
    "hallmark.core.states",
    "hallmark.core.worktree_owners",
}
GATES = {
    f"hallmark.core.gates{suffix}"
    for suffix in (
        "",
        ".decide",
        ".edit",
        ".git_hooks",
        ".protected",
        ".settings",
        ".shell_text",
        ".git_cmds",
        ".git_subs",
        ".git_config",
        ".hallmark",
        ".names",
        ".push",
        ".refspecs",
        ".run",
        ".runners",
        ".shell",
        ".shell_words",
        ".wrappers",
        ".env_xargs",
    )
} | {"hallmark.core.config_raw"}
ORIENTATION = {"hallmark.core.next_steps", "hallmark.core.orientation"}
# never on a hook that runs on every prompt or tool call
PER_CALL_FORBIDDEN = {
    "pydantic",
    "textual",
    "rich",
    "git",
    "filelock",
    "sqlite3",
    "dataclasses",
    "typing",
    "inspect",
    "ast",
    "tomllib",
}
# SessionStart (once per session) reads the inbox count and the memory store, still without these
SESSION_FORBIDDEN = {"pydantic", "textual", "rich", "git", "filelock"}
# deferred to the functions that need them (issue 25: SessionStart imported 176 modules): atomic
# writes without tempfile (random, shutil, bz2, lzma), the daemon's host from os.uname, and memory's
# identity imports configparser and uuid (platform) only to read an origin or make a local id
DEFERRED = {"tempfile", "shutil", "random", "uuid", "platform", "configparser", "socket"}
SESSION_START = (
    LIGHT_CORE
    | ORIENTATION
    | HOOKS
    | {
        f"hallmark.{name}"
        for name in (
            "hooks.session_start",
            "hooks.context",
            "core.actor",
            "core.atomic",
            "core.config_raw",
            "core.derived_db",
            "core.inbox",
            "core.inbox_results",
            "core.index",
            "core.loop",
            "core.loop.daemon_state",
            "core.memory",
            "core.memory.briefing",
            "core.memory.checkpoint",
            "core.memory.decisions",
            "core.memory.identity",
            "core.memory.inject",
            "core.memory.lifecycle",
            "core.memory.notes",
            "core.notes_results",
            "core.memory.search_index",
            "core.memory.similarity",
            "core.memory.store",
            "core.repo",
            "core.results",
            "core.runs",
            "core.seen",
            "core.waiting",
        )
    }
)
PER_CALL = {
    "user-prompt-submit": ORIENTATION | {"hallmark.hooks.user_prompt_submit"},
    "post-tool-use": GATES
    | {
        "hallmark.hooks.post_tool_use",
        "hallmark.core.memory",
        "hallmark.core.gates.ran",
        "hallmark.core.memory.failures",
    },
    "stop": {"hallmark.hooks.stop", "hallmark.core.transcript_usage", "hallmark.core.usage_ledger"},
    "notification": {"hallmark.hooks.notification"},
}


def _hook(repo: GateRepo, payload: dict, event: str) -> tuple[dict | None, set[str]]:
    code = (
        "import json, sys\n"
        "from hallmark.hooks.main import run\n"
        f"answer = run({event!r}, {json.dumps(payload).encode()!r})\n"
        "print(json.dumps({'answer': answer, 'modules': sorted(sys.modules)}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=repo.env, check=True, timeout=120
    )
    out = json.loads(proc.stdout)
    return out["answer"], set(out["modules"])


def _check(modules: set[str], allowed: set[str], forbidden: set[str]) -> None:
    ours = {m for m in modules if m.startswith("hallmark")}
    assert ours - allowed == set(), "not on the hook path's list"
    assert {m for m in modules if m.split(".")[0] in forbidden} == set()


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> GateRepo:
    """A real repo after hall init and hall new, with one gated call made first: the config cache the
    gates read is built once, as in any session."""
    repo = make_repo(tmp_path_factory.mktemp("hygiene"))
    _hook(
        repo,
        {"tool_name": "Edit", "cwd": str(repo.wt), "tool_input": {"file_path": str(repo.wt / "app.py")}},
        "pre-tool-use",
    )
    return repo


def test_pre_tool_use_loads_only_the_gates_and_light_core(warm):
    repo = warm
    cases = {
        "edit in the worktree": {
            "tool_name": "Edit",
            "cwd": str(repo.wt),
            "tool_input": {"file_path": str(repo.wt / "app.py")},
        },
        "edit in the main checkout": {
            "tool_name": "Edit",
            "cwd": str(repo.main),
            "tool_input": {"file_path": "app.py"},
        },
        "push": bash("git push origin main", repo.wt),
        "plain": bash("ls -la", repo.wt),
        "compound": bash("cd . && bash -c 'git push'", repo.wt),
    }
    answers = {}
    for name, payload in cases.items():
        answer, modules = _hook(repo, payload, "pre-tool-use")
        answers[name] = (answer or {}).get("hookSpecificOutput", {}).get("permissionDecision")
        # only a command the plain-word path cannot split loads the tree-sitter parser (which imports typing)
        forbidden = PER_CALL_FORBIDDEN - {"typing"} if name == "compound" else PER_CALL_FORBIDDEN
        assert ("tree_sitter" in modules) == (name == "compound")
        _check(modules, HOOKS | LIGHT_CORE | GATES | {"hallmark.hooks.pre_tool_use"}, forbidden)
    assert answers == {
        "edit in the worktree": None,
        "edit in the main checkout": "deny",
        "push": "deny",
        "plain": None,
        "compound": "deny",
    }


@pytest.mark.parametrize("event", sorted(PER_CALL))
def test_every_per_call_hook_stays_on_its_list(warm, event):
    payload = {
        "cwd": str(warm.wt),
        "session_id": "s",
        "prompt": "hi",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "", "stderr": "x: command not found", "exit_code": 127},
        "message": "m",
    }
    _, modules = _hook(warm, payload, event)
    _check(modules, HOOKS | LIGHT_CORE | PER_CALL[event], PER_CALL_FORBIDDEN | DEFERRED)


def test_session_start_stays_on_its_list(warm):
    answer, modules = _hook(warm, {"cwd": str(warm.wt), "session_id": "s", "source": "startup"}, "session-start")
    _check(modules, SESSION_START, SESSION_FORBIDDEN | DEFERRED)
    assert "hallmark.core.items" not in modules  # next_for comes from core/next_steps, not the verbs
    assert answer is not None and warm.item in answer["hookSpecificOutput"]["additionalContext"]


# Claude Code's status line (`hall-hook statusline`) after every assistant message: a kept line reads
# stamps and one JSON file; a line recomputed reads core/waiting's count like SessionStart does
STATUSLINE_KEPT = HOOKS | {
    "hallmark.core",
    "hallmark.core.errors",
    "hallmark.core.ids",
    "hallmark.core.paths",
    "hallmark.core.statusline",
}
STATUSLINE = SESSION_START | {"hallmark.core.statusline", "hallmark.core.item_lookup", "hallmark.core.journal"}


def _statusline(repo: GateRepo) -> tuple[str, set[str]]:
    code = (
        "import io, json, sys\n"
        "from hallmark.hooks.main import main\n"
        "main(['statusline'])\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    payload = json.dumps({"session_id": "s", "cwd": str(repo.wt), "workspace": {"current_dir": str(repo.wt)}})
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=payload,
        capture_output=True,
        text=True,
        env=repo.env,
        check=True,
        timeout=120,
    )
    return proc.stdout, set(json.loads(proc.stderr))


def test_the_status_line_stays_on_its_list(warm):
    (warm.main / ".git" / "hallmark" / "statusline.json").unlink(missing_ok=True)
    first, modules = _statusline(warm)
    _check(modules, STATUSLINE, SESSION_FORBIDDEN)
    again, kept = _statusline(warm)
    _check(kept, STATUSLINE_KEPT, PER_CALL_FORBIDDEN)
    assert first == again and warm.item in first and "waiting" in first


def test_the_static_contract_covers_every_core_module_on_the_hook_path():
    """import-linter's hook-path contract checks, statically, the same core modules these lists allow
    at run time: a module joining the hook path must join the contract too."""
    contracts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (hook_path,) = [c for c in contracts if c["name"].startswith("The hook path")]
    sources = set(hook_path["source_modules"])
    on_path = {
        m
        for m in SESSION_START | LIGHT_CORE | GATES | STATUSLINE | set().union(*PER_CALL.values())
        if m.startswith("hallmark.core.")
    }
    covered = {m for m in on_path if any(m == s or m.startswith(s + ".") for s in sources)}
    packages = {m for m in on_path if (PROJECT / m.removeprefix("hallmark.").replace(".", "/")).is_dir()}
    assert on_path - covered - packages == set()
    assert {"hallmark.hooks"} <= sources and set(hook_path["forbidden_modules"]) == {
        "textual",
        "rich",
        "git",
        "pydantic",
    }


def _module_names() -> set[str]:
    """Every module of core, hooks and tui by its import name, from the files on disk."""
    names = set()
    for top in ("core", "hooks", "tui"):
        for path in (PROJECT / top).rglob("*.py"):
            if "__snapshots__" in path.parts:
                continue
            parts = [top, *path.relative_to(PROJECT / top).with_suffix("").parts]
            names.add(".".join(["hallmark", *(parts[:-1] if parts[-1] == "__init__" else parts)]))
    return names


def test_the_import_contracts_hold_on_the_real_graph():
    """`lint-imports` keeps every contract in pyproject.toml, and the graph it checks is this package's
    whole graph: a flat layout that resolved to nothing (or to another copy) would keep every
    contract vacuously."""
    import grimp

    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], cwd=PROJECT, capture_output=True, text=True, timeout=300
    )
    contracts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in proc.stdout
    roots = ("hallmark.core", "hallmark.hooks", "hallmark.tui")
    graph = grimp.build_graph(*roots, include_external_packages=True)
    assert {m for m in graph.modules if m.split(".")[0] == "hallmark" and m.startswith(roots)} == _module_names()
    assert graph.find_modules_that_directly_import("pydantic") >= {"hallmark.core.config", "hallmark.core.events"}
    # each deliberate deferral the contracts ignore is a real import (else the ignore hides nothing)
    assert graph.find_shortest_chain(importer="hallmark.tui.cli.app", imported="textual")
    assert "hallmark.core.config" in graph.find_modules_directly_imported_by("hallmark.core.repo")
