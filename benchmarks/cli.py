"""Benchmark: wall time of `hall` commands against a bare `python -c pass`, and what each imports.

Run by hand: `python benchmarks/cli.py [--runs N]`. It builds the hook benchmark's throwaway repo (hall init, hall new),
then times, interleaved in the same run and on the same interpreter:

- baseline: `python -c pass`
- status, log: the read commands an agent runs most (stdlib path: no rich, pydantic or textual)
- drop --help: a command's own description (its module only)
- hook: `hall hook stop` with an empty payload (the same entry as hall-hook)
- schema verdict, schema error: a schema from the registry (its module only)
- help --json: every command with its arguments (every command module)

and, once each, counts the command modules (hallmark.tui.cli.*) and the modules in all that each one
imports. Bytecode is compiled once into a private cache (PYTHONPYCACHEPREFIX), as an installed
package has it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the hook benchmark's throwaway repo (hall init, hall new); run as a script, benchmarks/ is on the path
from hooks import build

BIN = Path(sys.executable).parent
HALL = str(BIN / "hall")
CASES: dict[str, list[str]] = {
    "status": ["status"],
    "log": ["log", "--limit", "5"],
    "drop --help": ["drop", "--help"],
    "hook stop": ["hook", "stop"],
    "schema verdict": ["schema", "verdict"],
    "schema error": ["schema", "error"],
    "help --json": ["help", "--json"],
}
# what one `hall` run imported: run main() in-process and print the module names
PROBE = (
    "import io, json, sys, contextlib\n"
    "from hallmark.tui.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    sys.stdin = io.StringIO('{}')\n"
    "    try:\n"
    "        main(sys.argv[1:])\n"
    "    except SystemExit:\n"
    "        pass\n"
    "print(json.dumps(sorted(sys.modules)))\n"
)


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=env, cwd=cwd, input=b"{}")
    return time.perf_counter() - start


def imported(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, int]:
    """(command modules, all modules) one run of `hall args` leaves in sys.modules."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, env=env, cwd=cwd, text=True, check=True
    ).stdout
    names = json.loads(out.splitlines()[-1])
    frame = {"hallmark.tui.cli", "hallmark.tui.cli.framework", "hallmark.tui.cli.commands", "hallmark.tui.cli.text"}
    commands = [n for n in names if n.startswith("hallmark.tui.cli.") and n not in frame]
    return len(commands), len(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hall-bench-cli-") as tmp:
        env, repo, _worktree, _item = build(Path(tmp))
        cases = {"baseline": [sys.executable, "-c", "pass"], **{k: [HALL, *v] for k, v in CASES.items()}}
        for argv in cases.values():  # warm up: bytecode compiled once
            timed(argv, env, repo)
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, argv in cases.items():
                samples[name].append(timed(argv, env, repo))
        modules = {name: imported(argv, env, repo) for name, argv in CASES.items()}
    base = statistics.median(samples["baseline"])
    print(
        f"hall, {args.runs} runs each, interleaved; median wall time (ratio to python -c pass); "
        "command modules / all modules imported"
    )
    print(f"  {'baseline python -c pass':24s} {base * 1000:7.1f} ms   1.00x")
    for name in CASES:
        median = statistics.median(samples[name])
        own, every = modules[name]
        print(f"  {name:24s} {median * 1000:7.1f} ms   {median / base:5.2f}x   {own:2d} / {every:4d} modules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
