"""Findings as the journal records them: raised by verdicts, claimed fixed or disputed by the fixer.

The status of each finding is folded from three events: `verdict` (new findings are open; earlier
ones the reviewer no longer lists in `still_open` are confirmed resolved), `fixed` (the fixer says
a commit fixes them) and `disputed` (the fixer says the finding is wrong, with a reason).
"""

from __future__ import annotations

from typing import Any

from hallmark.core.repo import Repo
from hallmark.core.results import Result, hidden
from hallmark.core.states import ItemView


class Finding(Result):
    """One finding as the faces read it (`hall findings`, the diff, the item screen). The loop's
    own passes (unresolved, next_ids) keep the folded dicts they write into prompts."""

    id: str
    lens: str | None
    severity: str | None
    file: str | None
    line: int | None
    title: str
    scenario: str
    suggestion: str | None
    status: str  # open, fixed or disputed
    round: int | None
    sha: str | None
    raised_by: str | None
    human_override: bool
    confirmed: bool  # a later review no longer lists it: resolved for good
    fixed_in: str | None
    dispute: str | None


class FailingCheck(Result):
    """A gate that failed in the item's last checks run, with its condensed output and full log."""

    command: str | None
    exit_code: int
    sha: str
    log: str | None
    output: str


class FindingsReport(Result):
    """`hall findings`: every finding of the item with its status, and the failing checks."""

    item: str
    state: str
    round: int
    findings: tuple[Finding, ...]
    open: int
    failing_checks: tuple[FailingCheck, ...]
    view: ItemView = hidden()  # what `next` depends on


def fold(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        name = event.get("event")
        if name == "verdict":
            still = set(event.get("still_open") or [])
            for earlier in found.values():
                if earlier["confirmed"]:
                    continue
                if earlier["id"] in still:
                    earlier["status"] = "open"
                    earlier["round"] = event.get("round", earlier["round"])
                else:
                    earlier["confirmed"] = True
                    if earlier["status"] == "open":
                        earlier["status"] = "fixed"
            for f in event.get("findings") or []:
                fid = f.get("id")
                if not fid:
                    continue
                found[fid] = {
                    "id": fid,
                    "lens": f.get("lens"),
                    "severity": f.get("severity"),
                    "file": f.get("file"),
                    "line": f.get("line"),
                    "title": f.get("title", ""),
                    "scenario": f.get("scenario", ""),
                    "suggestion": f.get("suggestion"),
                    "status": "open",
                    "round": event.get("round"),
                    "sha": event.get("sha"),
                    "raised_by": event.get("actor"),
                    "human_override": bool(event.get("human_override")),
                    "confirmed": False,
                    "fixed_in": None,
                    "dispute": None,
                }
        elif name == "fixed":
            for fid in event.get("findings") or []:
                if fid in found and not found[fid]["confirmed"]:
                    found[fid]["status"] = "fixed"
                    found[fid]["fixed_in"] = event.get("sha")
        elif name == "disputed":
            fid = event.get("finding")
            if fid in found and not found[fid]["confirmed"]:
                found[fid]["status"] = "disputed"
                found[fid]["dispute"] = event.get("reason")
    return list(found.values())


def _events(repo: Repo, item_id: str) -> list[dict[str, Any]]:
    from hallmark.core.items import item_events

    return [e for e in item_events(repo, item_id) if e.get("event") in ("verdict", "fixed", "disputed")]


def list_findings(repo: Repo, item_id: str, open_only: bool = False) -> list[Finding]:
    """Every finding of the item (F-1, F-2, …) with its status: open, fixed or disputed."""
    found = [Finding(**f) for f in fold(_events(repo, item_id))]
    if open_only:
        found = [f for f in found if f.status == "open"]
    return found


def unresolved(repo: Repo, item_id: str) -> list[dict[str, Any]]:
    """What the next review must look at again: not yet confirmed resolved by a reviewer."""
    return [f for f in fold(_events(repo, item_id)) if not f["confirmed"]]


def next_ids(repo: Repo, item_id: str, count: int) -> list[str]:
    taken = len(fold(_events(repo, item_id)))
    return [f"F-{taken + i}" for i in range(1, count + 1)]


def failing_checks(repo: Repo, item_id: str) -> list[FailingCheck]:
    """The failing gates of the item's last checks run (empty when the last run passed)."""
    from hallmark.core.items import item_events

    events = item_events(repo, item_id)
    last_sha = None
    for event in reversed(events):
        if event.get("event") == "check_run":
            last_sha = event.get("sha")
            break
    if last_sha is None:
        return []
    latest: dict[str, dict[str, Any]] = {}
    for event in events:
        if event.get("event") == "check_run" and event.get("sha") == last_sha:
            latest[str(event.get("command"))] = event
    return [
        FailingCheck(
            command=e.get("command"),
            exit_code=e["exit_code"],  # present: the filter below keeps only a non-zero one
            sha=e["sha"],  # present: the last run's
            log=e.get("log"),
            output=e.get("output", ""),
        )
        for e in latest.values()
        if e.get("exit_code") not in (0, None)
    ]
