"""The checkpoint, note and set-up verbs answer with typed results (core/notes_results.py,
core/setup_results.py): the core returns them, `hall schema <command> [<sub>]` describes each reply
from them, and the CLI's JSON is the result's keys in order, then `next` (then any key the face adds
after it, as it always did)."""

from __future__ import annotations

import jsonschema
from hallmark.core import notes_results, results
from hallmark.core.memory import checkpoint, notes

from .replies import check_reply, reply_of, schema_of


def _titles(monkeypatch, root, command: str) -> list[str]:
    reply = schema_of(monkeypatch, root, command)["definitions"]["reply"]
    return [shape.get("title") for shape in reply.get("anyOf") or [reply]]


def check_then(monkeypatch, root, command: str, data: dict, cls: type[results.Result], *after: str) -> None:
    """Like check_reply, for a reply that prints some of its result's keys after `next` (`after`)."""
    jsonschema.validate(data, schema_of(monkeypatch, root, command)["definitions"]["reply"])
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


def test_checkpoint_and_note_replies_are_the_declared_results(hall_repo, monkeypatch):
    root = hall_repo.root

    def reply(*args: str) -> dict:
        return reply_of(monkeypatch, root, *args)

    def check(command: str, data: dict, cls: type[results.Result]) -> None:
        assert _titles(monkeypatch, root, command) == [cls.__name__], command
        check_reply(monkeypatch, root, command, data, cls)

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
