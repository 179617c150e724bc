"""Terminal app budgets, measured against baselines in the same run (run by hand, not a test).

Needs only the product's own install (`pip install -e .`): no pytest, no test fixtures.

1. `hall status --all` over 1,000 items: the baseline every figure is a ratio of.
2. First paint of the floor plan with 1,000 items (budget <= 1.5 s): a whole process, from its
   start to the first frame that shows the rooms' items.
3. View switches and cursor moves with 1,000 items: key to the frame that shows the result,
   median and p95 (budget: a view switch <= 300 ms), first visits reported apart.
4. The same keys on the demo while its daemon works in its own process (budget: median <= 100 ms,
   p95 <= 250 ms), the journal watcher on.
5. A 200,000-line run stream: its end on screen (budget <= 1 s), next to `wc -l` on it.
6. A live run: a line written to the stream until the frame that shows it (budget <= 0.5 s).

"Key to paint" is measured inside the app: the key goes in as a terminal would deliver it, and
the clock stops at the first frame the app renders in which the expected change is visible.

    python benchmarks/tui.py [--items 1000] [--lines 200000] [--rounds 5] [--skip-demo]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
BIN = Path(sys.executable).parent
SIZE = (160, 48)
VIEWS = (
    ("b", "BoardScreen"),
    ("v", "ItemListScreen"),
    ("i", "InboxScreen"),
    ("t", "RunsScreen"),
    ("dollar_sign", "UsageScreen"),
    ("L", "DrainScreen"),
    ("f", "FloorScreen"),
)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


# -- fixtures, built with the product's own core ---------------------------------------------------


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
    flows = [
        [],
        ["ready"],
        ["ready", "checks_passed"],
        ["ready", "checks_failed"],
        ["proposed_ready"],
        ["ready", "checks_passed", "escalated"],
        ["ready", "checks_passed", "hallmarked"],
        ["ready", "checks_passed", "hallmarked", "shipped"],
        ["dropped"],
    ]
    for n in range(1, count + 1):
        item = f"H-{n:04d}"
        path = paths.item_journal(item)
        events = [
            journal.make_event(
                "created",
                item,
                "you",
                {
                    "title": f"Bench item {n}",
                    "branch": f"hm/{item}",
                    "worktree": str(root / f"repo-{item}"),
                    "base": "main",
                },
            )
        ]
        for action in flows[n % len(flows)]:
            fields = (
                {"sha": "0" * 40, "round": 1}
                if action == "ready"
                else {"reason": "bench"}
                if action == "dropped"
                else {}
            )
            events.append(journal.make_event(action, item, "assayer", fields))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(journal.encode(e) for e in events))
    (paths.state_dir / "counters.json").write_text(json.dumps({"item": count}))
    return repo


SESSION = "1d1e46f9-35c7-4834-b529-846d5bb82288"


def stream_block(item: str, n_tools: int) -> list[dict[str, Any]]:
    """Real-format stream-json lines: init, assistant text and tool calls, their results, a result."""
    lines: list[dict[str, Any]] = [
        {
            "type": "system",
            "subtype": "init",
            "cwd": f"/work/repo-{item}",
            "session_id": SESSION,
            "tools": ["Bash", "Read"],
            "model": "claude-sonnet-4-5",
            "permissionMode": "default",
            "claude_code_version": "2.1.7",
        }
    ]
    for i in range(n_tools):
        lines.append(
            {
                "type": "assistant",
                "message": {
                    "model": "claude-sonnet-4-5",
                    "id": f"msg_{i}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Reading part {i} of the change."}],
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
                "session_id": SESSION,
            }
        )
        lines.append(
            {
                "type": "assistant",
                "message": {
                    "model": "claude-sonnet-4-5",
                    "id": f"msg_{i}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{i}",
                            "name": "Bash",
                            "input": {"command": f"git diff --stat HEAD~{i + 1}"},
                        }
                    ],
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
                "session_id": SESSION,
            }
        )
        lines.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": f"toolu_{i}",
                            "type": "tool_result",
                            "content": f" app.py | {i + 2} +-\n",
                            "is_error": False,
                        }
                    ],
                },
                "session_id": SESSION,
            }
        )
    lines.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 42000,
            "num_turns": 3,
            "result": "No blockers.",
            "session_id": SESSION,
            "total_cost_usd": 0.0123,
            "usage": {"input_tokens": 12000, "output_tokens": 3400},
        }
    )
    return lines


def write_stream(path: Path, lines: int) -> None:
    block = [json.dumps(x) for x in stream_block("H-0001", 10)]
    with open(path, "w", encoding="utf-8") as handle:
        written = 0
        while written < lines - 1:
            take = block[: lines - 1 - written]
            handle.write("\n".join(take) + "\n")
            written += len(take)
        handle.write(
            json.dumps(
                {
                    "type": "hall_run_end",
                    "role": "review",
                    "item": "H-0001",
                    "exit_code": 0,
                    "duration_ms": 1,
                    "failure": None,
                    "cwd": "/tmp",
                }
            )
            + "\n"
        )


# -- measuring inside the app -------------------------------------------------------------------------


class Paints:
    """Watches the frames the app renders. `expect(ready)` arms it: the first frame rendered while
    ready() is true stops the clock."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.ready: Callable[[], bool] | None = None
        self.at: float | None = None
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is not None and self.ready is not None and self.ready():
                self.at = time.perf_counter()
                self.ready = None

        app._display = display

    async def key(self, key: str, ready: Callable[[], bool], timeout: float = 20.0) -> float:
        from textual import events

        self.at = None
        self.ready = ready
        start = time.perf_counter()
        char = key if len(key) == 1 else {"dollar_sign": "$", "question_mark": "?"}.get(key)
        self.app._driver.send_message(events.Key(key, char))
        while self.at is None:
            if time.perf_counter() - start > timeout:
                self.ready = None
                screen = self.app.screen
                raise TimeoutError(
                    f"{key}: nothing painted in {timeout} s (on {type(screen).__name__}, focus {self.app.focused!r})"
                )
            await asyncio.sleep(0.001)
        return self.at - start


def screen_ready(app: Any, name: str) -> Callable[[], bool]:
    def ready() -> bool:
        screen = app.screen
        return type(screen).__name__ == name and bool(getattr(screen, "loaded", True))

    return ready


def stats(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(values) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms (n={len(values)})"


BY_VIEW: dict[str, list[float]] = {}  # view -> switch latencies (the report's detail line)


async def drive_views(app: Any, paints: Paints, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """(first visits, switches, cursor moves) key-to-paint, in seconds."""
    first: list[float] = []
    switches: list[float] = []
    moves: list[float] = []
    BY_VIEW.clear()
    for key, name in VIEWS:
        first.append(await paints.key(key, screen_ready(app, name)))
        await asyncio.sleep(0.05)
    for _ in range(rounds):
        for key, name in VIEWS:
            took = await paints.key(key, screen_ready(app, name))
            switches.append(took)
            BY_VIEW.setdefault(name, []).append(took)
            await asyncio.sleep(0.02)
        for key, name in (("b", "BoardScreen"), ("v", "ItemListScreen")):
            switches.append(await paints.key(key, screen_ready(app, name)))
            for move in ("j", "j", "k", "j"):
                moves.append(await _cursor_move(app, paints, move))
                await asyncio.sleep(0.02)
    return first, switches, moves


def _selected(app: Any) -> str | None:
    screen = app.screen
    view = screen.selected() if hasattr(screen, "selected") else None
    return getattr(view, "id", None)


async def _cursor_move(app: Any, paints: Paints, key: str) -> float:
    before = _selected(app)
    moved = await paints.key(key, lambda: _selected(app) != before or _at_edge(app, key), timeout=10)
    return moved


def _at_edge(app: Any, key: str) -> bool:
    """A move past the first or last row changes nothing: that key is answered by the next frame."""
    screen = app.screen
    table = getattr(screen, "table", None)
    if table is not None:
        return (key == "k" and table.cursor == 0) or (key == "j" and table.cursor >= len(table.rows) - 1)
    column = screen.current_column() if hasattr(screen, "current_column") else None
    if column is not None:
        lst = column.options
        return (key == "k" and lst.highlighted == 0) or (key == "j" and lst.highlighted == lst.option_count - 1)
    return True


def app_for(repo: Path, **kwargs: Any) -> Any:
    from hallmark.tui.app import HallmarkApp

    app = HallmarkApp(repo, theme="hallmark-dark", persist_theme=False, **kwargs)
    app.animation_level = "none"
    return app


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    start = time.perf_counter()
    while not check():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("the app never got there")
        await asyncio.sleep(0.005)


# -- 1. baseline ---------------------------------------------------------------------------------------


def time_status(repo: Path, runs: int = 3) -> float:
    subprocess.run([str(BIN / "hall"), "status", "--all", "--json"], cwd=repo, capture_output=True, check=True)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN / "hall"), "status", "--all", "--json"], cwd=repo, capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


# -- 2. first paint ------------------------------------------------------------------------------------


def time_first_paint(repo: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.time()
        out = subprocess.run(
            [sys.executable, str(HERE), "--child-first-paint", str(repo)], capture_output=True, text=True, check=True
        )
        painted = float(out.stdout.strip().splitlines()[-1])
        best = min(best, painted - start)
    return best


def child_first_paint(repo: str) -> None:
    """In a fresh process: open the app headless and report the moment the floor's items are painted."""

    async def go() -> float:
        app = app_for(Path(repo), watch_journal=False)
        painted: list[float] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is not None and not painted and _floor_full(app):
                painted.append(time.time())

        app._display = display
        async with app.run_test(size=SIZE):
            await _until(lambda: bool(painted))
            return painted[0]

    print(asyncio.run(go()))


def _floor_full(app: Any) -> bool:
    from hallmark.tui.screens.floor import FloorScreen, RoomBox

    screen = app.screen
    if not isinstance(screen, FloorScreen) or app.building is None:
        return False
    return sum(len(box.items) for box in screen.query(RoomBox)) >= len(app.building.views)


# -- 3. views with 1,000 items ---------------------------------------------------------------------------


def time_views(repo: Path, rounds: int) -> tuple[list[float], list[float], list[float]]:
    async def go() -> tuple[list[float], list[float], list[float]]:
        app = app_for(repo, watch_journal=False)
        async with app.run_test(size=SIZE):
            paints = Paints(app)
            await _until(lambda: _floor_full(app))
            return await drive_views(app, paints, rounds)

    return asyncio.run(go())


# -- 4. the demo while its daemon works ------------------------------------------------------------------


def time_demo(rounds: int) -> tuple[list[float], list[float], list[float], int]:
    from hallmark.core.demo import driver, workspace

    demo = workspace.create(None)
    try:
        with workspace.demo_env(demo):
            driver.build(demo)
            workspace.set_pace(demo, 0.1)
            background = driver.Background(demo, interval=0.5)
            background.start()
            try:

                async def go() -> tuple[list[float], list[float], list[float], int]:
                    app = app_for(demo.root, watch_journal=True)
                    async with app.run_test(size=SIZE):
                        paints = Paints(app)
                        await _until(lambda: _floor_full(app))
                        loads_before = app.building_loads
                        first, switches, moves = await drive_views(app, paints, rounds)
                        return first, switches, moves, app.building_loads - loads_before

                return asyncio.run(go())
            finally:
                background.stop(wait_s=20, end_live_runs=True)
    finally:
        workspace.remove(demo)


# -- 5 and 6. traces ----------------------------------------------------------------------------------------


def time_wc(path: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["wc", "-l", str(path)], capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def time_trace(repo: Path, path: Path, lines: int, runs: int = 3) -> tuple[float, float]:
    """(end of the stream on screen, whole stream indexed), best of runs."""

    async def go() -> tuple[float, float]:
        app = app_for(repo, watch_journal=False, start_mode="runs")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            shown_at: list[float] = []
            original = app._display

            def display(screen: Any, renderable: Any) -> None:
                original(screen, renderable)
                view = _trace_view(app)
                if (
                    renderable is not None
                    and not shown_at
                    and view is not None
                    and view.saw_end
                    and view.tail
                    and view.line_count
                    and view.scroll_y == view.max_scroll_y
                ):
                    shown_at.append(time.perf_counter())

            app._display = display
            start = time.perf_counter()
            app.open_trace(path, item="H-0001")
            await _until(lambda: bool(shown_at))
            view = _trace_view(app)
            assert view is not None and "end" in view.summary_text(view.line_count - 1).plain
            await _until(lambda: not view.partial and view.line_count == lines)
            return shown_at[0] - start, time.perf_counter() - start

    results = [asyncio.run(go()) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results)


def _trace_view(app: Any) -> Any:
    screen = app.screen
    if type(screen).__name__ != "TraceScreen":
        return None
    found = screen.query("TraceView")
    return found[0] if found else None


def time_live_trace(repo: Path, count: int = 30, every: float = 0.15) -> list[float]:
    """A run whose lock is held; a writer appends a line every `every` s; each line's latency from
    its write to the first frame that shows it."""
    from filelock import FileLock

    runs = repo.parent / "live-runs"
    runs.mkdir(exist_ok=True)
    path = runs / "20261130T100000000Z-review.jsonl"
    block = [json.dumps(x) for x in stream_block("H-0001", 10)]
    path.write_text("\n".join(block[:3]) + "\n")
    lock = FileLock(str(path.with_suffix(".lock")))
    lock.acquire()
    written: list[float] = []
    latencies: list[float] = []

    def writer() -> None:
        with open(path, "a", encoding="utf-8") as handle:
            for n in range(count):
                time.sleep(every)
                handle.write(block[3 + n % (len(block) - 4)] + "\n")
                handle.flush()
                written.append(time.perf_counter())

    async def go() -> None:
        app = app_for(repo, watch_journal=False, start_mode="runs")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            original = app._display

            def display(screen: Any, renderable: Any) -> None:
                original(screen, renderable)
                view = _trace_view(app)
                if renderable is None or view is None:
                    return
                now = time.perf_counter()
                while len(latencies) < len(written) and view.line_count >= 3 + len(latencies) + 1:
                    latencies.append(now - written[len(latencies)])

            app._display = display
            app.open_trace(path, item="H-0001")
            await _until(lambda: _trace_view(app) is not None and _trace_view(app).line_count >= 3)
            thread = threading.Thread(target=writer, daemon=True)
            thread.start()
            await _until(lambda: len(latencies) >= count, timeout=count * every + 30)
            thread.join()

    try:
        asyncio.run(go())
    finally:
        lock.release()
    return latencies


# -- the report ------------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "OK" if ok else "OVER BUDGET"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-demo", action="store_true")
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
        print(f"baseline: hall status --all, {args.items} items: {status:.3f} s")
        paint = time_first_paint(repo)
        print(
            f"first paint, {args.items} items: {paint:.3f} s  (budget 1.5 s)  ratio {paint / status:.1f}x  "
            f"{verdict(paint <= 1.5)}"
        )
        first, switches, moves = time_views(repo, args.rounds)
        print(
            f"view switch, {args.items} items: {stats(switches)}  (budget 300 ms)  median ratio "
            f"{statistics.median(switches) / status:.2f}x  {verdict(p95(switches) <= 0.3)}"
        )
        print(f"  first visit of each view: max {max(first) * 1000:.0f} ms, {stats(first)}")
        print(
            "  by view (median ms): "
            + ", ".join(f"{k.removesuffix('Screen')} {statistics.median(v) * 1000:.0f}" for k, v in BY_VIEW.items())
        )
        print(f"cursor move, {args.items} items: {stats(moves)}  median ratio {statistics.median(moves) / status:.2f}x")
        if not args.skip_demo:
            first, switches, moves, loads = time_demo(args.rounds)
            keys = switches + moves
            print(
                f"demo, daemon working ({loads} building loads meanwhile): key to paint {stats(keys)}  "
                f"(budget median 100 ms, p95 250 ms)  median ratio {statistics.median(keys) / status:.2f}x  "
                f"{verdict(statistics.median(keys) <= 0.1 and p95(keys) <= 0.25)}"
            )
            print(
                f"  view switches {stats(switches)}; cursor moves {stats(moves)}; first visits max "
                f"{max(first) * 1000:.0f} ms"
            )
        stream = work / "20261130T090500123Z-review.jsonl"
        write_stream(stream, args.lines)
        size_mb = stream.stat().st_size / 1e6
        wc = time_wc(stream)
        shown, indexed = time_trace(repo, stream, args.lines)
        print(
            f"trace, {args.lines:,} lines ({size_mb:.0f} MB): end on screen {shown:.3f} s (budget 1 s) "
            f"{verdict(shown <= 1.0)}, whole stream indexed {indexed:.3f} s  |  wc -l {wc:.3f} s  |  "
            f"ratios {shown / wc:.0f}x / {indexed / wc:.0f}x; {shown / status:.1f}x hall status"
        )
        live = time_live_trace(repo)
        print(f"live trace: write to paint {stats(live)}  (budget 500 ms)  {verdict(p95(live) <= 0.5)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
