"""`hall trace --file` on a 200,000-line stream, against `wc -l` on the same file.

Run by hand: `python benchmarks/trace.py [--lines N] [--repeat R]`. It writes a real-format
stream-json file (runs of init, assistant text/thinking/tool_use, user tool_result and result
lines, as `claude -p --output-format stream-json --verbose` writes them) into a temp dir, then
times, best of R:
  - `wc -l` (the baseline: reading the bytes and counting newlines),
  - a bare Python loop of `json.loads` per line (the floor for any Python reader),
  - `hall trace --file F --text > /dev/null` and `hall trace --file F --json > /dev/null`
    (the real console script, interpreter start-up included),
and prints each as seconds and as a ratio to `wc -l`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SESSION = "0c5e7d7a-3b8f-4c1e-9f0a-6d2b1e4f8a90"


def _lines_for_run(run: int, size: int):
    session = f"{SESSION[:-4]}{run:04d}"
    yield {
        "type": "system",
        "subtype": "init",
        "cwd": "/work/repo-H-0042",
        "session_id": session,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"],
        "mcp_servers": [],
        "model": "claude-sonnet-4-5-20250929",
        "permissionMode": "acceptEdits",
        "claude_code_version": "2.1.19",
        "output_style": "default",
        "agents": ["general-purpose"],
        "skills": [],
        "plugins": [],
        "uuid": f"init-{run}",
    }
    turn = 0
    emitted = 1
    while emitted < size - 1:
        turn += 1
        msg = f"msg_{run:04d}_{turn:05d}"
        use = f"toolu_{run:04d}_{turn:05d}"
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": 812,
            "cache_read_input_tokens": 20311,
            "output_tokens": 140,
            "service_tier": "standard",
        }
        body = [
            {
                "type": "thinking",
                "thinking": f"Turn {turn}: check the failing case before editing.",
                "signature": "c2ln",
            },
            {"type": "text", "text": f"Let me look at src/module_{turn % 40}.py around the failing assertion."},
            {
                "type": "tool_use",
                "id": use,
                "name": ("Bash", "Read", "Grep", "Edit")[turn % 4],
                "input": (
                    {"command": f"pytest -q tests/test_{turn % 40}.py", "description": "Run the tests"},
                    {"file_path": f"/work/repo-H-0042/src/module_{turn % 40}.py"},
                    {"pattern": "def total", "path": "src"},
                    {
                        "file_path": f"/work/repo-H-0042/src/module_{turn % 40}.py",
                        "old_string": "a + b",
                        "new_string": "a + b + tax",
                    },
                )[turn % 4],
            },
        ]
        for block in body:
            yield {
                "type": "assistant",
                "message": {
                    "model": "claude-sonnet-4-5-20250929",
                    "id": msg,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
                "parent_tool_use_id": None,
                "session_id": session,
                "uuid": f"{msg}-{block['type']}",
            }
        output = "\n".join(f"{i:>5}\tline {i} of module {turn % 40}: value = compute(x, y)  # {i}" for i in range(12))
        yield {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"tool_use_id": use, "type": "tool_result", "content": output, "is_error": turn % 9 == 0}],
            },
            "parent_tool_use_id": None,
            "session_id": session,
            "uuid": f"{use}-r",
            "tool_use_result": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
        }
        emitted += 4
    yield {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 812345,
        "duration_api_ms": 790001,
        "num_turns": turn,
        "result": "Fixed the tax rounding; all tests pass.",
        "session_id": session,
        "total_cost_usd": 3.2101,
        "usage": {
            "input_tokens": 900,
            "cache_creation_input_tokens": 40000,
            "cache_read_input_tokens": 2000000,
            "output_tokens": 30000,
        },
        "modelUsage": {
            "claude-sonnet-4-5-20250929": {
                "inputTokens": 900,
                "outputTokens": 30000,
                "cacheReadInputTokens": 2000000,
                "cacheCreationInputTokens": 40000,
                "costUSD": 3.2101,
            }
        },
        "permission_denials": [],
        "uuid": f"result-{run}",
    }


def write_stream(path: Path, total: int, run_size: int = 5000) -> int:
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        run = 0
        while written < total:
            run += 1
            for record in _lines_for_run(run, min(run_size, total - written)):
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
                written += 1
                if written >= total:
                    break
    return written


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children: robust on a busy machine."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def best_of(repeat: int, action) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) over repeat runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu0 = _cpu()
        started = time.perf_counter()
        action()
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - cpu0)
    return min(walls), min(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    hall = shutil.which("hall") or str(Path(sys.executable).parent / "hall")
    with tempfile.TemporaryDirectory(prefix="hall-trace-bench-") as tmp:
        path = Path(tmp) / "20261130T094312123Z-fix.jsonl"
        lines = write_stream(path, args.lines)
        size_mb = path.stat().st_size / 1e6
        devnull = open(os.devnull, "w")  # noqa: SIM115 - held for the whole run

        def wc() -> None:
            subprocess.run(["wc", "-l", str(path)], stdout=devnull, check=True)

        def bare_json() -> None:
            with open(path, "rb") as handle:
                for raw in handle:
                    json.loads(raw)

        def in_process() -> None:
            from hallmark.core.runner.trace import iter_steps

            for step in iter_steps(path):
                step.summary  # noqa: B018 - what the text output reads of each step

        def trace(mode: str):
            def run() -> None:
                subprocess.run([hall, "trace", "--file", str(path), mode], stdout=devnull, check=True)

            return run

        base, base_cpu = best_of(args.repeat, wc)
        rows = [
            ("wc -l (baseline)", (base, base_cpu)),
            ("python json.loads per line, in-process", best_of(args.repeat, bare_json)),
            ("trace.iter_steps (summaries), in-process", best_of(args.repeat, in_process)),
            ("hall trace --file --text > /dev/null", best_of(args.repeat, trace("--text"))),
            ("hall trace --file --json > /dev/null", best_of(args.repeat, trace("--json"))),
        ]
        startup = best_of(
            args.repeat, lambda: subprocess.run([hall, "trace", "--help"], stdout=devnull, stderr=devnull, check=False)
        )
        rows.append(("hall trace --help (interpreter start-up only)", startup))
        print(
            f"stream: {lines:,} lines, {size_mb:.1f} MB; best of {args.repeat}; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)"
        )
        width = max(len(name) for name, _ in rows)
        print(f"  {'':<{width}}  {'wall':>9}  {'vs wc -l':>9}  {'CPU':>9}  {'vs wc -l':>9}")
        for name, (wall, cpu) in rows:
            ratio = wall / base if base > 0 else float("inf")
            cpu_ratio = cpu / base_cpu if base_cpu > 0 else float("inf")
            print(f"  {name:<{width}}  {wall:8.3f}s  {ratio:8.1f}x  {cpu:8.3f}s  {cpu_ratio:8.1f}x")
        text_wall, text_cpu = rows[3][1]
        print(
            f"  hall trace --text: {lines / text_wall:,.0f} lines/s wall ({lines / text_cpu:,.0f} lines/s of CPU), "
            f"{size_mb / text_wall:.1f} MB/s"
        )
        devnull.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
