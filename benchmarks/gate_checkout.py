"""What running the gates in a clean checkout costs, against recording and removing what they leave.

Run by hand: `python benchmarks/gate_checkout.py [REPO ...] [--rounds N] [--gate CMD]`. Each REPO
(a path to any git repository; default: a generated one of 10,000 files) is cloned to a temporary
folder, `hall init`-ed, and given an item whose worktree commits one change. Then, per round:

- clean checkout (what core/gate_checkout.py does): the first `prepare` (a detached `git worktree
  add`), a reset to the same commit after the gate left its by-products (`checkout -f --detach`,
  `clean -ffd`), a reset to another commit (five commits back, then forward again), and `after_gate`
  (one `git status` after each gate, to see what it rewrote);
- record and remove, the alternative, in the item's own worktree: `git status` before the gate, after
  it, deleting every file that appeared and restoring every tracked file it changed.

The gate (`--gate`, default: a shell loop that writes 4 binaries-sized files, as jsmn's `make test`
leaves) runs once per round in each place, so the by-products are real; its own time is reported as
the baseline. Medians in milliseconds; the disk a checkout takes (its files, not git's objects).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_GATE = "mkdir -p test && for n in a b c d; do head -c 30000 /dev/zero > test/bin_$n; done"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def generated(tmp: Path, files: int = 10_000) -> Path:
    root = tmp / "generated"
    for n in range(files):
        path = root / f"pkg{n // 200}" / f"mod{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {n}\n" * 20)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    for n in range(6):
        git(root, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "--allow-empty", "-m", f"c{n}")
    return root


def prepared(source: Path, tmp: Path) -> tuple[object, str, Path]:
    from hallmark.core import items, setup_repo
    from hallmark.core.repo import open_repo

    root = tmp / "repo"
    subprocess.run(["git", "clone", "-q", str(source), str(root)], check=True)
    env_id = ["-c", "user.name=b", "-c", "user.email=b@x"]
    branch = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    setup_repo.init(root)
    (root / ".hallmark.toml").write_text(f'base = "{branch}"\ngates = []\n')
    git(root, "add", "-A")
    git(root, *env_id, "commit", "-q", "-m", "hall init")
    repo = open_repo(root)
    created = items.new(repo, title="bench")
    wt = Path(created["worktree"])
    (wt / "BENCH.txt").write_text("one change\n")
    git(wt, "add", "-A")
    git(wt, *env_id, "commit", "-q", "-m", "bench")
    return repo, git(wt, "rev-parse", "HEAD"), wt


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def run_gate(gate: str, cwd: Path) -> float:
    return timed(lambda: subprocess.run(["sh", "-c", gate], cwd=cwd, check=True, capture_output=True))


def record_and_remove(wt: Path, gate: str) -> tuple[float, float]:
    """(the bookkeeping's ms, the gate's ms) for the alternative, in the worktree itself."""

    def status() -> set[str]:
        out = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all"], cwd=wt, capture_output=True, text=True
        ).stdout
        return {entry for entry in out.split("\0") if entry}

    started = time.perf_counter()
    before = status()
    book = (time.perf_counter() - started) * 1000
    gate_ms = run_gate(gate, wt)
    started = time.perf_counter()
    after = status()
    for entry in sorted(after - before):
        code, rel = entry[:2], entry[3:]
        if code == "??":
            target = wt / rel
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink()
        else:
            subprocess.run(["git", "checkout", "-q", "--", rel], cwd=wt, check=True)
    book += (time.perf_counter() - started) * 1000
    return book, gate_ms


def disk(path: Path) -> int:
    total = 0
    for folder, dirs, names in os.walk(path):
        if ".git" in dirs:
            dirs.remove(".git")
        for name in names:
            try:
                total += (Path(folder) / name).lstat().st_size
            except OSError:
                continue
    return total


def bench(source: Path, rounds: int, gate: str) -> dict[str, object]:
    from hallmark.core import gate_checkout

    rows: dict[str, list[float]] = {k: [] for k in ("first", "reset_same", "reset_other", "after_gate", "record")}
    gate_times: list[float] = []
    files = 0
    size = 0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        repo, sha, wt = prepared(source, tmp)
        older = git(wt, "rev-parse", "HEAD~5") if int(git(wt, "rev-list", "--count", "HEAD")) > 5 else sha
        files = len(git(wt, "ls-files").splitlines())
        for _ in range(rounds):
            gate_checkout.remove(repo, wt)
            started = time.perf_counter()
            checkout = gate_checkout.prepare(repo, wt, sha)
            rows["first"].append((time.perf_counter() - started) * 1000)
            gate_times.append(run_gate(gate, checkout.path))
            started = time.perf_counter()
            gate_checkout.after_gate(checkout)
            rows["after_gate"].append((time.perf_counter() - started) * 1000)
            rows["reset_same"].append(timed(lambda: gate_checkout.prepare(repo, wt, sha)))
            rows["reset_other"].append(
                timed(lambda: (gate_checkout.prepare(repo, wt, older), gate_checkout.prepare(repo, wt, sha))) / 2
            )
            book, _gate = record_and_remove(wt, gate)
            rows["record"].append(book)
        size = disk(gate_checkout.location(wt))
        gate_checkout.remove(repo, wt)
    out: dict[str, object] = {"repo": str(source), "files": files, "checkout_bytes": size}
    out["gate_ms"] = round(statistics.median(gate_times), 1)
    out.update({k: round(statistics.median(v), 1) for k, v in rows.items()})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gate", default=DEFAULT_GATE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        os.environ["HALLMARK_DATA_DIR"] = str(Path(tmp_name) / "data")  # never the person's own repos.json
        sources = list(args.repos) or [generated(Path(tmp_name))]
        print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.rounds} rounds, ms")
        print(
            f"{'repo':<28} {'files':>6} {'MB':>6} {'gate':>7} {'first':>7} {'reset':>7} "
            f"{'reset→':>7} {'status':>7} {'rec+rm':>7}"
        )
        for source in sources:
            row = bench(source.resolve(), args.rounds, args.gate)
            print(
                f"{Path(str(row['repo'])).name[:28]:<28} {row['files']:>6} "
                f"{int(row['checkout_bytes']) / 1e6:>6.1f} {row['gate_ms']:>7} {row['first']:>7} "  # type: ignore[call-overload]
                f"{row['reset_same']:>7} {row['reset_other']:>7} {row['after_gate']:>7} {row['record']:>7}"
            )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
