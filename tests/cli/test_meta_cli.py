"""init, doctor, reindex, help and schema through the real `hall`; the text renderers render."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pydantic
import pytest
from hallmark.core import inbox, items, journal, questions
from hallmark.core.config import Config
from hallmark.core.events import validate_event
from hallmark.tui.cli import build_parser, help_json, text
from hallmark.tui.cli.framework import describe_parser

from .test_items_cli import assert_error, git, new_item

STAGE_1 = {
    "init",
    "doctor",
    "new",
    "adopt",
    "status",
    "log",
    "ready",
    "propose-ready",
    "pull-back",
    "drop",
    "retry",
    "ask",
    "answer",
    "inbox",
    "reindex",
    "help",
    "schema",
}


def test_init_through_hall_and_again(hall, git_repo: Path, isolated_env: Path):
    (git_repo / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}))
    (git_repo / "yarn.lock").write_text("")
    (git_repo / "CLAUDE.md").write_text("# Rules\n\nBe kind.\n")
    first = hall("init", cwd=git_repo)
    assert first.code == 0, first.stdout
    data = first.json
    assert data["gates"] == ["yarn test"] and data["claude_md"] == "appended" and data["next"]
    assert Path(data["state_dir"]) == git_repo / ".git" / "hallmark"
    assert 'gates = ["yarn test"]' in (git_repo / ".hallmark.toml").read_text()
    registry = json.loads((isolated_env / "hallmark-data" / "repos.json").read_text())
    assert str(git_repo) in registry["repos"]
    claude = git_repo / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("Every piece of work", "EDITED") + "\n## After\nmine\n")
    again = hall("init", cwd=git_repo)
    assert again.code == 0 and again.json["claude_md"] == "replaced" and again.json["initialized"] is False
    text_after = claude.read_text()
    assert text_after.startswith("# Rules\n\nBe kind.\n") and text_after.endswith("\n## After\nmine\n")
    assert "EDITED" not in text_after and "Every piece of work" in text_after
    assert hall("init", "--capture", "sometimes", cwd=git_repo).code == 2


def test_init_from_a_worktree_sets_up_the_main_checkout(hall, hall_repo):
    data = new_item(hall, hall_repo.root)
    reply = hall("init", cwd=Path(data["worktree"]))
    assert reply.code == 0 and reply.json["repo"] == str(hall_repo.root)
    assert not (Path(data["worktree"]) / ".git" / "hallmark").exists()


def test_doctor_through_hall(hall, hall_repo):
    reply = hall("doctor", cwd=hall_repo.root)
    data = reply.json
    assert reply.code == (0 if data["ok"] else 1)
    assert all(c.get("fix") for c in data["checks"] if not c["ok"])
    assert {c["check"] for c in data["checks"]} >= {"git", "repo", "state", "config", "journal", "index", "hooks"}


def test_help_lists_every_command_with_its_arguments(hall, hall_repo):
    reply = hall("help", "--json", cwd=hall_repo.root)
    assert reply.code == 0
    data = reply.json
    listed = {c["command"] for c in data["commands"]}
    parser = build_parser()
    every = {f"hall {name}" for name in parser._subparsers._group_actions[0].choices}
    assert every <= listed and {f"hall {n}" for n in STAGE_1} <= listed
    assert {c["command"] for c in describe_parser(parser)} == listed
    by_name = {c["command"]: c for c in data["commands"]}
    drop = {a["name"]: a for a in by_name["hall drop"]["arguments"]}
    assert drop["--reason"]["required"] is True and drop["--keep-worktree"]["type"] == "boolean"
    assert drop["id"]["required"] is False
    assert by_name["hall answer"]["arguments"][0] == {
        **by_name["hall answer"]["arguments"][0],
        "name": "qid",
        "required": True,
    }
    assert data["exit_codes"]["WRONG_STATE"] == 4 and data["exit_codes"]["CLAIMED"] == 7
    assert data["next"] and data["global_options"]
    assert help_json()["commands"] == data["commands"]


class _Capture(io.StringIO):
    """A stdout for in-process runs of `main`; `tty` decides which face it gets."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def run_main(monkeypatch, cwd: Path, *args: str, tty: bool = False) -> tuple[int, str]:
    """`hall` in-process, for tests where the process boundary is not the point.

    Its own MonkeyPatch, undone when it returns: undoing the test's would also undo conftest's
    isolated HOME, data dir and Claude config dir, and the next call would write the real user's."""
    from hallmark.tui.cli import main

    out = _Capture(tty)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        patch.setattr("sys.stdout", out)
        patch.setattr("sys.stderr", out)
        patch.setenv("COLUMNS", "140")
        code = main(list(args))
    return code, out.getvalue()


def test_schema_prints_valid_json_schema(hall_repo, monkeypatch):
    for name in ("command", "error", "event", "config", "new", "drop", "status"):
        code, out = run_main(monkeypatch, hall_repo.root, "schema", name)
        assert code == 0, out
        jsonschema.Draft202012Validator.check_schema(json.loads(out))


def test_schemas_accept_real_replies(hall_repo, monkeypatch):
    root = hall_repo.root
    schema = {
        n: json.loads(run_main(monkeypatch, root, "schema", n)[1]) for n in ("error", "event", "config", "command")
    }
    code, out = run_main(monkeypatch, root, "status", "99")
    assert code == 3
    jsonschema.validate(json.loads(out), schema["error"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"error": {"code": "X"}}, schema["error"])
    assert schema["error"]["x-exit-codes"]["ITEM_NOT_FOUND"] == 3

    created = items.new(hall_repo, title="schema")
    questions.ask(hall_repo, "which?", item_id="H-0001", options=["a", "b"], default="a", wait="1h")
    items.ready(hall_repo, "H-0001", note="n")
    items.pull_back(hall_repo, "H-0001", reason="r")
    items.propose_ready(hall_repo, "H-0001", summary="s", why="w", how="h")
    questions.answer(hall_repo, "Q-1", "a")
    questions.ask(hall_repo, "repo-level?")
    items.drop(hall_repo, "H-0001", reason="r")
    assert not Path(created["worktree"]).exists()
    written = journal.read(hall_repo.paths.item_journal("H-0001")).events
    written += journal.read(hall_repo.paths.repo_journal).events
    assert len(written) >= 9
    for event in written:
        jsonschema.validate(event, schema["event"])
        validate_event(event)  # and the pydantic model of its kind
    with pytest.raises(pydantic.ValidationError):
        validate_event({"v": 1, "t": "x", "actor": "you", "event": "ready", "item": "H-0001"})  # ready needs sha
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"v": 1, "event": "ready"}, schema["event"])  # no time, no actor

    jsonschema.validate(Config().model_dump(by_alias=True, mode="json"), schema["config"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"max_rejects": "three"}, schema["config"])

    commands = schema["command"]
    new_args = commands["definitions"]["new"]
    jsonschema.validate({"title": "x", "request": ["fix", "it"]}, new_args)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"colour": "red"}, new_args)
    drop_args = commands["definitions"]["drop"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "1"}, drop_args)  # --reason is required
    assert "hall new" in commands["properties"]


def test_schema_of_nothing_is_a_usage_error(hall, hall_repo):
    assert_error(hall("schema", "frobnicate", cwd=hall_repo.root), "USAGE", 2)


def _render(renderable) -> str:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=140, force_terminal=False, color_system=None).print(renderable)
    return out.getvalue()


def test_text_renderers_show_the_data(hall_repo, hall):
    root = hall_repo.root
    data = new_item(hall, root, "Render me")
    hall("ask", "which?", "--options", "a,b", cwd=root)
    hall("ready", "1", cwd=root)
    assert "Render me" in _render(text.item(items.status_one(hall_repo, "H-0001")))
    assert "checks" in _render(text.item(items.status_one(hall_repo, "H-0001")))
    listing = _render(text.status(items.status_all(hall_repo)))
    assert "H-0001" in listing and "Render me" in listing
    assert "ready" in _render(text.log(items.log(hall_repo, "H-0001")))
    assert "which?" in _render(text.inbox(inbox.report(hall_repo)))
    assert "Nothing waits" in _render(text.inbox({"entries": [], "count": 0, "next": []}))
    assert "notices" in _render(
        text.inbox({"notices": [{"kind": "stuck", "item": "H-0001", "since": "t", "text": "no progress"}], "next": []})
    )
    doctor = hall("doctor", cwd=root).json
    assert "journal" in _render(text.doctor(doctor))
    assert "hall drop" in _render(text.help_table(help_json()))
    assert '"title"' in _render(text.schema(hall("schema", "error", cwd=root).json))
    init_text = _render(text.init(hall("init", cwd=root).json))
    assert str(root) in init_text.replace("\n", "") or "repo" in init_text
    assert data["item"] == "H-0001"


def test_text_on_a_tty_for_every_stage_1_reply(hall_repo, monkeypatch):
    """Every Stage 1 command prints readable text (not JSON) on a TTY, without an error.
    (test_contract runs the real `hall` on a real pseudo-terminal; this covers every command fast.)"""
    root = hall_repo.root
    data = items.new(hall_repo, title="Shown as text")
    git(Path(data["worktree"]), "commit", "-q", "--allow-empty", "-m", "work")
    for args in (
        ["status"],
        ["status", "1"],
        ["status", "--all"],
        ["log", "1"],
        ["inbox"],
        ["help"],
        ["schema", "error"],
        ["doctor"],
        ["ask", "ok?", "--options", "yes,no"],
        ["inbox"],
        ["answer", "Q-1", "yes"],
        ["ready", "1"],
        ["ready", "1"],
        ["pull-back", "1"],
        ["propose-ready", "1", "--summary", "s"],
        ["reindex"],
        ["init"],
        ["status", "77"],
        ["drop", "1", "--reason", "r"],
    ):
        code, shown = run_main(monkeypatch, root, *args, tty=True)
        assert code in (0, 1, 3), (args, shown)
        assert "internal error" not in shown and "Traceback" not in shown, (args, shown)
        assert shown.strip() and not shown.lstrip().startswith("{"), (args, shown)
    code, shown = run_main(monkeypatch, root, "status", "--all", tty=True)
    assert "Shown as text" in shown and "dropped" in shown
    code, shown = run_main(monkeypatch, root, "status", "77", tty=True)
    assert code == 3 and "ITEM_NOT_FOUND" in shown
