"""Benchmark: open the diff screen on a large change; compare with `git diff` itself (the baseline).

Run by hand: `python benchmarks/diff_screen.py [lines]`. Prints seconds and the ratio to the
baseline measured in the same run (the raw `git diff` of the same change).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(lines: int = 5000) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hall-bench-diff-"))
    os.environ["HALLMARK_DATA_DIR"] = str(tmp / "data")
    root = tmp / "repo"
    root.mkdir()

    def git(*args: str, cwd: Path = root) -> None:
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@invalid", *args],
            cwd=cwd,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    (root / "app.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-q", "-m", "start")
    from hallmark.core import items, setup_repo
    from hallmark.core.diff import item_diff
    from hallmark.core.repo import open_repo
    from hallmark.tui.screens.diff import DiffScreen
    from textual.app import App

    setup_repo.init(root)
    repo = open_repo(root)
    created = items.new(repo, title="big change")
    wt = Path(created.worktree)
    per_file = max(1, lines // 10)
    for n in range(10):
        (wt / f"mod_{n}.py").write_text("".join(f"value_{n}_{i} = {i} * 2  # generated\n" for i in range(per_file)))
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "big", cwd=wt)

    started = time.perf_counter()
    subprocess.run(["git", "diff", "main"], cwd=wt, check=True, capture_output=True)
    baseline = time.perf_counter() - started

    started = time.perf_counter()
    diff = item_diff(repo, created["item"])
    core = time.perf_counter() - started

    class Host(App[None]):
        def on_mount(self) -> None:
            self.animation_level = "none"

    async def open_screen() -> tuple[float, float, float]:
        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            started, cpu_started = time.perf_counter(), time.process_time()
            screen = DiffScreen(repo, created["item"])
            await app.push_screen(screen)
            while screen.diff is None:
                await pilot.pause(0.005)
            await pilot.pause()
            opened, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            started = time.perf_counter()
            for _ in range(20):
                await pilot.press("pagedown")
            await pilot.pause()
            paging = (time.perf_counter() - started) / 20
            return opened, cpu, paging

    opened, cpu, paging = asyncio.run(open_screen())
    added = diff.added
    print(f"change: {len(diff.files)} files, +{added} lines")
    print(f"baseline git diff:      {baseline * 1000:8.1f} ms  (1.00x)")
    print(f"core item_diff:         {core * 1000:8.1f} ms  ({core / baseline:5.2f}x baseline)")
    print(f"screen open to painted: {opened * 1000:8.1f} ms  ({opened / baseline:5.2f}x baseline)")
    print(f"screen open, CPU only:  {cpu * 1000:8.1f} ms  ({cpu / baseline:5.2f}x baseline)")
    print(f"page down (per press):  {paging * 1000:8.1f} ms  ({paging / baseline:5.2f}x baseline)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
