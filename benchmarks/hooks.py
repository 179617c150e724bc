"""Benchmark: wall time of `hall-hook pre-tool-use` against a bare `python -c pass`.

Run by hand: `python benchmarks/hooks.py [--runs N]`. It builds a throwaway repo (hall init,
hall new), then times, interleaved in the same run and on the same interpreter:

- baseline: `python -c pass`
- edit: an Edit payload inside the item's worktree (the edit gate's full path: find the repo,
  read the cached config, find the item for the path, fold its journal)
- push: a Bash `git push origin main` payload in the worktree, HEAD not hallmarked (denied:
  the analysis, one git call for HEAD and its note, the denial recorded in the journal)
- push-hallmarked: the same push once HEAD carries a valid hallmark (let through)
- bash-compound: `cd . && bash -c 'git push'` (loads the tree-sitter parser)
- bash-plain: `ls -la` (a command no rule reads: the common case)
- pre-push: git's pre-push hook (`hall-hook git-pre-push`) deciding a push of the hallmarked commit
- session-start: `hall-hook session-start` in the worktree with three open questions in the inbox
  (the item's orientation, the inbox count built from core.inbox's typed entries, memory context)

Bytecode is compiled once into a private cache (PYTHONPYCACHEPREFIX), as an installed package
has it; every process, the baseline included, runs with the same environment.
Budgets (issues 3 and 12): edit <= 1.5x, push <= 2.5x (denied or let through).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
HOOK = str(BIN / "hall-hook")
BUDGETS = {"edit": 1.5, "push": 2.5, "push-hallmarked": 2.5}


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def build(base: Path) -> tuple[dict[str, str], Path, Path, str]:
    home = base / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@hallmark.invalid\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "HALL_", "GIT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "HALLMARK_DATA_DIR": str(home / "data"),
            "PYTHONPYCACHEPREFIX": str(base / "pycache"),
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )
    main = base / "repo"
    main.mkdir()
    _git(main, env, "init", "-q", "-b", "main")
    (main / "app.py").write_text("x = 1\n")
    _git(main, env, "add", "-A")
    _git(main, env, "commit", "-q", "-m", "init")
    subprocess.run([str(BIN / "hall"), "init"], cwd=main, env=env, check=True, capture_output=True)
    _git(main, env, "add", "-A")
    _git(main, env, "commit", "-q", "-m", "hall init")
    out = subprocess.run(
        [str(BIN / "hall"), "new", "--title", "bench"], cwd=main, env=env, check=True, capture_output=True, text=True
    ).stdout
    data = json.loads(out)
    for n in range(3):  # something waits for you: the SessionStart hook counts the inbox's entries
        subprocess.run(
            [str(BIN / "hall"), "ask", f"which way {n}?", "--item", data["item"], "--options", "a,b"],
            cwd=main,
            env=env,
            check=True,
            capture_output=True,
        )
    return env, main, Path(data["worktree"]), data["item"]


def hallmark_head(env: dict[str, str], main: Path, wt: Path, item: str) -> None:
    from hallmark.core import journal
    from hallmark.core.paths import discover

    sha = _git(wt, env, "rev-parse", "HEAD")
    path = discover(main).item_journal(item)
    journal.append(path, "ready", item=item, actor="you", sha=sha, round=1)
    journal.append(path, "checks_passed", item=item, actor="assayer", sha=sha)
    run = "20261201T120000000Z-review.jsonl"  # the loop's chain: run started, its verdict, hallmarked
    journal.append(path, "run_started", item=item, actor="assayer", run=run, role="review", model="bench")
    journal.append(path, "verdict", item=item, actor="assayer", sha=sha, decision="approve", run=run, standin=False)
    journal.append(path, "hallmarked", item=item, actor="assayer", sha=sha, round=1, run=run, standin=False)
    sign_head(env, wt, item, sha, run)


def sign_head(env: dict[str, str], wt: Path, item: str, sha: str, run: str) -> None:
    """The signed note the assayer writes, with the bench repo's own key (its data dir)."""
    from hallmark.core import hallmark_note

    saved = os.environ.get("HALLMARK_DATA_DIR")
    os.environ["HALLMARK_DATA_DIR"] = env["HALLMARK_DATA_DIR"]
    try:
        tree = _git(wt, env, "rev-parse", "HEAD^{tree}")
        note = hallmark_note.make(
            item=item,
            sha=sha,
            tree=tree,
            round=1,
            run=run,
            actor="assayer",
            model="bench",
            standin=False,
            open_findings=[],
        )
    finally:
        if saved is None:
            os.environ.pop("HALLMARK_DATA_DIR", None)
        else:
            os.environ["HALLMARK_DATA_DIR"] = saved
    _git(wt, env, "notes", "--ref=hallmark", "add", "-f", "-m", hallmark_note.encode(note), "HEAD")


def payload(tool: str, cwd: Path, **tool_input: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "hook_event_name": "PreToolUse",
            "cwd": str(cwd),
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def session_payload(cwd: Path) -> bytes:
    return json.dumps(
        {"session_id": "bench", "hook_event_name": "SessionStart", "cwd": str(cwd), "source": "startup"}
    ).encode()


def timed(argv: list[str], data: bytes | None, env: dict[str, str], cwd: Path | None = None) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=data, capture_output=True, env=env, cwd=cwd)
    return time.perf_counter() - start, proc.stdout + (b"" if proc.returncode == 0 else b"refused")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hall-bench-") as tmp:
        env, main_dir, wt, item = build(Path(tmp))
        cases = {
            "baseline": ([sys.executable, "-c", "pass"], None),
            "edit": (
                [HOOK, "pre-tool-use"],
                payload("Edit", wt, file_path=str(wt / "app.py"), old_string="1", new_string="2"),
            ),
            "push": ([HOOK, "pre-tool-use"], payload("Bash", wt, command="git push origin main")),
            "bash-compound": ([HOOK, "pre-tool-use"], payload("Bash", wt, command="cd . && bash -c 'git push'")),
            "bash-plain": ([HOOK, "pre-tool-use"], payload("Bash", wt, command="ls -la")),
            "session-start": ([HOOK, "session-start"], session_payload(wt)),
        }
        expect = {"edit": b"", "push": b"deny", "bash-compound": b"deny", "session-start": b"has 3 entries waiting"}
        for name, (argv, data) in cases.items():  # warm up: bytecode compiled once, caches built
            _, out = timed(argv, data, env)
            if name in expect and expect[name] not in out:
                raise SystemExit(f"{name}: unexpected answer {out[:200]!r}")
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, data) in cases.items():
                samples[name].append(timed(argv, data, env)[0])
        hallmark_head(env, main_dir, wt, item)
        argv, data = cases["push"]
        _, out = timed(argv, data, env)
        if out.strip():
            raise SystemExit(f"push-hallmarked: expected no answer, got {out[:200]!r}")
        samples["push-hallmarked"] = []
        samples["pre-push"] = []
        base_again = []
        sha = _git(wt, env, "rev-parse", "HEAD").encode()
        line = b"refs/heads/x " + sha + b" refs/heads/x " + b"0" * 40 + b"\n"
        pre_push = [HOOK, "git-pre-push", str(wt / ".git-hooks-pre-push"), "origin", "/nowhere.git"]
        _, out = timed(pre_push, line, env, wt)
        if out.strip():
            raise SystemExit(f"pre-push: expected the hallmarked commit to go, got {out[:200]!r}")
        for _ in range(args.runs):
            samples["push-hallmarked"].append(timed(argv, data, env)[0])
            samples["pre-push"].append(timed(pre_push, line, env, wt)[0])
            base_again.append(timed(*cases["baseline"][:1], None, env)[0])
    base = statistics.median(samples["baseline"])
    base2 = statistics.median(base_again)
    print(f"hall-hook pre-tool-use, {args.runs} runs each, interleaved; median wall time (ratio to python -c pass)")
    print(f"  {'baseline python -c pass':28s} {base * 1000:7.1f} ms   1.00x")
    failed = False
    for name in ("edit", "push", "bash-compound", "bash-plain", "session-start", "push-hallmarked", "pre-push"):
        reference = base2 if name in ("push-hallmarked", "pre-push") else base
        median = statistics.median(samples[name])
        ratio = median / reference
        budget = BUDGETS.get(name)
        verdict = "" if budget is None else (f"  budget {budget}x: " + ("ok" if ratio <= budget else "OVER"))
        failed = failed or (budget is not None and ratio > budget)
        print(f"  {name:28s} {median * 1000:7.1f} ms   {ratio:.2f}x{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
