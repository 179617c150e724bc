"""Key to paint through a real terminal (run by hand, not a test): tmux `send-keys`, then
`capture-pane` until the change is on screen, for `hall tui` and, in the same run, a trivial
Textual app (the baseline every figure is a ratio of).

benchmarks/tui.py measures inside the process (the key goes in as a terminal would deliver it, the
clock stops at the first frame the app renders). A person's terminal adds the write to the pty,
tmux's parsing and the redraw: this measures all of it, from outside.

* The repository: `--items` items (benchmarks/tui.py's build_repo), `hall tui` open on it at
  160x48 in its own tmux server (TERM=xterm-256color).
* A feeder keeps the journal moving the whole time (an event on a random item every 0.4 s,
  through the core, as the daemon's passes do), so the app reloads its Building under the keys.
* Each Hallmark key is followed by one key in the baseline: a 300-row DataTable screen and a card
  screen, switched with v / L, moved with j / k.
* A view switch counts when the new view's title is on screen; a cursor move when the screen changed.

Acceptance (issue 28): Hallmark's median at most 2x the baseline's, its p95 at most 1.5x the
baseline's p95, and every view switch under 300 ms.

    python benchmarks/tui_terminal.py [--items 1000] [--rounds 4]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve()
BIN = Path(sys.executable).parent
SOCKET = f"hallbench-{os.getpid()}"
WIDTH, HEIGHT = 160, 48
POLL_S = 0.005
TIMEOUT_S = 5.0

# (key as tmux names it, the title that must be on screen; None: any change)
HALL_ROUND = [
    ("v", "Triage list"),
    ("j", None),
    ("j", None),
    ("k", None),
    ("b", "Boards"),
    ("i", "Inbox"),
    ("j", None),
    ("t", "Runs"),
    ("$", "Usage"),
    ("L", "Reflect drain"),
    ("f", "Floor plan"),
    ("v", "Triage list"),
    ("k", None),
    ("f", "Floor plan"),
]
BASE_FOR = {"j": ("j", None), "k": ("k", None)}

TRIVIAL_APP = """
from textual.app import App
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static


class TableView(Screen):
    BINDINGS = [("j", "down", "Down"), ("k", "up", "Up")]

    def compose(self):
        yield Header()
        yield DataTable(id="t")
        yield Footer()

    def on_mount(self):
        self.title = "Table view"
        table = self.query_one(DataTable)
        table.add_columns("id", "state", "title")
        for n in range(300):
            table.add_row(f"X-{n:04d}", "open", f"row {n}")
        table.move_cursor(row=150)  # mid-table: j and k always move

    def action_down(self):
        self.query_one(DataTable).action_cursor_down()

    def action_up(self):
        self.query_one(DataTable).action_cursor_up()


class CardView(Screen):
    BINDINGS = [("j", "step(1)", "Down"), ("k", "step(-1)", "Up")]

    def compose(self):
        yield Header()
        yield Static("Card view: card 1 of 300", id="card")
        yield Footer()

    def on_mount(self):
        self.title = "Card view"
        self.at = 150

    def action_step(self, by):
        self.at = max(1, min(300, self.at + by))
        self.query_one("#card", Static).update(f"Card view: card {self.at} of 300")


class Trivial(App):
    MODES = {"table": TableView, "card": CardView}
    BINDINGS = [("v", "switch_mode('table')", "Table"), ("L", "switch_mode('card')", "Card")]

    def on_mount(self):
        self.switch_mode("table")


Trivial().run()
"""


def _bench_tui():
    spec = importlib.util.spec_from_file_location("bench_tui", HERE.parent / "tui.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False).stdout


def capture(session: str) -> str:
    return tmux("capture-pane", "-p", "-e", "-t", session)


def start(session: str, command: list[str], env: dict[str, str]) -> None:
    line = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(command)
    tmux("new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT), "env " + line)


def wait_for(session: str, text: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in capture(session):
            return
        time.sleep(0.1)
    raise TimeoutError(f"{session}: {text!r} never appeared:\n{capture(session)}")


def key_to_paint(session: str, key: str, marker: str | None) -> float | None:
    """Seconds from send-keys to the first capture showing the change; None on a timeout."""
    before = capture(session)
    if marker is not None and marker in before.split("\n", 2)[1]:
        marker = None  # already on that view: any change counts
    start_t = time.perf_counter()
    tmux("send-keys", "-t", session, "-l", key)
    while time.perf_counter() - start_t < TIMEOUT_S:
        now = capture(session)
        if now != before and (marker is None or marker in now):
            return time.perf_counter() - start_t
        time.sleep(POLL_S)
    return None


def feeder(repo_root: Path, stop: threading.Event, count: int) -> None:
    """Keep the journal moving as the daemon's passes do: an event on a random item every 0.4 s."""
    from hallmark.core import items
    from hallmark.core.repo import open_repo

    repo = open_repo(repo_root)
    rng = random.Random(7)
    while not stop.is_set():
        item = f"H-{rng.randint(1, count):04d}"
        with contextlib.suppress(Exception):  # an item the feeder cannot write: the next one
            items.record(repo, item, "usage", actor="assayer", role="review", input_tokens=10, output_tokens=5)
        stop.wait(0.4)


def summary(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95, ordered[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed: apt-get install tmux")
        return 2
    bench = _bench_tui()
    work = Path(tempfile.mkdtemp(prefix="hall-term-bench-"))
    env = {
        "HOME": str(work / "home"),
        "HALLMARK_DATA_DIR": str(work / "data"),
        "TERM": "xterm-256color",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "TEXTUAL_ANIMATIONS": "none",
    }
    (work / "home").mkdir()
    os.environ.update({k: env[k] for k in ("HOME", "HALLMARK_DATA_DIR")})
    stop = threading.Event()
    try:
        repo = bench.build_repo(work, args.items)
        (work / "trivial.py").write_text(TRIVIAL_APP)
        start("hall", [str(BIN / "hall"), "tui", "--repo", str(repo)], env)
        start("base", [sys.executable, str(work / "trivial.py")], env)
        wait_for("hall", "Floor plan")
        wait_for("base", "Table view")
        thread = threading.Thread(target=feeder, args=(repo, stop, args.items), daemon=True)
        thread.start()
        time.sleep(1.0)
        hall: dict[str, list[float]] = {"switch": [], "move": []}
        base: dict[str, list[float]] = {"switch": [], "move": []}
        missed = 0
        base_switch = iter(["L", "v"] * 1000)
        for _ in range(args.rounds):
            for key, marker in HALL_ROUND:
                kind = "switch" if marker else "move"
                took = key_to_paint("hall", key, marker)
                if took is None:
                    missed += 1
                else:
                    hall[kind].append(took)
                if kind == "switch":
                    other = next(base_switch)
                    twin = (other, "Card view" if other == "L" else "Table view")
                else:
                    twin = BASE_FOR[key]
                took = key_to_paint("base", *twin)
                if took is not None:
                    base[kind].append(took)
        load = os.getloadavg()[0]
        every_h = hall["switch"] + hall["move"]
        every_b = base["switch"] + base["move"]
        hm, hp, hx = summary(every_h)
        bm, bp, bx = summary(every_b)
        sm, sp, sx = summary(hall["switch"])
        print(f"through tmux at {WIDTH}x{HEIGHT}, {args.items} items, a feeder writing the journal (load {load:.1f})")
        print(
            f"  hall tui:      median {hm * 1000:.0f} ms, p95 {hp * 1000:.0f} ms, max {hx * 1000:.0f} ms (n={len(every_h)})"
        )
        print(
            f"  trivial app:   median {bm * 1000:.0f} ms, p95 {bp * 1000:.0f} ms, max {bx * 1000:.0f} ms (n={len(every_b)})"
        )
        print(f"  ratios: median {hm / bm:.2f}x (at most 2x), p95 {hp / bp:.2f}x (at most 1.5x)")
        print(
            f"  view switches: median {sm * 1000:.0f} ms, p95 {sp * 1000:.0f} ms, max {sx * 1000:.0f} ms (under 300 ms)"
        )
        for kind in ("switch", "move"):
            if hall[kind] and base[kind]:
                a, b = statistics.median(hall[kind]), statistics.median(base[kind])
                print(f"  {kind}: hall median {a * 1000:.0f} ms vs trivial {b * 1000:.0f} ms ({a / b:.1f}x)")
        if missed:
            print(f"  {missed} keys showed no change within {TIMEOUT_S:.0f} s")
        ok = hm <= 2 * bm and hp <= 1.5 * bp and sx < 0.3 and not missed
        print("  OK" if ok else "  OVER BUDGET")
        return 0 if ok else 1
    finally:
        stop.set()
        tmux("kill-server")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
