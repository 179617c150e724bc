"""Benchmark: wall time of `hall statusline` against a bare `python -c pass` and the edit gate.

Run by hand: `python benchmarks/statusline.py [--runs N]`. It builds the same throwaway repo as
benchmarks/hooks.py (hall init, hall new, three open questions), then times, interleaved:

- baseline: `python -c pass`
- edit: `hall-hook pre-tool-use` with an Edit payload in the item's worktree (the edit gate)
- statusline: `hall-hook statusline` (what `hall setup claude --statusline` installs) with Claude Code's status-line payload for a session in the worktree
  (the inbox count from core/waiting, the item from the worktree, today's cost from the index)
- statusline-miss: the same with the kept line removed first (recomputed: what the first message
  after any change pays; the budget holds for the kept line, the common case)
- hall-statusline: the same line through `hall statusline` (the CLI's own imports on top)

Claude Code runs the status line after every assistant message, so its budget is the edit gate's:
statusline / edit <= 1.0 (issue 24), and it must print the line `hall inbox` agrees with.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from hooks import BIN, HOOK, build, payload, timed  # the same repo and timer as the hooks' benchmark

BUDGET = 1.0  # times the edit gate


def status_payload(cwd: Path) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": str(cwd),
            "workspace": {"current_dir": str(cwd), "project_dir": str(cwd)},
            "model": {"id": "claude-opus", "display_name": "Opus"},
            "cost": {"total_cost_usd": 0.42},
        }
    ).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hall-bench-") as tmp:
        env, _main_dir, wt, item = build(Path(tmp))
        cases = {
            "baseline": ([sys.executable, "-c", "pass"], None),
            "edit": (
                [HOOK, "pre-tool-use"],
                payload("Edit", wt, file_path=str(wt / "app.py"), old_string="1", new_string="2"),
            ),
            "statusline": ([HOOK, "statusline"], status_payload(wt)),
            "hall-statusline": ([str(BIN / "hall"), "statusline"], status_payload(wt)),
        }
        for argv, data in cases.values():  # warm up: bytecode compiled once, caches built
            timed(argv, data, env)
        _, line = timed(*cases["statusline"], env)
        expected = f"◆ 3 waiting · {item} development · $0.00 today".encode()
        if line.strip() != expected:
            raise SystemExit(f"statusline: expected {expected!r}, got {line[:200]!r}")
        samples: dict[str, list[float]] = {name: [] for name in [*cases, "statusline-miss"]}
        kept = _main_dir / ".git" / "hallmark" / "statusline.json"
        for _ in range(args.runs):
            for name, (argv, data) in cases.items():
                samples[name].append(timed(argv, data, env)[0])
            kept.unlink(missing_ok=True)  # a line recomputed (something changed since the last message)
            samples["statusline-miss"].append(timed(*cases["statusline"], env)[0])
    median = {name: statistics.median(values) for name, values in samples.items()}
    print(f"hall statusline, {args.runs} runs each, interleaved; median wall time")
    for name in samples:
        print(
            f"  {name:16s} {median[name] * 1000:7.1f} ms   {median[name] / median['baseline']:.2f}x python -c pass"
            f"   {median[name] / median['edit']:.2f}x the edit gate"
        )
    ratio = median["statusline"] / median["edit"]
    print(f"  budget: statusline <= {BUDGET}x the edit gate: " + ("ok" if ratio <= BUDGET else "OVER"))
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
