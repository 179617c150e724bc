"""Concurrent writers never lose or duplicate a learning (the hook path's imports: tests/test_import_hygiene.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hallmark.core.memory import api

BIN = Path(sys.executable).parent


def test_concurrent_proposals_from_separate_processes(repo):
    def run(n: int) -> dict:
        proc = subprocess.run(
            [
                str(BIN / "hall"),
                "library",
                "propose",
                "--kind",
                "map",
                "--pattern",
                f"Concurrent learning {n} about subsystem s{n}q",
            ],
            cwd=repo.root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return json.loads(proc.stdout)

    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(pool.map(run, range(6)))
    # and the same pattern from several processes at once merges into one
    with ThreadPoolExecutor(max_workers=4) as pool:
        same = list(
            pool.map(
                lambda _: (
                    subprocess.run(
                        [
                            str(BIN / "hall"),
                            "library",
                            "propose",
                            "--kind",
                            "map",
                            "--pattern",
                            "One shared pattern x9",
                        ],
                        cwd=repo.root,
                        capture_output=True,
                        text=True,
                        timeout=120,
                    ).stdout
                ),
                range(4),
            )
        )
    ids = sorted(r["id"] for r in replies)
    assert len(set(ids)) == 6
    assert len({json.loads(s)["id"] for s in same}) == 1
    learnings = api.list_learnings(repo)
    assert len(learnings) == 7
    assert next(x for x in learnings if x.pattern == "One shared pattern x9").occurrences == 4
    assert api.verify_audit(repo) == []
