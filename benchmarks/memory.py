"""Memory store benchmark: search and briefing over 10,000 learnings, against baselines in the same run.

Run by hand:  /work/venv/bin/python benchmarks/memory.py [--learnings 10000] [--queries 200]

It builds a real temporary git repository with `hall init`, writes N accepted learnings through
the store (files + history + audit log; the secret scan and duplicate check are skipped for the
bulk load and measured separately on single proposals), then measures, in-process and warm:
- FTS5 search (budget: <= 20 ms per search) vs a linear scan of the same learnings in memory,
- the reviewer briefing (--effort high, path-scoped + search) vs that linear scan,
- one propose (secret scan + duplicate check + write) at this size,
- the SessionStart context, and a full index rebuild from the files,
- `hall library search` as a process vs a bare `python -c pass`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hallmark.core import setup_repo
from hallmark.core.memory import api, briefing, inject
from hallmark.core.memory.search_index import SearchIndex
from hallmark.core.memory.store import Learning, Store
from hallmark.core.repo import open_repo

WORDS = [
    f"{a}{b}"
    for a in (
        "cache",
        "index",
        "journal",
        "gate",
        "hook",
        "loop",
        "review",
        "fix",
        "ship",
        "lease",
        "budget",
        "usage",
        "trace",
        "drain",
        "note",
        "check",
        "item",
        "branch",
        "token",
        "query",
    )
    for b in ("", "s", "er", "ing", "ed", "able", "ness", "ful", "ist", "ize")
]
WORDS += ["the", "a", "must", "never", "always", "when", "before", "after", "in", "of", "for", "with"]
DIRS = ["core", "core/loop", "core/memory", "tui/screens", "hooks", "web/checkout", "web/cart", "db", "scripts"]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learnings", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", metavar="DIR", help="build the repo in DIR and reuse it when it exists")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp) / "repo"
        fresh = not (root / ".git").exists()
        if fresh:
            root.mkdir(parents=True, exist_ok=True)
            git(root, "init", "-q", "-b", "main")
            git(root, "-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-q", "--allow-empty", "-m", "init")
            setup_repo.init(root)
            git(root, "add", "-A")
            git(root, "-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-q", "-m", "hall init")
        repo = open_repo(root)
        project = api.project_of(repo)
        store = Store(repo.paths)

        start = time.perf_counter()
        patterns = []
        with store.locked():
            for n in range(args.learnings):
                words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
                paths = [f"{rng.choice(DIRS)}/**"] if rng.random() < 0.3 else []
                learning = Learning(
                    id=f"L-{n + 1:05d}",
                    kind=rng.choice(["rule", "map", "false-positive", "decision"]),
                    pattern=f"{words} #{n}",
                    rationale="benchmark",
                    status="accepted",
                    scope={"project": project, "paths": paths},
                )
                if fresh:
                    store.save(learning, action="propose", actor="bench", from_status=None, why="bulk")
                patterns.append(learning)
        load = time.perf_counter() - start
        index = SearchIndex(store)
        start = time.perf_counter()
        index.catch_up()
        first_catch_up = time.perf_counter() - start

        queries = [" ".join(rng.sample(WORDS[:200], 2)) for _ in range(args.queries)]
        qi = iter(queries * 3)
        search_times = timed(lambda: index.search(project, next(qi), limit=20), args.queries)
        qi = iter(queries * 3)
        # baseline: what a store without an index does, a linear scan of every learning in memory
        baseline_times = timed(lambda: _linear_search(patterns, next(qi), 20), args.queries)

        changed = [["web/checkout/total.ts"], ["core/memory/api.py", "core/memory/store.py"], ["db/migrate/001.sql"]]
        ci = iter(changed * args.queries)
        brief_times = timed(lambda: briefing.build(repo.paths, changed=next(ci), effort="high"), 30)
        ci = iter(changed * args.queries)
        brief_baseline = timed(lambda: _linear_briefing(patterns, next(ci)), 30)

        propose_times = []
        for n in range(20):
            t0 = time.perf_counter()
            api.propose(repo, kind="rule", pattern=f"fresh proposal number {n} about zebra{n} cache handling")
            propose_times.append(time.perf_counter() - t0)
        context_times = timed(lambda: inject.session_context(repo.paths), 5)
        rebuild = timed(index.rebuild, 1)[0]

        hall = str(Path(sys.executable).parent / "hall")
        cli = timed(
            lambda: subprocess.run(
                [hall, "library", "search", "cache", "index"], cwd=root, capture_output=True, check=True
            ),
            5,
        )
        bare = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=True), 5)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    def p95(values: list[float]) -> float:
        return sorted(values)[int(len(values) * 0.95) - 1]

    n = args.learnings
    print(f"memory store benchmark: {n:,} accepted learnings ({sys.version.split()[0]})")
    loaded = f"{load:.1f} s" if fresh else "reused from --keep"
    print(
        f"  bulk load (files + history + audit): {loaded}; first index catch-up {first_catch_up:.2f} s; "
        f"full rebuild from files {rebuild:.2f} s"
    )
    print(
        f"  search (FTS5):        median {ms(med(search_times))}, p95 {ms(p95(search_times))}  "
        f"budget 20 ms -> {'OK' if p95(search_times) <= 0.020 else 'OVER'}"
    )
    print(
        f"  baseline linear scan: median {ms(med(baseline_times))}  "
        f"-> search is {med(search_times) / med(baseline_times):.3f}x the baseline"
    )
    print(f"  briefing (high, 6k):  median {ms(med(brief_times))}, p95 {ms(p95(brief_times))}")
    print(
        f"  baseline linear brief: median {ms(med(brief_baseline))}  "
        f"-> briefing is {med(brief_times) / med(brief_baseline):.3f}x the baseline"
    )
    print(f"  one propose (scan + dedup + write): median {ms(med(propose_times))}")
    print(f"  SessionStart context: median {ms(med(context_times))}")
    print(
        f"  `hall library search` process: median {ms(med(cli))} = {med(cli) / med(bare):.1f}x a bare "
        f"`python -c pass` ({ms(med(bare))})"
    )
    return 0


def _linear_search(learnings: list[Learning], query: str, limit: int) -> list[Learning]:
    terms = query.lower().split()
    scored = []
    for learning in learnings:
        text = (learning.pattern + " " + learning.rationale).lower()
        hits = sum(text.count(t) for t in terms)
        if hits:
            scored.append((-hits, learning.id, learning))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [x[2] for x in scored[:limit]]


def _linear_briefing(learnings: list[Learning], changed: list[str]) -> list[Learning]:
    from hallmark.core.memory.globs import any_match

    scoped = [x for x in learnings if x.paths and any_match(changed, x.paths)]
    words = " ".join(changed).replace("/", " ").replace(".", " ")
    return scoped + _linear_search(learnings, words, 200)


if __name__ == "__main__":
    raise SystemExit(main())
