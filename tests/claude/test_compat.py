"""What Claude Code accepts, checked without the CLI: draft-07 schemas, documented hooks.json keys,
agents that keep StructuredOutput, confinement in the documented forms, the waiting notifications."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

PLUGIN = Path(__file__).resolve().parents[2] / "plugin"
# hooks.json keys Claude Code documents (hooks reference: handler fields; onFailure since 2.1.295)
GROUP_KEYS = {"matcher", "hooks"}
HANDLER_KEYS = {
    "type",
    "command",
    "args",
    "timeout",
    "statusMessage",
    "once",
    "async",
    "asyncRewake",
    "shell",
    "if",
    "onFailure",
}
EVENTS = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "Notification"}


def _schemas_passed_to_claude() -> dict[str, dict]:
    from hallmark.core.draft7 import to_draft7
    from hallmark.core.loop import verdict
    from hallmark.core.memory.distill import LEARNINGS_SCHEMA

    return {"verdict": verdict.schema(), "learnings": to_draft7(LEARNINGS_SCHEMA)}


@pytest.mark.parametrize("name", sorted(p.name for p in (PLUGIN / "schemas").glob("*.json")))
def test_every_plugin_schema_is_draft_07(name):
    schema = json.loads((PLUGIN / "schemas" / name).read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)
    assert "$defs" not in json.dumps(schema), "draft-07 spells it definitions"


@pytest.mark.parametrize("name", ["verdict", "learnings"])
def test_every_schema_passed_with_json_schema_is_draft_07(name):
    schema = _schemas_passed_to_claude()[name]
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)
    text = json.dumps(schema)
    assert "2020-12" not in text and "$defs" not in text and "discriminator" not in text


def test_the_verdict_schema_still_accepts_a_verdict_and_refuses_a_bad_one():
    from hallmark.core.loop import verdict

    validator = Draft7Validator(verdict.schema())
    good = {
        "summary": "ok",
        "findings": [{"lens": "correctness", "severity": "major", "file": "a.py", "line": 3, "scenario": "it breaks"}],
    }
    assert not list(validator.iter_errors(good))
    assert list(
        validator.iter_errors(
            {"summary": "ok", "findings": [{"lens": "vibes", "severity": "major", "file": "a.py", "scenario": "x"}]}
        )
    )


def test_the_command_line_passes_a_draft_07_schema(hall_repo, tmp_path, monkeypatch):
    from hallmark.core.runner import command

    monkeypatch.setenv("HALL_CLAUDE", "hall-standin-claude")
    spec = command.RunSpec(
        role="review",
        prompt="review",
        cwd=hall_repo.root,
        json_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"A": {"type": "string"}},
            "properties": {"a": {"$ref": "#/$defs/A"}},
        },
    )
    args = command.build_command(hall_repo, spec, tmp_path / "s.json", prompt_in_argv=True)
    passed = json.loads(args[args.index("--json-schema") + 1])
    assert passed["$schema"].startswith("http://json-schema.org/draft-07")
    assert passed["properties"]["a"] == {"$ref": "#/definitions/A"} and "A" in passed["definitions"]
    Draft7Validator.check_schema(passed)


def test_hooks_json_has_only_documented_keys_and_every_gate_fails_closed():
    data = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())
    assert set(data) <= {"description", "hooks"}
    assert set(data["hooks"]) <= EVENTS
    for event, groups in data["hooks"].items():
        for group in groups:
            assert set(group) <= GROUP_KEYS, (event, group)
            for handler in group["hooks"]:
                assert set(handler) <= HANDLER_KEYS, (event, handler)
                if event == "PreToolUse":
                    assert handler["onFailure"] == "block"
    assert data["hooks"]["Notification"][0]["matcher"] == "permission_prompt|idle_prompt|elicitation_dialog"


@pytest.mark.parametrize("agent", ["principal-engineer", "librarian", "fixer"])
def test_no_agent_restricts_tools_with_a_tools_list(agent):
    """A `tools:` list drops Claude Code's StructuredOutput tool (seen with the real CLI 2.1.332)."""
    front = (PLUGIN / "agents" / f"{agent}.md").read_text().split("\n---", 1)[0]
    assert not [line for line in front.splitlines() if line.startswith("tools:")]
    if agent != "fixer":
        assert "Edit" in front and "Write" in front  # read-only through disallowedTools instead


def test_runs_name_only_agents_the_plugin_has():
    from hallmark.core.runner import command

    have = {p.stem for p in (PLUGIN / "agents").glob("*.md")}
    assert set(command.ROLE_AGENT.values()) <= have


def test_confinement_uses_absolute_rule_paths_and_fails_without_a_sandbox_when_required(tmp_path):
    from hallmark.core.runner.isolation import confinement_settings

    auto = confinement_settings("fix", tmp_path / "wt", tmp_path / "runs", [], isolated=False)
    reads = [r for r in auto["permissions"]["allow"] if r.startswith("Read(")]
    assert reads and all(r.startswith("Read(//") for r in reads), reads
    assert "failIfUnavailable" not in auto["sandbox"] and auto["sandbox"]["enabled"] is True
    required = confinement_settings("fix", tmp_path, tmp_path, [], isolated=False, sandbox="require")
    assert required["sandbox"]["failIfUnavailable"] is True
    assert (
        confinement_settings("fix", tmp_path, tmp_path, [], isolated=False, sandbox="off")["sandbox"]["enabled"]
        is False
    )


def test_headless_runs_load_a_plugin_copy_whose_hooks_name_the_absolute_hall_hook(hall_repo, tmp_path, monkeypatch):
    from hallmark.core.plugin_install import hook_binary
    from hallmark.core.runner import command

    monkeypatch.setenv("HALL_CLAUDE", "hall-standin-claude")
    spec = command.RunSpec(role="fix", prompt="fix", cwd=hall_repo.root)
    args = command.build_command(hall_repo, spec, tmp_path / "s.json", prompt_in_argv=True)
    copy = Path(args[args.index("--plugin-dir") + 1])
    assert copy != command.plugin_dir() and str(copy).startswith(str(hall_repo.state_dir))
    commands = [
        h["command"]
        for groups in json.loads((copy / "hooks" / "hooks.json").read_text())["hooks"].values()
        for g in groups
        for h in g["hooks"]
    ]
    assert commands and all(c.startswith(hook_binary() + " ") for c in commands)
    assert command.build_command(hall_repo, spec, tmp_path / "s.json", prompt_in_argv=True)[
        args.index("--plugin-dir") + 1
    ] == str(copy)


@pytest.mark.parametrize(
    "kind,files",
    [
        ("permission_prompt", True),
        ("idle_prompt", True),
        ("", True),
        ("auth_success", False),
        ("elicitation_complete", False),
    ],
)
def test_only_waiting_notifications_file_an_inbox_entry(hall_repo, kind, files):
    from hallmark.hooks import notification

    payload = {"session_id": "s-1", "message": "Claude needs you", "notification_type": kind}
    notification.handle(payload, hall_repo.paths, str(hall_repo.root), "Notification")
    entries = [e for e in hall_repo.index.events(kinds=["inbox_entry"], repo_level=True) if e.get("kind") == "waiting"]
    assert bool(entries) is files


def test_a_claude_code_older_than_the_minimum_is_one_clear_error(hall_repo, tmp_path, monkeypatch):
    from hallmark.core.errors import HallError
    from hallmark.core.runner import spawn

    old = tmp_path / "claude"
    old.write_text("#!/bin/sh\necho '2.1.200 (Claude Code)'\n")
    old.chmod(0o755)
    monkeypatch.setenv("HALL_CLAUDE", str(old))
    with pytest.raises(HallError) as caught:
        spawn.run(hall_repo, spawn.RunSpec(role="dev", prompt="hi", cwd=hall_repo.root))
    assert caught.value.code == "RUN_FAILED" and "2.1.200" in caught.value.message and "2.1.295" in caught.value.message
