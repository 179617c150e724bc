"""The review loop's overhead: one full approve cycle with the stand-in model, split by phase, and
what shipping costs when the base moved (the gates run again on the rebased commit).

Run by hand: `python benchmarks/loop.py [--rounds N]`. Each round makes a real repo with a local
bare remote, an item with one commit, and runs the loop's steps in process (checks, review,
ship) with the stand-in `claude` at pace 0. The baseline, measured in the same run, is the
checks alone: the same gate commands run straight through the shell in the same worktree. The
ratio says what Hallmark adds around the repo's own gates (journal, locks, the run file, the
stand-in's process and its real git commands, the note, the rebase and the push).

Shipping is measured three ways on a hallmarked item: the base did not move (no re-check); the base
moved and the rebased tree's pass is already in the checks cache (the re-check is served from it);
the base moved and the gates really run again on the rebased commit.
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

GATES = ["python3 -c 'import app; assert app.mul(2, 3) == 6'", "test ! -e BROKEN"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def setup(tmp: Path) -> tuple[object, str]:
    from hallmark.core import items, setup_repo
    from hallmark.core.repo import open_repo

    root = tmp / "repo"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "CLAUDE.md").write_text("# Rules\n\nEvery public function has a test.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    bare = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", str(bare))
    git(root, "remote", "add", "origin", str(bare))
    setup_repo.init(root)
    (root / ".hallmark.toml").write_text(
        f'base = "main"\ngates = {json.dumps(GATES)}\n'
        + 'ship = "git push -q -u origin {branch}"\n[runner]\ntimeout = "120s"\n'
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hall init")
    git(root, "push", "-q", "-u", "origin", "main")
    repo = open_repo(root)
    created = items.new(repo, title="Add mul")
    wt = Path(created.worktree)
    (wt / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n")
    git(wt, "commit", "-qam", "mul")
    items.ready(repo, created.item)
    return repo, created.item


def checks_alone(worktree: Path) -> float:
    started = time.perf_counter()
    for command in GATES:
        subprocess.run(["sh", "-c", command], cwd=worktree, check=True, capture_output=True)
    return time.perf_counter() - started


def _hallmarked(tmp: Path) -> tuple[object, str]:
    from hallmark.core import items, states
    from hallmark.core.loop import daemon

    repo, item_id = setup(tmp)
    daemon.do_checks(repo, items.fold_item(repo, item_id))
    daemon.do_review(repo, items.fold_item(repo, item_id))
    if items.fold_item(repo, item_id).state != states.HALLMARKED:
        raise SystemExit("the item was not hallmarked")
    return repo, item_id


def _move_base(repo) -> None:
    root = repo.root  # type: ignore[attr-defined]
    (root / "other.py").write_text("VALUE = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the base moves")
    git(root, "push", "-q", "origin", "main")


def _warm_cache_for_the_rebase(repo, item_id: str, tmp: Path) -> None:
    """Check the tree the shipper's rebase will make, in a scratch worktree: a rebase is deterministic
    in its tree, so the ship's re-check finds this pass in the cache."""
    from hallmark.core import items
    from hallmark.core.loop import checks

    view = items.fold_item(repo, item_id)
    scratch = tmp / "scratch"
    root = repo.root  # type: ignore[attr-defined]
    git(root, "worktree", "add", "-q", "--detach", str(scratch), view.hallmark_sha)
    git(scratch, "rebase", "-q", "origin/main")
    outcome = checks.run_checks(repo, None, git(scratch, "rev-parse", "HEAD"), scratch)
    if not outcome.passed:
        raise SystemExit("the rebased tree does not pass its gates")
    git(root, "worktree", "remove", "--force", str(scratch))


def ship_round(tmp: Path) -> dict[str, float]:
    from hallmark.core import items, states
    from hallmark.core.loop import daemon

    figures: dict[str, float] = {}
    for name, moved, warm in (
        ("ship, base unchanged", False, False),
        ("ship, base moved, re-check cached", True, True),
        ("ship, base moved, re-check run", True, False),
    ):
        where = tmp / name.replace(" ", "_").replace(",", "")
        repo, item_id = _hallmarked(where)
        if name == "ship, base unchanged":
            figures["checks alone"] = checks_alone(Path(items.fold_item(repo, item_id).worktree))
        if moved:
            _move_base(repo)
        if warm:
            _warm_cache_for_the_rebase(repo, item_id, where)
        started = time.perf_counter()
        result = daemon.do_ship(repo, items.fold_item(repo, item_id))
        figures[name] = time.perf_counter() - started
        if items.fold_item(repo, item_id).state != states.CLOSED:
            raise SystemExit(f"{name}: not shipped: {result}")
        rechecks = [
            e
            for e in items.item_events(repo, item_id)
            if e.get("event") == "check_run" and e.get("sha") == result["sha"] and moved
        ]
        if moved and (not rechecks or rechecks[-1].get("cached") is not warm):
            raise SystemExit(f"{name}: the re-check was not what this case measures: {rechecks}")
    return figures


def one_round(tmp: Path) -> dict[str, float]:
    from hallmark.core import items, states
    from hallmark.core.loop import daemon

    repo, item_id = setup(tmp)
    view = items.fold_item(repo, item_id)
    figures = {"checks alone": checks_alone(Path(view.worktree))}
    for name, step, expect in (
        ("checks", daemon.do_checks, states.REVIEW),
        ("review", daemon.do_review, states.HALLMARKED),
        ("ship", daemon.do_ship, states.CLOSED),
    ):
        view = items.fold_item(repo, item_id)
        started = time.perf_counter()
        step(repo, view)
        figures[name] = time.perf_counter() - started
        got = items.fold_item(repo, item_id).state
        if got != expect:
            raise SystemExit(f"{name}: expected {expect}, got {got}")
    repo2, item2 = setup(tmp / "again")
    started = time.perf_counter()
    daemon.run(until_idle=True, repos=[repo2.root])
    figures["full cycle (daemon --until-idle)"] = time.perf_counter() - started
    if items.fold_item(repo2, item2).state != states.CLOSED:
        raise SystemExit("the full cycle did not close the item")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hall-bench-loop-") as tmp_name:
        tmp = Path(tmp_name)
        shim = tmp / "bin"
        shim.mkdir()
        (shim / "claude").write_text(f'#!/bin/sh\nexec {Path(sys.executable).parent / "hall-standin-claude"} "$@"\n')
        (shim / "claude").chmod(0o755)
        os.environ["PATH"] = f"{shim}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        os.environ["HALL_STANDIN_PACE"] = "0"
        os.environ["HALLMARK_DATA_DIR"] = str(tmp / "data")
        os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
        os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@hallmark.invalid")
        os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
        os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@hallmark.invalid")
        for name in ("CLAUDECODE", "HALL_ACTOR", "HALL_ITEM", "HALL_STANDIN_SCRIPT"):
            os.environ.pop(name, None)
        rounds = [one_round(tmp / f"r{n}") for n in range(args.rounds)]
        ships = [ship_round(tmp / f"s{n}") for n in range(args.rounds)]
    names = list(rounds[0])
    medians = {name: statistics.median(r[name] for r in rounds) for name in names}
    base = medians["checks alone"]
    print(f"review loop, one approve cycle with the stand-in (median of {args.rounds} rounds)")
    print(f"{'phase':36} {'ms':>9} {'x checks alone':>15}")
    for name in names:
        print(f"{name:36} {medians[name] * 1000:9.1f} {medians[name] / base:15.1f}")
    phases = medians["checks"] + medians["review"] + medians["ship"]
    print(f"{'sum of the three phases':36} {phases * 1000:9.1f} {phases / base:15.1f}")
    ship_names = list(ships[0])
    ship_medians = {name: statistics.median(r[name] for r in ships) for name in ship_names}
    base = ship_medians["checks alone"]
    print()
    print(f"shipping a hallmarked item (median of {args.rounds} rounds; the push goes to a local bare remote)")
    print(f"{'case':36} {'ms':>9} {'x checks alone':>15}")
    for name in ship_names:
        print(f"{name:36} {ship_medians[name] * 1000:9.1f} {ship_medians[name] / base:15.1f}")


if __name__ == "__main__":
    main()
