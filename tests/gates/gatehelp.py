"""Helpers for the gate tests: a real Hallmark repo with an item worktree, and the real hall-hook.

The repo is built once per module (hall init and hall new are real processes); tests never
change it except where they say so. Every command in these tests is only ever given to the hook
as a string: nothing here runs a push.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
HOOK = str(BIN / "hall-hook")


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env, input=input
    ).stdout.strip()


@dataclass
class GateRepo:
    main: Path
    wt: Path
    item: str
    env: dict[str, str]
    other: Path  # a sibling directory sharing the repo's name as a prefix


def _base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "HALL_", "GIT_"))}
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Gate Test\n\temail = gate@hallmark.invalid\n[init]\n\tdefaultBranch = main\n"
    )
    env.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(gitconfig),
            "GIT_CONFIG_NOSYSTEM": "1",
            "HALLMARK_DATA_DIR": str(home / "data"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )
    return env


@contextmanager
def _environ(env: dict[str, str]):
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def make_repo(base: Path, name: str = "repo") -> GateRepo:
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = _base_env(home)
    main = base / name
    main.mkdir()
    git(main, "init", "-q", "-b", "main", env=env)
    (main / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (main / "README.md").write_text("# demo\n")
    (main / "deploy.sh").write_text("#!/bin/sh\nset -e\ngit push origin main\n")
    (main / "notes.py").write_text("print('a release is near')\n")
    (main / "build.sh").write_text("#!/bin/sh\necho building\n")
    git(main, "add", "-A", env=env)
    git(main, "commit", "-q", "-m", "initial", env=env)
    git(main, "config", "alias.p", "push", env=env)
    git(main, "config", "alias.sp", "!git push origin main", env=env)
    git(main, "config", "alias.st", "status --short", env=env)
    git(main, "config", "alias.pp", "p --force", env=env)
    with _environ(env):  # hall init and hall new, in-process (their own tests cover the CLI)
        from hallmark.core import items, setup_repo
        from hallmark.core.repo import open_repo

        setup_repo.init(main)
        git(main, "add", "-A", env=env)
        git(main, "commit", "-q", "-m", "hall init", env=env)
        data = items.new(open_repo(main), title="gate test", actor="you")
    other = base / f"{name}-other"
    other.mkdir()
    (other / "x.py").write_text("x = 1\n")
    # a staged, non-free change in the main checkout: a commit there would be real work
    (main / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")
    git(main, "add", "app.py", env=env)
    return GateRepo(
        Path(os.path.realpath(main)),
        Path(os.path.realpath(data["worktree"])),
        data["item"],
        env,
        Path(os.path.realpath(other)),
    )


def hook_env(repo: GateRepo, pycache: Path, **extra: str) -> dict[str, str]:
    env = dict(repo.env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)  # compile once, like an installed package
    env.update(extra)
    return env


def run_hook(event: str, payload: dict | bytes | str, env: dict[str, str], timeout: float = 60) -> tuple[int, str, str]:
    data = (
        payload
        if isinstance(payload, bytes)
        else (payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
    )
    proc = subprocess.run([HOOK, event], input=data, capture_output=True, env=env, timeout=timeout)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def decision(stdout: str) -> str:
    """deny / ask / pass (no output), asserting the output is exactly one JSON object."""
    if not stdout.strip():
        return "pass"
    data = json.loads(stdout)
    out = data["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] in ("deny", "ask"), "hall-hook must never allow"
    return out["permissionDecision"]


def bash(command: str, cwd: Path) -> dict:
    return {
        "session_id": "s-test",
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_test",
    }


RUN = "20261201T120000000Z-review.jsonl"


def commit_file(r: GateRepo, name: str = "feature.py", where: Path | None = None) -> str:
    cwd = where or r.wt
    (cwd / name).write_text(f"# {name}\n")
    git(cwd, "add", name, env=r.env)
    git(cwd, "commit", "-q", "-m", f"add {name}", env=r.env)
    return git(cwd, "rev-parse", "HEAD", env=r.env)


def loop_events(
    r: GateRepo,
    sha: str,
    *,
    hallmarked: bool = True,
    run: str = RUN,
    standin: bool = False,
    started: bool = True,
    verdict: bool = True,
) -> None:
    """The journal lines the review loop writes for an approval, in its order: ready, checks passed,
    the review run started by the runner, its verdict, and `hallmarked` naming that run."""
    from hallmark.core import journal
    from hallmark.core.paths import discover

    path = discover(r.main).item_journal(r.item)
    journal.append(path, "ready", item=r.item, actor="you", sha=sha, round=1)
    journal.append(path, "checks_passed", item=r.item, actor="assayer", sha=sha)
    if started:
        journal.append(
            path,
            "run_started",
            item=r.item,
            actor="assayer (stand-in)" if standin else "assayer",
            run=run,
            role="review",
            model="hallmark-standin" if standin else "opus",
            cwd=str(r.wt),
            pid=1,
        )
    if verdict:
        journal.append(
            path,
            "verdict",
            item=r.item,
            actor="assayer",
            sha=sha,
            round=1,
            decision="approve",
            summary="ok",
            findings=[],
            still_open=[],
            model="opus",
            run=run,
            standin=standin,
            human_override=False,
            blocking=[],
        )
    if hallmarked:
        journal.append(path, "hallmarked", item=r.item, actor="assayer", sha=sha, round=1, run=run, standin=standin)


def strike_note(
    r: GateRepo, sha: str, *, run: str | None = RUN, standin: bool = False, where: Path | None = None, **extra: object
) -> None:
    """The signed note the assayer writes on the approved commit (as the loop does: HALL_ACTOR=assayer,
    this machine's key, trusted by the repo's local list)."""
    body = signed_note(r, sha, run=run, standin=standin, **extra)
    git(where or r.wt, "notes", "--ref=hallmark", "add", "-f", "-m", json.dumps(body), sha, env=r.env)


def signed_note(r: GateRepo, sha: str, *, run: str | None = RUN, standin: bool = False, **extra: object) -> dict:
    """A version-2 note for sha as the loop signs it; extra fields are signed with it."""
    from hallmark.core import hallmark_note, signing, stamp_key
    from hallmark.core.paths import discover

    paths = discover(r.main)
    assert paths is not None
    with _environ(r.env):  # the key of the repo's own data dir, the one `hall init` trusted
        key = stamp_key.ensure_signer(paths)
        tree = git(r.main, "rev-parse", f"{sha}^{{tree}}").strip()
        body = _note_body(r, sha, tree, run=run, standin=standin, **extra)
        body["signer"] = key.principal
        body["sig"] = signing.sign(hallmark_note.payload(body), signing.NOTE_NAMESPACE)
    return body


def _note_body(r: GateRepo, sha: str, tree: str, *, run: str | None, standin: bool, **extra: object) -> dict:
    body: dict = {
        "v": 2,
        "item": r.item,
        "sha": sha,
        "tree": tree,
        "round": 1,
        "model": "opus",
        "open_findings": [],
        "actor": "assayer",
        "run": run,
        "standin": standin,
        **extra,
    }
    return body


def hallmark_commit(r: GateRepo, sha: str, **kwargs: object) -> None:
    loop_events(r, sha, **kwargs)  # type: ignore[arg-type]
    strike_note(r, sha, run=str(kwargs.get("run", RUN)), standin=bool(kwargs.get("standin", False)))
