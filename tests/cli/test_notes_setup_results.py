"""The checkpoint, note and set-up verbs answer with typed results (core/notes_results.py,
core/setup_results.py): the core returns them, `hall schema <command> [<sub>]` describes each reply
from them, and the CLI's JSON is the result's keys in order, then `next` (then any key the face adds
after it, as it always did)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from hallmark.core import doctor, githooks, notes_results, results, setup_repo, setup_results
from hallmark.core.memory import checkpoint, notes
from hallmark.tui.cli.setup import doctor_next, init_next

from ..conftest import git
from .replies import check_reply, reply_of, schema_of
from .test_meta_cli import run_main


@pytest.fixture
def mp():
    """A MonkeyPatch of its own for run_main, which undoes the one it is given when done: the
    fixture's would take conftest's isolated HOME, data dir and Claude config dir with it, and the
    next call (`hall setup claude`) would write the real user's settings."""
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _titles(mp, root, command: str) -> list[str]:
    reply = schema_of(mp, root, command)["definitions"]["reply"]
    return [shape.get("title") for shape in reply.get("anyOf") or [reply]]


def check_then(mp, root, command: str, data: dict, cls: type[results.Result], *after: str) -> None:
    """Like check_reply, for a reply that prints some of its result's keys after `next` (`after`)."""
    jsonschema.validate(data, schema_of(mp, root, command)["definitions"]["reply"])
    keys = [k for k in results.reply_keys(cls) if k in data and k not in after]
    assert list(data) == [*keys, "next", *[k for k in after if k in data]], (command, list(data))


def test_the_checkpoint_and_note_verbs_return_results(hall_repo):
    paths = hall_repo.paths
    none = checkpoint.show(paths)
    assert isinstance(none, notes_results.CheckpointShown) and none.checkpoint is None and none.message
    fields = {"Phase": "build", "Active work": "H-0001", "Next step": "test"}
    written = checkpoint.set_checkpoint(paths, fields)
    assert isinstance(written, notes_results.CheckpointWritten) and written.replaced is False
    assert checkpoint.show(paths).text == written.text and checkpoint.show(paths).characters == written.characters
    history = checkpoint.history(paths)
    assert history.count == 1 and history.versions[0].checkpoint["Phase"] == "build"
    added = notes.add(paths, fact="Ana owns billing", facet="ownership", as_of="2026-11-02")
    assert isinstance(added, notes_results.NoteReply) and added.note["slug"] == "ana-owns-billing"
    listed = notes.listing(paths, facet="ownership")
    assert listed.count == 1 and listed.index == [notes.index_line(added.note)]
    assert notes.listing(paths, facet="gotcha").count == 0
    assert notes.show(paths, "ana-owns-billing").note["body"] == "Ana owns billing"
    assert notes.remove(paths, "ana-owns-billing", "left").note["removed"] is True


def test_checkpoint_and_note_replies_are_the_declared_results(hall_repo, mp):
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(mp, root, *args)

    def check(command: str, data: dict, cls: type[results.Result]) -> None:
        assert _titles(mp, root, command) == [cls.__name__], command
        check_reply(mp, root, command, data, cls)

    empty = reply("checkpoint", "show")
    check("checkpoint show", empty, notes_results.CheckpointShown)
    assert list(empty) == ["project", "checkpoint", "text", "message", "next"] and empty["checkpoint"] is None
    first = reply("checkpoint", "set", "--phase", "p", "--active-work", "w", "--next-step", "n")
    check("checkpoint set", first, notes_results.CheckpointWritten)
    second = reply("checkpoint", "set", "--phase", "q")
    assert second["replaced"] is True and second["checkpoint"]["Active work"] == "w"
    shown = reply("checkpoint", "show")
    check("checkpoint show", shown, notes_results.CheckpointShown)
    assert list(shown) == ["project", "checkpoint", "text", "characters", "next"]
    assert shown["next"] == ["hall checkpoint set --next-step '…'", "hall checkpoint history"]
    history = reply("checkpoint", "history")
    check("checkpoint history", history, notes_results.CheckpointHistory)
    assert history["count"] == 2 and [list(v) for v in history["versions"]] == [["file", "checkpoint"]] * 2

    added = reply("note", "add", "--facet", "gotcha", "--fact", "VPN first", "--as-of", "2026-11-02")
    check("note add", added, notes_results.NoteReply)
    record = ["slug", "facet", "fact", "provenance", "as_of", "project", "created", "by", "recorded"]
    assert list(added["note"]) == [*record, "valid_from", "valid_until", "file"]
    assert added["next"] == ["hall note list", "hall note show vpn-first"]
    listed = reply("note", "list")
    check("note list", listed, notes_results.NoteListing)
    assert listed["count"] == 1 and listed["notes"][0]["slug"] == "vpn-first"
    assert reply("note", "list", "--facet", "tooling")["count"] == 0
    shown_note = reply("note", "show", "vpn-first")
    check("note show", shown_note, notes_results.NoteReply)
    assert list(shown_note["note"])[-2:] == ["file", "body"]
    removed = reply("note", "remove", "vpn-first", "--reason", "gone")
    check("note remove", removed, notes_results.NoteReply)
    assert list(removed["note"])[-2:] == ["file", "removed"] and removed["next"] == ["hall note list"]
    assert reply("note", "list")["count"] == 0


def test_the_set_up_verbs_return_results(hall_repo):
    paths = hall_repo.paths
    again = setup_repo.init(hall_repo.root)
    assert isinstance(again, setup_results.Initialized) and again.initialized is False
    assert again.project_identity.written is False and again.pre_push.ok and again.pre_push.dirs
    assert not init_next(again)[0].startswith("git add")  # nothing new to commit
    report = doctor.run(hall_repo.root)
    assert isinstance(report, setup_results.DoctorReport)
    assert all(isinstance(c, setup_results.Check) for c in report.checks)
    by_name = {c.check: c for c in report.checks}
    assert by_name["pre-push"].ok and by_name["pre-push"].dirs[0].state == "installed"
    assert by_name["hooks"].failed and by_name["hooks"].fix == "hall setup claude"  # no plugin here
    assert report.ok is False and doctor_next(report) == report.fixes and "hall setup claude" in report.fixes
    assert doctor.reindex(hall_repo).items == 0
    removed = githooks.remove(paths, dry_run=True)
    assert isinstance(removed, setup_results.GitHooksRemoved) and removed.removed[0].restored is None
    kept = githooks.install(paths)
    assert kept.ok and kept.dirs[0].action == "unchanged" and kept.detail is None


def test_set_up_replies_are_the_declared_results(git_repo, mp):
    root = git_repo

    def titles(command: str) -> list[str]:
        return _titles(mp, root, command)

    init = reply_of(mp, root, "init")
    assert titles("init") == ["Initialized"]
    check_then(mp, root, "init", init, setup_results.Initialized, "config_valid")
    assert list(init["project_identity"]) == ["file", "project", "written", "commit"]
    assert list(init["pre_push"]) == ["ok", "dirs"] and init["next"][0].startswith("git add .hallmark.toml")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hall init")

    code, out = run_main(mp, root, "doctor")  # no Claude Code plugin here: exit 1, still the report
    assert code == 1 and titles("doctor") == ["DoctorReport"]
    report = json.loads(out)
    check_reply(mp, root, "doctor", report, setup_results.DoctorReport)
    order = results.reply_keys(setup_results.Check)
    for row in report["checks"]:
        assert list(row) == [k for k in order if k in row], row
        assert ("fix" in row) == (not row["ok"] and bool(row.get("fix")))
    pre_push = next(row for row in report["checks"] if row["check"] == "pre-push")
    assert list(pre_push["dirs"][0]) == ["dir", "checkout", "hook", "state", "ok"]
    assert report["next"] == [row["fix"] for row in report["checks"] if not row["ok"] and not row.get("optional")]

    assert titles("reindex") == ["Reindexed"]
    check_reply(mp, root, "reindex", reply_of(mp, root, "reindex"), setup_results.Reindexed)

    assert titles("setup git") == ["GitHooksInstalled", "GitHooksRemoved"]
    dry = reply_of(mp, root, "setup", "git", "--dry-run")
    check_reply(mp, root, "setup git", dry, setup_results.GitHooksInstalled)
    assert dry["dirs"][0]["action"] == "unchanged" and dry["next"] == ["hall doctor"]
    gone = reply_of(mp, root, "setup", "git", "--remove")
    check_reply(mp, root, "setup git", gone, setup_results.GitHooksRemoved)
    assert gone["removed"] == [{"dir": pre_push["dirs"][0]["dir"], "restored": None}]
    back = reply_of(mp, root, "setup", "git")
    assert back["ok"] is True and back["dirs"][0]["action"] == "install"

    assert titles("setup claude") == ["PluginInstalled"]
    shown = reply_of(mp, root, "setup", "claude", "--dry-run")
    check_reply(mp, root, "setup claude", shown, setup_results.PluginInstalled)
    assert shown["route"] == "settings" and shown["would_register"] is True and shown["next"] == ["hall setup claude"]
    boxed = reply_of(mp, root, "setup", "claude", "--dry-run", "--sandbox")
    check_then(mp, root, "setup claude", boxed, setup_results.PluginInstalled, "sandbox")
    assert list(boxed)[-1] == "sandbox" and boxed["sandbox"]["dry_run"] is True
    assert [k for k in boxed["sandbox"] if k != "warning"] == [
        "settings",
        "sandbox",
        "repos",
        "changed",
        "dry_run",
        "available",
    ]
    isolated = Path(os.environ["CLAUDE_CONFIG_DIR"])
    assert isolated.is_relative_to(Path(os.environ["HOME"])) and "pytest" in str(isolated)
    done = reply_of(mp, root, "setup", "claude")
    check_reply(mp, root, "setup claude", done, setup_results.PluginInstalled)
    assert done["settings_changed"] is True and done["next"][0] == "hall doctor"
    assert done["install_root"] == str(isolated / "hallmark")  # the test's own config dir, never the user's


def test_a_tracked_pre_push_is_left_alone_and_named(hall_repo, mp):
    """A repository that tracks its own pre-push (a relative core.hooksPath): setup git skips it,
    says what to add by hand, and points at it."""
    root = hall_repo.root
    (root / ".githooks").mkdir()
    (root / ".githooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    git(root, "add", ".githooks")
    git(root, "commit", "-q", "-m", "our own hook")
    git(root, "config", "core.hooksPath", ".githooks")
    reply = reply_of(mp, root, "setup", "git")
    check_reply(mp, root, "setup git", reply, setup_results.GitHooksInstalled)
    assert reply["ok"] is False and "tracked hook" in reply["detail"]
    assert reply["dirs"][0]["state"] == "tracked" and reply["dirs"][0]["action"] == "skipped"
    assert reply["next"] == ["hall doctor", "edit the tracked hook it names"]


def test_in_process_runs_keep_the_isolated_home(hall_repo, monkeypatch):
    """run_main (tests/cli/test_meta_cli.py) once undid the test's MonkeyPatch: after the first call
    HOME, the data dir and the Claude config dir were the real user's, where `hall setup claude`
    and `hall init` then wrote."""
    isolated = {name: os.environ[name] for name in ("HOME", "HALLMARK_DATA_DIR", "CLAUDE_CONFIG_DIR")}
    assert "pytest" in isolated["HOME"]
    reply_of(monkeypatch, hall_repo.root, "checkpoint", "show")
    assert {name: os.environ.get(name) for name in isolated} == isolated
    assert Path.cwd() != hall_repo.root  # its own chdir is undone
