"""The review loop's real replies (verdict, fixed, next, daemon, verify) are their declared typed
results, key for key and in order, then `next`, and valid against `hall schema <command>`.

`hall` runs in-process (tests/cli/replies.py); the items are real, in a real repo, moved along by
the core verbs where the loop's own workers would (checks passed)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hallmark.core import items, results
from hallmark.core.loop import findings, leases
from hallmark.core.loop import results as loop
from hallmark.core.verify import Verified

from ..conftest import git
from .replies import check_reply, reply_of, schema_of

MAJOR = {"lens": "correctness", "severity": "major", "file": "a.py", "line": 1, "scenario": "x is never read"}


def _checks_passed(repo, item_id: str) -> None:
    view = items.fold_item(repo, item_id)
    items.transition(repo, item_id, "checks_passed", actor="assayer", sha=view.sha, gates=[])


def _commit(worktree: Path, text: str) -> None:
    (worktree / "a.py").write_text(text)
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", text.strip())


def test_verdict_fixed_next_and_verify_reply_with_their_results(hall_repo, monkeypatch, tmp_path):
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(monkeypatch, root, *args)

    def check(command: str, data: dict, cls: type[results.Result]) -> None:
        check_reply(monkeypatch, root, command, data, cls)

    created = reply("new", "--title", "typed loop")
    item_id, worktree = created["item"], Path(created["worktree"])
    _commit(worktree, "x = 1\n")
    reply("ready", item_id)

    check("next", reply("next", "--role", "shipper"), loop.NothingToClaim)
    claimed = reply("next", "--role", "assayer", "--holder", "tester")
    check("next", claimed, loop.Claimed)
    assert claimed["lease"]["holder"] == "tester" and claimed["next"] == [f"hall status {item_id}"]
    assert list(claimed["lease"]) == list(results.reply_keys(loop.Lease))
    leases.release(hall_repo, item_id, "tester")

    _checks_passed(hall_repo, item_id)
    verdict = tmp_path / "verdict.json"
    verdict.write_text(json.dumps({"item": item_id, "summary": "no", "findings": [MAJOR]}))
    returned = reply("verdict", "--file", str(verdict))
    check("verdict", returned, loop.VerdictReturned)
    assert returned["outcome"] == "changes_requested" and returned["human_override"] is True
    assert returned["open_findings"] == ["F-1"] and returned["state"] == "fixing"

    recorded = reply("fixed", "F-1", "--item", item_id, "--no-submit")
    check("fixed", recorded, loop.FixRecorded)
    assert recorded["state"] == "fixing" and recorded["next"][0] == f"hall fixed {item_id} <more ids>"
    _commit(worktree, "x = 2\nprint(x)\n")
    submitted = reply("fixed", "F-1", "--item", item_id)
    check("fixed", submitted, loop.FixRecorded)
    assert submitted["state"] == "checks" and submitted["next"] == [
        f"hall status {item_id}",
        f"hall trace {item_id} --follow",
    ]

    gate = {"command": "false", "exit_code": 1, "sha": submitted["sha"], "log": "/runs/1.log", "output": "boom"}
    items.record(hall_repo, item_id, "check_run", actor="assayer", **gate)
    report = reply("findings", item_id)
    check("findings", report, findings.FindingsReport)
    assert report["failing_checks"] == [gate] and list(report["failing_checks"][0]) == list(gate)

    _checks_passed(hall_repo, item_id)
    verdict.write_text(json.dumps({"item": item_id, "summary": "fine", "findings": [], "still_open": []}))
    struck = reply("verdict", "--file", str(verdict))
    check("verdict", struck, loop.VerdictHallmarked)
    assert struck["human_override"] is True and struck["note"]["sha"] == struck["sha"]

    verified = reply("verify", struck["sha"])
    check("verify", verified, Verified)
    assert verified["ok"] is True and verified["journal"] == "checked" and verified["item"] == item_id
    assert verified["next"] == ["git push", "hall status"]

    clone = tmp_path / "clone"  # a CI clone: the notes, not the journal
    git(tmp_path, "clone", "-q", str(root), str(clone))
    git(clone, "fetch", "-q", "origin", "+refs/notes/hallmark:refs/notes/hallmark")
    noted = reply_of(monkeypatch, clone, "verify", struck["sha"])
    check("verify", noted, Verified)
    assert noted["journal"] == "unavailable" and "no Hallmark journal" in noted["reason"]
    assert noted["next"] == ["hall verify --strict <ref>  (where the loop ran)"]


def _check_daemon(monkeypatch, root: Path, data: dict, cls: type[loop.DaemonStatus]) -> None:
    """A daemon status reply: the status's keys, `next`, then what start or stop adds."""
    (shape,) = [
        s for s in schema_of(monkeypatch, root, "daemon")["definitions"]["reply"]["anyOf"] if s["title"] == cls.__name__
    ]
    jsonschema.validate(data, shape)
    status = list(results.reply_keys(loop.DaemonStatus))
    assert list(data) == [*status, "next", *results.reply_keys(cls)[len(status) :]], list(data)


def test_daemon_replies_are_its_results(hall_repo, monkeypatch):
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(monkeypatch, root, *args)

    status = reply("daemon", "status")
    _check_daemon(monkeypatch, root, status, loop.DaemonStatus)
    assert status["running"] is False and status["next"] == ["hall daemon start", "hall daemon run --until-idle"]
    _check_daemon(monkeypatch, root, reply("daemon", "stop"), loop.DaemonStopped)

    ran = reply("daemon", "run", "--until-idle", "--repo", str(root))  # no work: no step lines before it
    check_reply(monkeypatch, root, "daemon", ran, loop.DaemonRun)
    assert ran["passes"] == 1 and ran["steps"] == [] and ran["next"] == ["hall status --all", "hall inbox"]

    started = reply("daemon", "start")
    try:
        _check_daemon(monkeypatch, root, started, loop.DaemonStarted)
        assert started["running"] is True and started["next"] == ["hall daemon stop"]
        again = reply("daemon", "start")
        _check_daemon(monkeypatch, root, again, loop.DaemonAlreadyRunning)
        assert again["already"] is True and again["pid"] == started["pid"]
    finally:
        stopped = reply("daemon", "stop")
    _check_daemon(monkeypatch, root, stopped, loop.DaemonStopped)
    assert stopped["stopped"] is True and stopped["running"] is False
