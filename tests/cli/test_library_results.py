"""`hall library …` answers with the memory store's typed results (core/memory/results.py,
move_results.py): each real reply is its declared result's keys, in order, then `next`, and valid
against `hall schema library <sub>`. `hall` runs in-process (tests/cli/replies.py); the key lists
spelled out here are the replies as they were before the types, so a script cannot notice."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import jsonschema
import pytest
from hallmark.core.memory import move_results as moves
from hallmark.core.memory import results as lib
from hallmark.core.results import reply_keys

from ..conftest import git
from .replies import check_reply, reply_of, schema_of


def _patch() -> pytest.MonkeyPatch:
    """A monkeypatch of its own for each run: run_main undoes it, and must not undo the test's
    isolated HOME and data dir with it."""
    return pytest.MonkeyPatch()


def check_after(root: Path, command: str, data: dict, cls: type, *after: str) -> dict:
    """A reply whose `after` keys come after `next`, where they always were: valid against its
    schema, and the result's other keys in order before `next`."""
    schema = schema_of(_patch(), root, f"library {command}")
    jsonschema.validate(data, schema["definitions"]["reply"])
    keys = [k for k in reply_keys(cls) if k in data and k not in after]
    assert list(data) == [*keys, "next", *after], list(data)
    return data


@pytest.fixture
def library(hall_repo):
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(_patch(), root, "library", *args)

    def check(sub: str, data: dict, cls: type, *extra: str) -> dict:
        check_reply(_patch(), root, f"library {sub}", data, cls, *extra)
        return data

    return root, reply, check


def test_learning_verbs_reply_with_their_results(library):
    root, reply, check = library
    made = check("propose", reply("propose", "--kind", "rule", "--pattern", "Money is integer cents"), lib.Proposed)
    assert list(made) == ["id", "status", "created", "merged", "occurrences", "next"]
    again = check("propose", reply("propose", "--kind", "rule", "--pattern", "Money is integer cents"), lib.Proposed)
    assert list(again) == ["id", "status", "created", "merged", "match", "occurrences", "next"]
    lid = made["id"]
    listed = check("list", reply("list"), lib.LearningList)
    assert list(listed["learnings"][0]) == list(reply_keys(lib.LearningRow))
    shown = check("show", reply("show", lid), lib.LearningShown)
    assert list(shown["preview"]) == ["target", "where", "path", "text", "problem"] and shown["tombstone"] is None
    check("review", reply("review"), lib.PendingQueue)
    check("skip", reply("skip", lid), lib.Skipped)
    accepted = check("accept", reply("accept", lid), lib.Accepted)
    assert accepted["promoted_to"] == "CLAUDE.md"
    check("search", reply("search", "cents"), lib.Found)
    brief = check("briefing", reply("briefing"), lib.Briefing)
    assert list(brief["learnings"][0]) == ["id", "kind", "pattern", "paths", "why", "tokens"]
    assert brief["next"] == ["hall library search <words>", "hall library list"]
    then = check_after(root, "list", reply("list", "--as-of", "2999-01-01"), lib.LearningListThen, "as_of")
    assert then["learnings"][0]["held_then"] is True and list(then["learnings"][0])[-1] == "held_then"
    check("show", reply("show", lid, "--as-of", "2999-01-01"), lib.LearningThen)
    check("history", reply("history", lid), lib.History)
    check("audit", reply("audit"), lib.AuditReport)
    verified = check("audit", reply("audit", "--verify"), lib.AuditReport)
    assert verified["verified"] is True and verified["problems"] == []
    (root / "CLAUDE.md").write_text((root / "CLAUDE.md").read_text().replace("integer cents", "whole cents"))
    drift = check("reconcile", reply("reconcile"), lib.Reconciled)
    assert drift["drift"][0]["offers"] == ["update", "retire", "restore"] and drift["drift"][0]["recorded"] is True
    assert drift["next"][0] == f"hall library reconcile --update {lid}"
    applied = check("reconcile", reply("reconcile", "--restore", lid), lib.Reconciled)
    assert applied["applied"][0]["id"] == lid and applied["applied"][0]["did"] == "restored"
    check("retire", reply("retire", lid, "--reason", "moved to the money module"), lib.Retired)
    check("review", reply("review", "--reopen", lid), lib.LearningReply)
    check("reject", reply("reject", lid, "--reason", "not true here"), lib.LearningReply)
    check("undo", reply("undo", lid), lib.LearningReply)
    check("reject", reply("reject", lid, "--reason", "not true here"), lib.LearningReply)
    back = check("propose", reply("propose", "--kind", "rule", "--pattern", "Money is integer cents"), lib.Proposed)
    assert list(back)[-4:] == ["tombstone", "previously_rejected", "message", "next"]
    assert "not true here" in back["message"] and back["tombstone"]["reason"] == "not true here"
    assert back["next"] == [f"hall library show {lid}", f"hall library review --reopen {lid}"]
    check("unused", reply("unused"), lib.RetirementsProposed)
    hook = ["--detail", "hook_event=PostToolUse", "--detail", "hook_matcher=Write", "--detail", "action=npx prettier"]
    auto = reply("propose", "--kind", "automation", "--pattern", "Run prettier", *hook)
    shown = check_after(root, "show", reply("show", auto["id"]), lib.LearningShown, "automation")
    assert shown["automation"] == shown["preview"]["automation"] and shown["next"][0].endswith(
        f"--confirm-automation {shown['automation']['confirm']}"
    )


def test_a_briefing_the_store_cannot_give_is_degraded_with_its_fixes_in_next(library):
    """The degraded reply keeps its key order; its repairs (the error's next steps) follow `hall doctor`."""
    root, reply, check = library
    (root / ".agentmemory-project").write_text("github.com/someone/else\n")  # differs from HEAD: refused
    data = check("briefing", reply("briefing"), lib.DegradedBriefing)
    assert list(data) == ["memory_restored", "degraded", "learnings", "tokens", "text", "next"]
    assert data["memory_restored"] is False and data["next"][0] == "hall doctor" and len(data["next"]) > 1


def test_decisions_and_moves_reply_with_their_results(library, tmp_path):
    _root, reply, check = library
    lock = ["lock", "--title", "Money", "--spec", "integer cents"]
    draft = check("lock", reply(*lock), moves.LockDraft)
    assert list(draft) == ["would_lock", "supersedes", "locked", "message", "next"]
    locked = check("lock", reply(*lock, "--confirm"), moves.Locked)
    did = locked["decision"]["id"]
    assert locked["next"] == [f"hall library lock --show {did}", "hall library lock --list"]
    check("lock", reply("lock", "--list"), moves.DecisionList)
    check("lock", reply("lock", "--show", did), moves.DecisionShown)
    craft = tmp_path / "learnings.yaml"
    craft.write_text('conventions:\n  - pattern: "Use Zustand for client state"\n    status: pending\n')
    imported = check("import", reply("import", "--craft", str(craft)), moves.CraftImport)
    assert list(imported["imported"][0]) == ["id", "kind", "status", "created", "previously_rejected"]
    exported = check("export", reply("export"), moves.Export)
    out = tmp_path / "export.json"
    check("export", reply("export", "--out", str(out)), moves.ExportWritten)
    assert json.loads(out.read_text())["learnings"] == exported["learnings"]
    back = check("import", reply("import", "--from", str(out)), moves.StoreImport)
    assert list(back)[-4:] == ["notes_restored", "decisions_restored", "checkpoint_restored", "next"]
    shown = check("identity", reply("identity"), moves.IdentityShown)
    assert list(shown) == ["project", "source", "file", "next"]
    kept = check("identity", reply("identity", "--write"), moves.IdentityWritten)
    assert kept["written"] is False and "commit" not in kept and kept["next"] == ["hall library identity"]


LIBRARIAN = """#!{python}
import json
out = {{"learnings": [{{"kind": "rule", "pattern": "Money is computed in integer cents", "quote": "F-1"}},
                      {{"kind": "opinion", "pattern": "Bad kind", "quote": "x"}}]}}
print(json.dumps({{"type": "system", "subtype": "init", "session_id": "s", "model": "shim", "cwd": ".", "tools": []}}))
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "session_id": "s", "total_cost_usd": 0,
                  "num_turns": 1, "result": "done", "structured_output": out, "usage": {{"input_tokens": 1}}}}))
"""


def test_distill_replies_with_its_result_and_a_failed_run_exits_1(library, tmp_path):
    root, _reply, check = library
    item = reply_of(_patch(), root, "new", "--title", "Totals")["item"]
    shim = tmp_path / "claude-shim"
    shim.write_text(LIBRARIAN.format(python=sys.executable))
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    patch = _patch()
    patch.setenv("HALL_CLAUDE", str(shim))
    data = check("distill", reply_of(patch, root, "library", "distill", item), moves.Distilled)
    assert list(data["proposed"][0]) == ["id", "status", "created", "merged", "previously_rejected"]
    assert data["proposed"][0]["previously_rejected"] is None and "failed" not in data
    broken = tmp_path / "broken"
    broken.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(3)\n")
    broken.chmod(broken.stat().st_mode | stat.S_IEXEC)
    from .test_meta_cli import run_main

    patch = _patch()
    patch.setenv("HALL_CLAUDE", str(broken))
    code, out = run_main(patch, root, "library", "distill", item)
    failed = json.loads(out)
    assert code == 1 and "_exit" not in failed and list(failed)[-3:] == ["failed", "message", "next"]


def test_identity_write_is_open_to_an_agent_and_cannot_change_whose_memory_is_read(git_repo, hall):
    """`hall library identity --write` is not person-only: it writes the identity memory already
    reads (the origin's, or this clone's local one) and only when no file exists, and an uncommitted
    file scopes nothing. An agent running it cannot point memory at another project."""
    agent = {"CLAUDECODE": "1", "HALL_ACTOR": "claude"}
    git(git_repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    hall("init", cwd=git_repo)
    (git_repo / ".agentmemory-project").unlink()  # as if init had never proposed it
    before = hall("library", "identity", cwd=git_repo).json
    written = hall("library", "identity", "--write", cwd=git_repo, env=agent)
    assert written.code == 0, written.stderr
    assert written.json["written"] is True and written.json["project"] == before["project"] == "github.com/acme/shop"
    (git_repo / ".agentmemory-project").write_text("github.com/other/project\n")  # the agent's own value
    again = hall("library", "identity", "--write", cwd=git_repo, env=agent).json
    assert again["written"] is False  # never overwritten; and an uncommitted value scopes nothing:
    refused = hall("library", "list", cwd=git_repo, env=agent)
    assert refused.code != 0 and "not committed" in refused.stdout + refused.stderr


def test_library_rows_are_built_from_the_record_not_typed_twice():
    """The listing row and the reply carry exactly the record's values (no copy drifts from it)."""
    from hallmark.core.memory.store import Learning

    learning = Learning(id="L-0002", kind="map", pattern="p", created="c", valid_until="u", retire_proposal={"x": 1})
    row = lib.LearningRow.of(learning)
    assert row.valid_from == "c" and row.recorded == "c" and row.retire_proposed is True
    assert lib.LearningReply.of(learning).learning == learning.to_dict()
