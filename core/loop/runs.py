"""The loop's recovery of runs that died: a run file with no end line whose lock nobody holds
(core/runs.py says which) is recorded as failed (`run_ended` with `failed`, `recovered`) and
closed with an end line, so it is counted once.
"""

from __future__ import annotations

from typing import Any

from hallmark.core import journal, runs
from hallmark.core.runner.command import ROLE_ACTOR


def recover_dead(repo: Any, item_id: str | None) -> list[str]:
    """Record every dead run of the item as failed, once. Returns the run file names."""
    recovered = []
    jpath = repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal
    for run in runs.dead_runs(repo.paths, item_id):
        if not runs.close_dead(run):
            continue  # it came back to life (a new runner took it), or another pass closed it
        journal.append(
            jpath,
            "run_ended",
            item=item_id,
            actor=ROLE_ACTOR.get(run.role, run.role),
            run=run.name,
            role=run.role,
            exit_code=None,
            duration_ms=None,
            failed=runs.DIED,
            recovered=True,
        )
        recovered.append(run.name)
    return recovered
