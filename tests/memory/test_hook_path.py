"""The hook path stays light, and concurrent writers never lose or duplicate a learning."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hallmark.core.memory import api

BIN = Path(sys.executable).parent


def test_inject_and_failures_import_no_pydantic_rich_textual_or_gitpython():
    code = ("import sys, json; import hallmark.core.memory.inject, hallmark.core.memory.failures; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pydantic', 'rich', 'textual', 'git'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_concurrent_proposals_from_separate_processes(repo):
    def run(n: int) -> dict:
        proc = subprocess.run([str(BIN / "hall"), "library", "propose", "--kind", "map",
                               "--pattern", f"Concurrent learning {n} about subsystem s{n}q"],
                              cwd=repo.root, capture_output=True, text=True, timeout=120)
        return json.loads(proc.stdout)

    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(pool.map(run, range(6)))
    # and the same pattern from several processes at once merges into one
    with ThreadPoolExecutor(max_workers=4) as pool:
        same = list(pool.map(lambda _: subprocess.run(
            [str(BIN / "hall"), "library", "propose", "--kind", "map", "--pattern", "One shared pattern x9"],
            cwd=repo.root, capture_output=True, text=True, timeout=120).stdout, range(4)))
    ids = sorted(r["id"] for r in replies)
    assert len(set(ids)) == 6
    assert len({json.loads(s)["id"] for s in same}) == 1
    learnings = api.list_learnings(repo)
    assert len(learnings) == 7
    assert next(x for x in learnings if x.pattern == "One shared pattern x9").occurrences == 4
    assert api.verify_audit(repo) == []
