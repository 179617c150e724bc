"""Terminal app budgets, measured against baselines in the same run (run by hand, not a test).

1. First paint of the floor plan with 1,000 items (budget <= 1.5 s), next to `hall status --all`
   over the same repository. Both are whole processes: interpreter start, imports, the index
   catch-up, and (for the app) the floor's data painted in a headless terminal.
2. Open a 200,000-line run stream and jump to its end (budget <= 1 s), next to `wc -l` on it.

    /work/venv/bin/python benchmarks/tui.py [--items 1000] [--lines 200000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
BIN = Path(sys.executable).parent


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def build_repo(root: Path, count: int) -> Path:
    """A real repo after `hall init`, with `count` items whose journals hold real events in every state."""
    from hallmark.core import journal, setup_repo
    from hallmark.core.paths import discover

    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# bench\n")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=bench", "-c", "user.email=bench@invalid", "commit", "-qm", "init")
    setup_repo.init(repo)
    paths = discover(repo)
    flows = [[], ["ready"], ["ready", "checks_passed"], ["ready", "checks_failed"], ["proposed_ready"],
             ["ready", "checks_passed", "escalated"], ["ready", "checks_passed", "hallmarked"],
             ["ready", "checks_passed", "hallmarked", "shipped"], ["dropped"]]
    for n in range(1, count + 1):
        item = f"H-{n:04d}"
        path = paths.item_journal(item)
        events = [journal.make_event("created", item, "you", {"title": f"Bench item {n}", "branch": f"hm/{item}",
                                                              "worktree": str(root / f"repo-{item}"), "base": "main"})]
        for action in flows[n % len(flows)]:
            fields = {"sha": "0" * 40, "round": 1} if action == "ready" else {"reason": "bench"} if action == "dropped" else {}
            events.append(journal.make_event(action, item, "assayer", fields))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(journal.encode(e) for e in events))
    (paths.state_dir / "counters.json").write_text(json.dumps({"item": count}))
    return repo


def time_status(repo: Path, runs: int = 3) -> float:
    env = dict(os.environ)
    subprocess.run([str(BIN / "hall"), "status", "--all", "--json"], cwd=repo, env=env, capture_output=True, check=True)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN / "hall"), "status", "--all", "--json"], cwd=repo, env=env, capture_output=True,
                       check=True)
        best = min(best, time.perf_counter() - start)
    return best


def time_first_paint(repo: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.time()
        out = subprocess.run([sys.executable, str(HERE), "--child-first-paint", str(repo)], capture_output=True,
                             text=True, check=True)
        painted = float(out.stdout.strip().splitlines()[-1])
        best = min(best, painted - start)
    return best


def child_first_paint(repo: str) -> None:
    """In a fresh process: open the app headless and report the moment the floor's data is painted."""
    from hallmark.tui.app import HallmarkApp
    from hallmark.tui.screens.floor import RoomBox

    async def go() -> float:
        app = HallmarkApp(repo, theme="hallmark-dark", watch_journal=False, persist_theme=False)
        async with app.run_test(size=(160, 48)) as pilot:
            while not getattr(app.screen, "loaded", False):
                await asyncio.sleep(0.005)
            await pilot.pause()
            total = sum(len(b.items) for b in app.screen.query(RoomBox))
            assert total >= 1000, total
            return time.time()

    print(asyncio.run(go()))


def write_stream(path: Path, lines: int) -> None:
    sys.path.insert(0, str(HERE.parent.parent))
    from tests.tui.conftest import stream_lines

    block = [json.dumps(x) for x in stream_lines("H-0001", 10)]
    with open(path, "w", encoding="utf-8") as handle:
        written = 0
        while written < lines - 1:
            take = block[: lines - 1 - written]
            handle.write("\n".join(take) + "\n")
            written += len(take)
        handle.write(json.dumps({"type": "hall_run_end", "role": "review", "item": "H-0001", "exit_code": 0,
                                 "duration_ms": 1, "failure": None, "cwd": "/tmp"}) + "\n")


def time_wc(path: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def time_trace(repo: Path, path: Path, lines: int, runs: int = 3) -> tuple[float, float]:
    """(end of the stream on screen, whole stream indexed), best of runs."""
    from hallmark.tui.app import HallmarkApp

    async def go() -> tuple[float, float]:
        app = HallmarkApp(repo, theme="hallmark-dark", watch_journal=False, persist_theme=False, start_mode="runs")
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            app.open_trace(path, item="H-0001")
            view = None
            while True:
                screen = app.screen
                found = screen.query("TraceView") if type(screen).__name__ == "TraceScreen" else []
                view = found[0] if found else None
                if view is not None and view.ends and view.saw_end and view.tail and view.scroll_y == view.max_scroll_y:
                    break
                await asyncio.sleep(0.002)
            await pilot.pause()  # the end of the stream is painted
            shown = time.perf_counter() - start
            assert "end" in view.summary_text(view.line_count - 1).plain
            while view.partial or view.line_count != lines:
                await asyncio.sleep(0.002)
            await pilot.pause()
            indexed = time.perf_counter() - start
            assert view.cursor == lines - 1
            return shown, indexed

    results = [asyncio.run(go()) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--child-first-paint")
    args = parser.parse_args()
    if args.child_first_paint:
        child_first_paint(args.child_first_paint)
        return 0
    work = Path(tempfile.mkdtemp(prefix="hallmark-bench-tui-"))
    os.environ["HALLMARK_DATA_DIR"] = str(work / "data")
    try:
        repo = build_repo(work, args.items)
        status = time_status(repo)
        paint = time_first_paint(repo)
        print(f"first paint, {args.items} items: {paint:.3f} s  (budget 1.5 s)  |  hall status --all: {status:.3f} s"
              f"  |  ratio {paint / status:.1f}x  {'OK' if paint <= 1.5 else 'OVER BUDGET'}")
        stream = work / "20261130T090500123Z-review.jsonl"
        write_stream(stream, args.lines)
        size_mb = stream.stat().st_size / 1e6
        wc = time_wc(stream)
        shown, indexed = time_trace(repo, stream, args.lines)
        print(f"open + jump to end, {args.lines:,} lines ({size_mb:.0f} MB): end on screen {shown:.3f} s  "
              f"(budget 1 s) {'OK' if shown <= 1.0 else 'OVER BUDGET'}, whole stream indexed {indexed:.3f} s  |  "
              f"wc -l: {wc:.3f} s  |  ratios {shown / wc:.1f}x / {indexed / wc:.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
