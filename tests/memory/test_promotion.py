"""Promotion on real files: per kind, atomic, nothing outside its block or file; reconcile and retire."""

from __future__ import annotations

import json

import pytest
from hallmark.core.errors import HallError
from hallmark.core.memory import api, audit
from hallmark.core.memory.blocks import digest
from hallmark.core.memory.store import Store

from .conftest import files_under

USER_TEXT = "# Project rules\n\nWrite tests first.\n\n## Style\n\nNo tabs.\n"


@pytest.fixture
def claude_md(repo):
    path = repo.root / "CLAUDE.md"
    path.write_text(USER_TEXT + path.read_text())
    return path


def accepted(repo, kind, pattern, **kw):
    lid = api.propose(repo, kind=kind, pattern=pattern, **kw)["id"]
    auto = api.automation_confirmation(api.get(repo, lid))
    return api.accept(repo, lid, confirm_automation=auto["confirm"] if auto else None)


def test_convention_becomes_a_marked_block_and_nothing_else_changes(repo, claude_md):
    before = claude_md.read_text()
    others = {k: v for k, v in files_under(repo.root).items() if not k.startswith(".git/") and k != "CLAUDE.md"}
    learning = accepted(repo, "convention", "Use pathlib for file paths", rationale="one style")
    after = claude_md.read_text()
    assert learning.status == "promoted" and learning.promotion["path"] == "CLAUDE.md"
    assert after.startswith(before)  # everything before is byte-for-byte the same
    block = after[len(before) :]
    sha = digest("- Use pathlib for file paths\n  Why: one style")
    assert block == (
        f"\n<!-- hallmark:learning L-0001 sha256:{sha} -->\n- Use pathlib for file paths\n  Why: one style\n"
        "<!-- /hallmark:learning L-0001 -->\n"
    )
    assert {k: v for k, v in files_under(repo.root).items() if not k.startswith(".git/") and k != "CLAUDE.md"} == others
    retired = api.retire(repo, learning.id, "no longer true")
    assert retired.status == "retired" and retired.promotion is None
    assert claude_md.read_text() == before  # retiring removes exactly its block


def test_two_blocks_retire_one_leaves_the_other_untouched(repo, claude_md):
    a = accepted(repo, "rule", "Never mock the journal in tests")
    b = accepted(repo, "convention", "Commit messages say why")
    with_both = claude_md.read_text()
    api.retire(repo, a.id, "superseded")
    text = claude_md.read_text()
    assert "L-0001" not in text and "- Commit messages say why\n<!-- /hallmark:learning L-0002 -->" in text
    assert USER_TEXT in text and len(with_both) > len(text)
    api.retire(repo, b.id, "done")
    assert "hallmark:learning" not in claude_md.read_text()


def test_enforcement_becomes_a_rule_file_with_path_globs(repo):
    learning = accepted(
        repo, "enforcement", "No any in TypeScript", paths=["src/**/*.ts", "web/*.tsx"], details={"name": "no-any"}
    )
    path = repo.root / ".claude" / "rules" / "no-any.md"
    text = path.read_text()
    assert text.startswith('---\npaths:\n  - "src/**/*.ts"\n  - "web/*.tsx"\n---\n')
    assert "No any in TypeScript" in text and learning.promotion["path"] == ".claude/rules/no-any.md"
    api.retire(repo, learning.id, "lint does it")
    assert not path.exists()


def test_enforcement_never_overwrites_a_persons_file(repo):
    mine = repo.root / ".claude" / "rules" / "no-any.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own rule\n")
    learning = accepted(repo, "enforcement", "No any", details={"name": "no-any"})
    assert mine.read_text() == "my own rule\n"
    assert learning.promotion["path"] == ".claude/rules/no-any-l-0001.md"


def test_skill_and_workflow_files(repo):
    skill = accepted(
        repo,
        "skill",
        "Build forms with react-hook-form",
        details={"name": "forms", "key_points": ["register every field"]},
    )
    workflow = accepted(
        repo, "workflow", "Release a version", details={"name": "release", "steps": ["bump the version", "tag it"]}
    )
    skill_file = repo.root / ".claude" / "skills" / "forms" / "SKILL.md"
    command_file = repo.root / ".claude" / "commands" / "release.md"
    assert 'name: "forms"' in skill_file.read_text() and "- register every field" in skill_file.read_text()
    assert "1. bump the version\n2. tag it" in command_file.read_text()
    api.retire(repo, skill.id, "x")
    api.retire(repo, workflow.id, "x")
    assert not skill_file.exists() and not skill_file.parent.exists() and not command_file.exists()


def test_automation_becomes_a_hook_entry_and_leaves_other_settings(repo):
    settings = repo.root / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(ls)"]},
                "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}]},
            }
        )
    )
    learning = accepted(
        repo,
        "automation",
        "Format after every edit",
        details={"hook_event": "PostToolUse", "hook_matcher": "Write|Edit", "action": "prettier -w ."},
    )
    data = json.loads(settings.read_text())
    entries = data["hooks"]["PostToolUse"]
    assert entries[0]["hooks"][0]["command"] == "mine.sh"
    token = api.automation_confirmation(learning)["confirm"]
    assert entries[1] == {
        "matcher": "Write|Edit",
        "hooks": [{"type": "command", "command": f"prettier -w .  # hallmark:L-0001 {token}"}],
    }
    api.retire(repo, learning.id, "x")
    data = json.loads(settings.read_text())
    assert data == {
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}]},
    }


def test_automation_without_an_action_stays_in_the_library(repo):
    learning = accepted(repo, "automation", "Run prettier after edits")
    assert learning.status == "accepted" and learning.promotion is None
    assert "not promoted" in api.audit_log(repo, learning.id)[-1]["why"]
    assert api.preview(repo, learning.id)["problem"]


def test_library_only_kinds_are_not_written_anywhere(repo):
    before = {k: v for k, v in files_under(repo.root).items() if not k.startswith(".git/")}
    for kind in ("false-positive", "map", "decision"):
        learning = accepted(repo, kind, f"A {kind} learning about the store")
        assert learning.status == "accepted" and learning.promotion is None
    assert {k: v for k, v in files_under(repo.root).items() if not k.startswith(".git/")} == before


def test_preview_says_where_accepting_writes(repo):
    lid = api.propose(repo, kind="enforcement", pattern="No print in core", paths=["core/**/*.py"])["id"]
    preview = api.preview(repo, lid)
    assert preview["target"] == "rule_file" and preview["path"] == ".claude/rules/no-print-in-core.md"
    assert "No print in core" in preview["text"]
    assert not (repo.root / ".claude" / "rules").exists()  # previewing writes nothing


def test_reconcile_edited_block_is_recorded_once_and_can_be_adopted(repo, claude_md):
    learning = accepted(repo, "convention", "Use pathlib")
    claude_md.write_text(
        claude_md.read_text().replace("- Use pathlib\n", "- Use pathlib everywhere, even in scripts\n")
    )
    report = api.reconcile(repo)
    assert report["drift"] == [
        {
            "id": learning.id,
            "state": "edited",
            "path": "CLAUDE.md",
            "pattern": "Use pathlib",
            "current": "- Use pathlib everywhere, even in scripts",
            "offers": ["update", "retire", "restore"],
            "recorded": True,
        }
    ]
    lines = audit.read(Store(repo.paths).audit_path, learning.id)
    assert lines[-1]["action"] == "reconcile" and "edited by hand" in lines[-1]["why"]
    assert "recorded" not in api.reconcile(repo)["drift"][0]  # seen once, recorded once
    api.reconcile(repo, update=[learning.id])
    now = api.get(repo, learning.id)
    assert now.pattern == "Use pathlib everywhere, even in scripts" and now.status == "promoted"
    assert api.reconcile(repo)["drift"] == []


def test_reconcile_deleted_block_then_retire_or_restore(repo, claude_md):
    a = accepted(repo, "convention", "Prefer small modules")
    b = accepted(repo, "rule", "Never print tracebacks to stdout")
    text = claude_md.read_text()
    start = text.index("<!-- hallmark:learning L-0001 ")
    end = text.index("<!-- /hallmark:learning L-0001 -->") + len("<!-- /hallmark:learning L-0001 -->\n")
    claude_md.write_text(text[:start] + text[end:])
    rule_text = claude_md.read_text()
    report = api.reconcile(repo)
    assert [(d["id"], d["state"], d["offers"]) for d in report["drift"]] == [(a.id, "deleted", ["retire", "restore"])]
    with pytest.raises(HallError):
        api.reconcile(repo, update=[a.id])  # nothing to adopt from a deletion
    api.reconcile(repo, retire_ids=[a.id])
    assert api.get(repo, a.id).status == "retired"
    assert claude_md.read_text() == rule_text  # the other block untouched
    assert api.get(repo, b.id).status == "promoted"


def test_reconcile_restore_rewrites_an_edited_rule_file(repo):
    learning = accepted(repo, "enforcement", "Keep hooks stdlib only", paths=["hooks/**"], details={"name": "hooks"})
    path = repo.root / ".claude" / "rules" / "hooks.md"
    original = path.read_text()
    path.write_text(original + "\nextra line a person added\n")
    assert api.reconcile(repo)["drift"][0]["state"] == "edited"
    api.reconcile(repo, restore=[learning.id])
    assert path.read_text() == original and api.reconcile(repo)["drift"] == []
    path.unlink()
    assert api.reconcile(repo)["drift"][0]["state"] == "deleted"


def test_cli_reconcile_and_retire(repo, hall, claude_md):
    lid = hall("library", "propose", "--kind", "convention", "--pattern", "Docs live in docs/", cwd=repo.root).json[
        "id"
    ]
    reply = hall("library", "accept", lid, cwd=repo.root).json
    assert reply["status"] == "promoted" and reply["promoted_to"] == "CLAUDE.md"
    claude_md.write_text(claude_md.read_text().replace("- Docs live in docs/", "- Docs live in docs/ and README"))
    report = hall("library", "reconcile", cwd=repo.root).json
    assert report["drift"][0]["state"] == "edited"
    assert f"hall library reconcile --update {lid}" in report["next"]
    hall("library", "reconcile", "--retire", lid, cwd=repo.root)
    assert "hallmark:learning" not in claude_md.read_text()


def test_a_broken_settings_file_is_left_alone_and_the_learning_stays_in_the_library(repo):
    settings = repo.root / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ not json")
    learning = accepted(
        repo,
        "automation",
        "Lint after edits",
        details={"hook_event": "PostToolUse", "hook_matcher": "Edit", "action": "ruff check ."},
    )
    assert learning.status == "accepted" and learning.promotion is None
    assert settings.read_text() == "{ not json"
    assert "is not valid JSON" in api.audit_log(repo, learning.id)[-1]["why"]
