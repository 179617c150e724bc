"""Journal benchmarks: append throughput, the fold of a long item, and `hall status --all` warm.

Run by hand: `python benchmarks/journal.py [--quick]`. Every figure is printed next to a baseline
measured in the same run, as a ratio, because the machine's speed is not ours to know.

Budgets (SPEC §10): fold of one item with 100,000 events <= 1 s; `hall status --all` over 1,000
items <= 0.5 s warm; 8 processes appending at once lose nothing and tear no line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hallmark.core import journal, states

HALL = Path(sys.executable).parent / "hall"


# -- append throughput -------------------------------------------------------------------


def _plain_writer(path: str, count: int, tag: int) -> None:
    """The baseline: open, append one line, close; no lock, no JSON envelope."""
    for n in range(count):
        with open(path, "ab") as handle:
            handle.write(f'{{"w":{tag},"n":{n}}}\n'.encode())


def _journal_writer(path: str, count: int, tag: int) -> None:
    target = Path(path)
    for n in range(count):
        journal.append(target, "bench", item="H-0001", actor=f"w{tag}", n=n, writer=tag)


def _run_writers(fn, path: Path, writers: int, per_writer: int) -> float:
    if path.exists():
        path.unlink()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=fn, args=(str(path), per_writer, w)) for w in range(writers)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - start
    if any(p.exitcode != 0 for p in procs):
        raise SystemExit("a writer failed")
    return elapsed


def bench_append(tmp: Path, total: int) -> list[tuple[str, str]]:
    rows = []
    for writers in (1, 8):
        per = total // writers
        base = _run_writers(_plain_writer, tmp / "plain.jsonl", writers, per)
        ours = _run_writers(_journal_writer, tmp / "journal.jsonl", writers, per)
        result = journal.read(tmp / "journal.jsonl")
        whole = len(result.events) == per * writers and not result.bad
        rows.append(
            (
                f"append, {writers} writer{'s' if writers > 1 else ''} ({per * writers} events)",
                f"{per * writers / ours:,.0f} ev/s vs plain append {per * writers / base:,.0f} lines/s "
                f"= {ours / base:.1f}x the baseline's time; every line whole and none lost: {whole}",
            )
        )
    return rows


# -- fold ------------------------------------------------------------------------------------


def write_long_item(path: Path, count: int) -> None:
    """A realistic long life: many review rounds, usage, prompts and check runs between transitions."""
    cycle = [
        "ready",
        "check_run",
        "checks_passed",
        "usage",
        "changes_requested",
        "prompt",
        "commit",
        "fix_submitted",
        "check_run",
        "checks_failed",
        "usage",
        "fix_submitted",
        "checks_passed",
        "usage",
        "escalated",
        "retried",
        "turn",
        "fix_submitted",
        "checks_passed",
        "changes_requested",
        "fix_submitted",
        "check_run",
        "checks_passed",
        "pulled_back",
    ]
    lines = [
        journal.encode(
            journal.make_event(
                "created", "H-0001", "you", {"title": "long", "branch": "b", "worktree": "/w", "base": "main"}
            )
        )
    ]
    n = 1
    while n < count:
        for name in cycle:
            if n >= count:
                break
            fields: dict = {"sha": f"{n:040x}", "round": n}
            if name == "usage":
                fields = {
                    "role": "review",
                    "model": "opus",
                    "input_tokens": 1200,
                    "output_tokens": 300,
                    "cost_usd": 0.01,
                }
            elif name in ("prompt", "turn"):
                fields = {"text": "please fix the failing test in parser.py " * 3}
            lines.append(journal.encode(journal.make_event(name, "H-0001", "fixer", fields)))
            n += 1
    path.write_bytes(b"".join(lines))


def bench_fold(tmp: Path, count: int, repeat: int) -> list[tuple[str, str]]:
    path = tmp / "long.jsonl"
    write_long_item(path, count)
    raw = path.read_bytes().splitlines()

    def baseline() -> None:
        for line in raw:
            json.loads(line)

    def ours() -> None:
        view = states.fold("H-0001", journal.read(path).events)
        assert view.events == count

    base = _best(baseline, repeat)
    fold = _best(ours, repeat)
    verdict = "within" if fold <= 1.0 else "OVER"
    return [
        (
            f"fold of one item, {count:,} events",
            f"{fold * 1000:.0f} ms ({verdict} the 1 s budget) vs json.loads of the same lines "
            f"{base * 1000:.0f} ms = {fold / base:.2f}x",
        )
    ]


# -- hall status --all -----------------------------------------------------------------------


def make_repo_with_items(root: Path, count: int) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    state = root / ".git" / "hallmark"
    (state / "items").mkdir(parents=True)
    (root / ".hallmark.toml").write_text('base = "main"\n')
    cycle = [
        ("ready", {"sha": "a" * 40, "round": 1}),
        ("checks_passed", {}),
        ("usage", {"role": "review", "model": "opus", "input_tokens": 100, "output_tokens": 10}),
        ("hallmarked", {"sha": "a" * 40}),
    ]
    for number in range(1, count + 1):
        item = f"H-{number:04d}"
        lines = [
            journal.make_event(
                "created",
                item,
                "you",
                {
                    "title": f"item {number}",
                    "branch": f"hm/{item}",
                    "worktree": str(root.parent / item),
                    "base": "main",
                },
            )
        ]
        for name, fields in cycle[: number % (len(cycle) + 1)]:
            lines.append(journal.make_event(name, item, "assayer", fields))
        (state / "items" / item).mkdir()
        (state / "items" / item / "events.jsonl").write_bytes(b"".join(journal.encode(e) for e in lines))
    (state / "counters.json").write_text(json.dumps({"item": count}))


def _time_cmd(cmd: list[str], cwd: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} failed: {proc.stdout[-400:]!r} {proc.stderr[-400:]!r}")
    return statistics.median(times)


def bench_status(tmp: Path, count: int, repeat: int) -> list[tuple[str, str]]:
    root = tmp / "repo"
    make_repo_with_items(root, count)
    env_cmd = [str(HALL), "status", "--all", "--json"]
    start = time.perf_counter()
    first = subprocess.run(env_cmd, cwd=root, capture_output=True, text=True)
    cold = time.perf_counter() - start
    shown = len(json.loads(first.stdout)["items"])
    warm = _time_cmd(env_cmd, root, repeat)
    base = _time_cmd([sys.executable, "-c", "pass"], root, repeat)
    verdict = "within" if warm <= 0.5 else "OVER"
    return [
        (
            f"hall status --all, {count:,} items ({shown} shown)",
            f"warm {warm * 1000:.0f} ms ({verdict} the 0.5 s budget), cold (builds the index) "
            f"{cold * 1000:.0f} ms; vs python -c pass {base * 1000:.0f} ms = {warm / base:.1f}x",
        )
    ]


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args()
    appends, events, items, repeat = (800, 10_000, 100, 3) if args.quick else (8_000, 100_000, 1_000, 7)
    tmp = Path(tempfile.mkdtemp(prefix="hallmark-bench-"))
    os.environ.setdefault("HALLMARK_DATA_DIR", str(tmp / "data"))
    try:
        rows = bench_append(tmp, appends) + bench_fold(tmp, events, repeat) + bench_status(tmp, items, repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    width = max(len(name) for name, _ in rows)
    print(f"journal benchmarks (python {sys.version.split()[0]}, {os.cpu_count()} cpus)")
    for name, figure in rows:
        print(f"  {name.ljust(width)}  {figure}")


if __name__ == "__main__":
    main()
