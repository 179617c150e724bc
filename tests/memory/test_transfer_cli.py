"""craft import, export/import, the librarian's distill run, and the command shapes."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from hallmark.core.errors import HallError
from hallmark.core.memory import api, transfer, yamlish
from hypothesis import given
from hypothesis import strategies as st

CRAFT = textwrap.dedent("""\
    # .craft/.learnings.yaml as craft writes it
    conventions:
      - pattern: "Use Zustand for client state"
        evidence:
          - source: user_statement
            quote: "we use Zustand here"
            story: story-3
            date: 2026-08-01
        occurrences: 2
        status: pending
    enforcements:
      - pattern: Never use any in TypeScript
        rule_name: no-any
        paths: ["src/**/*.ts", 'src/**/*.tsx']
        evidence:
          - source: user_correction
            quote: "don't use any"
            story: story-4
            date: 2026-08-02
            file: src/cart.ts
        occurrences: 1
        status: written
        written_at: 2026-08-03
    automations:
      - pattern: Run prettier after every edit
        trigger: after edit
        action: npx prettier -w .
        hook_event: PostToolUse
        hook_matcher: "Write|Edit"
        status: pending
    skills:
    - pattern: Build forms with react-hook-form
      key_points:
        - register every field
        - validate with zod
      canonical_example: |
        const form = useForm()
        form.register("email")
      status: pending
    """)


def test_craft_import_pending_become_proposed_written_become_accepted(repo):
    source = repo.root / ".craft" / ".learnings.yaml"
    source.parent.mkdir()
    source.write_text(CRAFT)
    claude_before = (repo.root / "CLAUDE.md").read_text()
    result = transfer.import_craft(repo, source)
    assert [(x["kind"], x["status"]) for x in result["imported"]] == [
        ("convention", "proposed"),
        ("enforcement", "accepted"),
        ("automation", "proposed"),
        ("skill", "proposed"),
    ]
    zustand = api.get(repo, result["imported"][0]["id"])
    assert zustand.occurrences == 2 and zustand.evidence[0] == {
        "source": "user_statement",
        "quote": "we use Zustand here",
        "item": "story-3",
        "date": "2026-08-01",
    }
    enforcement = api.get(repo, result["imported"][1]["id"])
    assert enforcement.paths == ["src/**/*.ts", "src/**/*.tsx"] and enforcement.details["rule_name"] == "no-any"
    assert enforcement.evidence[0]["file"] == "src/cart.ts"
    assert enforcement.promotion is None and (repo.root / "CLAUDE.md").read_text() == claude_before
    automation = api.get(repo, result["imported"][2]["id"])
    assert automation.details["action"] == "npx prettier -w ." and automation.details["hook_matcher"] == "Write|Edit"
    skill = api.get(repo, result["imported"][3]["id"])
    assert skill.details["canonical_example"] == 'const form = useForm()\nform.register("email")\n'
    # importing again adds occurrences, never a second copy
    again = transfer.import_craft(repo, source)
    assert [x["created"] for x in again["imported"]] == [False] * 4
    assert len(api.list_learnings(repo)) == 4


def test_craft_import_refuses_a_secret_and_imports_nothing(repo, tmp_path):
    path = tmp_path / "l.yaml"
    path.write_text(CRAFT + "workflows:\n  - pattern: Deploy with token ghp_" + "a1B2" * 9 + "\n    status: pending\n")
    with pytest.raises(HallError) as err:
        transfer.import_craft(repo, path)
    assert err.value.code == "SECRET_REFUSED" and "entry 5" in err.value.message
    assert api.list_learnings(repo) == []


def test_craft_import_bad_yaml_is_a_clear_error(repo, tmp_path, hall):
    path = tmp_path / "bad.yaml"
    path.write_text('conventions:\n  - pattern: "unterminated\n')
    result = hall("library", "import", "--craft", str(path), cwd=repo.root)
    assert result.code == 2 and "line 2" in result.json["error"]["message"]
    assert "Nothing was imported" in result.json["error"]["message"]
    missing = hall("library", "import", cwd=repo.root)  # default path .craft/.learnings.yaml is absent
    assert missing.code == 2 and "does not exist" in missing.json["error"]["message"]


@given(
    st.lists(
        st.text(alphabet="abcdefgh XYZ-_.é", min_size=1, max_size=20).map(str.strip).filter(bool),
        min_size=1,
        max_size=5,
    )
)
def test_yaml_reader_roundtrips_quoted_lists(values):
    text = "items:\n" + "".join(f"  - {json.dumps(v)}\n" for v in values)
    assert yamlish.loads(text) == {"items": values}


def test_export_then_import_into_a_fresh_clone_of_the_same_project(repo, tmp_path, hall):
    lid = api.propose(repo, kind="map", pattern="The librarian runs on Haiku")["id"]
    api.accept(repo, lid)
    api.propose(repo, kind="rule", pattern="Still pending rule")
    from hallmark.core.memory import checkpoint, decisions, notes

    notes.add(repo.paths, fact="Ana owns billing", facet="ownership")
    decisions.lock(repo.paths, title="Money", specification="Integer cents", confirm=True)
    checkpoint.set_checkpoint(repo.paths, {"Phase": "review", "Active work": "H-3", "Next step": "merge"})
    out = tmp_path / "lib.json"
    reply = hall("library", "export", "--out", str(out), cwd=repo.root).json
    assert reply["learnings"] == 2
    data = json.loads(out.read_text())
    assert data["format"] == "hallmark-library" and data["project"] == api.project_of(repo)
    # wipe the store and bring it back
    import shutil

    shutil.rmtree(repo.state_dir / "library")
    (repo.state_dir / "library").mkdir()
    result = hall("library", "import", "--from", str(out), cwd=repo.root).json
    assert sorted(x["status"] for x in result["imported"]) == ["accepted", "proposed"]
    assert result["notes_restored"] == ["ana-owns-billing"] and result["decisions_restored"] == ["D-0001"]
    assert result["checkpoint_restored"] is True
    assert checkpoint.show(repo.paths)["checkpoint"]["Active work"] == "H-3"
    assert decisions.get(repo.paths, "D-1")["specification"] == "Integer cents"


def test_command_shapes(repo, hall):
    reply = hall(
        "library",
        "propose",
        "--kind",
        "rule",
        "--pattern",
        "Gates fail closed",
        "--quote",
        "a gate error denies",
        "--source",
        "user_explanation",
        "--item",
        "H-0001",
        "--paths",
        "core/gates/**",
        cwd=repo.root,
    )
    assert reply.code == 0
    assert reply.json["id"] == "L-0001" and reply.json["status"] == "proposed" and reply.json["next"]
    listed = hall("library", "list", "--status", "proposed", cwd=repo.root).json
    assert [x["id"] for x in listed["learnings"]] == ["L-0001"]
    assert hall("library", "list", "--status", "accepted", cwd=repo.root).json["count"] == 0
    shown = hall("library", "show", "1", cwd=repo.root).json
    assert shown["preview"]["target"] == "claude_md" and shown["tombstone"] is None and shown["versions"] == 1
    queue = hall("library", "review", cwd=repo.root).json
    assert queue["count"] == 1 and queue["pending"][0]["where"]["path"] == "CLAUDE.md"
    assert hall("library", "skip", "L-1", cwd=repo.root).json["skip_count"] == 1
    rejected = hall("library", "reject", "L-1", "--reason", "too broad", cwd=repo.root).json
    assert rejected["status"] == "rejected"
    again = hall("library", "propose", "--kind", "rule", "--pattern", "gates fail closed.", cwd=repo.root).json
    assert again["previously_rejected"] and again["tombstone"]["reason"] == "too broad"
    assert "hall library review --reopen L-0001" in again["next"]
    assert hall("library", "accept", "L-1", cwd=repo.root).code == 4
    assert hall("library", "review", "--reopen", "L-1", cwd=repo.root).json["status"] == "proposed"
    assert hall("library", "accept", "L-1", cwd=repo.root).json["status"] == "promoted"
    assert hall("library", "retire", "L-1", "--reason", "moved", cwd=repo.root).json["status"] == "retired"
    history = hall("library", "history", "L-1", cwd=repo.root).json
    assert len(history["versions"]) == len(history["audit"]) == 7  # propose skip reject merge reopen accept retire
    audit = hall("library", "audit", "--verify", cwd=repo.root).json
    assert audit["verified"] is True and audit["count"] == 7
    assert hall("library", "show", "L-9", cwd=repo.root).code == 3
    assert hall("library", "reject", "L-1", cwd=repo.root).code == 2  # --reason is required
    agent = hall(
        "library", "propose", "--kind", "map", "--pattern", "Agent proposal", cwd=repo.root, env={"CLAUDECODE": "1"}
    ).json
    denied = hall("library", "accept", agent["id"], cwd=repo.root, env={"CLAUDECODE": "1"})
    assert denied.code == 5 and denied.json["error"]["code"] == "GATE_DENIED"
    help_json = hall("help", "--json", cwd=repo.root).json
    commands = {c["command"] for c in help_json["commands"]}
    for verb in (
        "propose",
        "list",
        "show",
        "accept",
        "reject",
        "skip",
        "retire",
        "review",
        "search",
        "briefing",
        "reconcile",
        "lock",
        "history",
        "audit",
        "import",
        "export",
        "distill",
    ):
        assert f"hall library {verb}" in commands
    assert {"hall checkpoint show", "hall checkpoint set", "hall checkpoint history", "hall note add"} <= commands


# -- distill: the librarian as a headless run ---------------------------------------------------
SHIM = """#!{python}
import json, sys
out = {{"learnings": [
    {{"kind": "rule", "pattern": "Money is computed in integer cents", "quote": "F-1: float rounding in total()",
      "source": "review_finding", "paths": ["web/checkout/**"]}},
    {{"kind": "map", "pattern": "Leaked ghp_{token}", "quote": "x"}},
    {{"kind": "opinion", "pattern": "Bad kind", "quote": "x"}}],
  "retire": [{{"id": "L-0001", "reason": "the record shows retries moved"}}]}}
print(json.dumps({{"type": "system", "subtype": "init", "session_id": "sess-lib", "model": "shim-librarian",
                  "cwd": ".", "tools": []}}))
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "session_id": "sess-lib",
                  "total_cost_usd": 0, "num_turns": 1, "result": "done", "structured_output": out,
                  "usage": {{"input_tokens": 10, "output_tokens": 5}}}}))
"""


def test_distill_runs_the_librarian_and_only_proposes(repo, hall, tmp_path):
    old = api.propose(repo, kind="map", pattern="Retries live in the daemon")["id"]
    api.accept(repo, old)
    item = hall("new", "--title", "Checkout totals", cwd=repo.root).json
    item_id = item["item"]
    shim = tmp_path / "claude-shim"
    shim.write_text(SHIM.format(python=sys.executable, token="a1B2" * 9))
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    result = hall("library", "distill", item_id, cwd=repo.root, env={"HALL_CLAUDE": str(shim)})
    assert result.code == 0, result.stdout + result.stderr
    reply = result.json
    assert reply["run"].endswith("-librarian.jsonl") and reply["model"] == "shim-librarian"
    assert [p["status"] for p in reply["proposed"]] == ["proposed"]
    assert {s["code"] for s in reply["skipped"]} == {"SECRET_REFUSED", "USAGE"}
    assert reply["retirement_proposed"] == [old]
    learning = api.get(repo, reply["proposed"][0]["id"])
    assert learning.status == "proposed" and learning.origin == "librarian"
    assert learning.evidence[0]["item"] == item_id and learning.evidence[0]["source"] == "review_finding"
    assert api.audit_log(repo, learning.id)[0]["actor"] == "librarian"
    run_file = repo.paths.item_dir(item_id) / "runs" / reply["run"]
    assert json.loads(run_file.read_text().splitlines()[-1])["type"] == "hall_run_end"
    prompt = Path(str(run_file).replace(".jsonl", ".prompt.md")).read_text()
    assert "Retries live in the daemon" in prompt and "Checkout totals" in prompt


def test_distill_failed_run_proposes_nothing(repo, hall, tmp_path):
    item = hall("new", "--title", "Another", cwd=repo.root).json
    item_id = item["item"]
    shim = tmp_path / "broken"
    shim.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(3)\n")
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    result = hall("library", "distill", item_id, cwd=repo.root, env={"HALL_CLAUDE": str(shim)})
    assert result.code == 1 and result.json["failed"] and result.json["proposed"] == []
    assert api.list_learnings(repo) == []


def test_schemas_and_stored_records_agree(repo, hall):
    from hallmark.core.memory.models import LearningModel

    lid = api.propose(
        repo,
        kind="enforcement",
        pattern="Schema check",
        paths=["a/**"],
        evidence={"source": "user_request", "quote": "q", "file": "a/b.py"},
    )["id"]
    api.accept(repo, lid)
    LearningModel.model_validate(api.get(repo, lid).to_dict())
    schema = hall("schema", "learning", cwd=repo.root).json
    assert "pattern" in schema["properties"] and "enforcement" in json.dumps(schema)
    assert hall("schema", "librarian", cwd=repo.root).json["required"] == ["learnings"]
