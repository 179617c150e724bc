"""The stand-in `claude`: the real flags, real-format stream-json, and it says it is a stand-in."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hallmark.core.loop import verdict
from hallmark.core.runner import standin

SHIM = Path(__file__).resolve().parent / "bin" / "claude"


def _run(args: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SHIM), *args], cwd=cwd, capture_output=True, text=True, timeout=60, **kw)


def test_stream_json_needs_verbose_like_the_real_cli(tmp_path):
    proc = _run(["-p", "--output-format", "stream-json", "hi"], tmp_path)
    assert proc.returncode == 1
    assert "--output-format=stream-json requires --verbose" in proc.stderr


def test_an_invalid_json_schema_is_refused(tmp_path):
    proc = _run(["-p", "--output-format", "stream-json", "--verbose", "--json-schema", "{not json", "x"], tmp_path)
    assert proc.returncode == 1 and "--json-schema is not a valid JSON Schema" in proc.stderr


def test_the_heuristic_reviewer_flags_todo_lines_and_labels_itself(git_repo):
    diff = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n+    # TODO: handle None\n     return a + b\n"
    proc = _run(
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--agent",
            "hallmark:principal-engineer",
            "--json-schema",
            verdict.schema_text(),
            "--max-budget-usd",
            "6",
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--plugin-dir",
            "/x",
            "--settings",
            "{}",
            f"Review this\n{diff}",
        ],
        git_repo,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    kinds = [x["type"] for x in lines]
    assert kinds[0] == "system" and kinds[-1] == "result" and "assistant" in kinds and "user" in kinds
    init, result = lines[0], lines[-1]
    assert init["model"] == "hallmark-standin" and init["claude_code_version"] == "hallmark-standin"
    assert result["total_cost_usd"] == 0 and list(result["modelUsage"]) == ["hallmark-standin"]
    assert "no model" in lines[1]["message"]["content"][0]["text"]
    parsed = verdict.parse(result["structured_output"])
    (finding,) = parsed.findings
    assert (finding.file, finding.line, finding.severity) == ("app.py", 2, "major")
    # the tool results are real command output from its cwd
    log = next(x for x in lines if x["type"] == "user")
    assert "initial" in log["tool_use_result"]["stdout"]


def test_a_marker_in_the_prompt_picks_the_step(git_repo):
    step = {"verdict": {"summary": "from the marker", "findings": []}}
    proc = _run(
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--agent",
            "hallmark:principal-engineer",
            "--json-schema",
            "{}",
            "hallmark-standin: " + json.dumps(step),
        ],
        git_repo,
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["structured_output"]["summary"] == "from the marker"


def test_die_after_lines_ends_without_a_result(git_repo, tmp_path, monkeypatch):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"review": [{"die_after_lines": 2}]}))
    monkeypatch.setenv("HALL_STANDIN_SCRIPT", str(script))
    proc = _run(
        ["-p", "--output-format", "stream-json", "--verbose", "--agent", "hallmark:principal-engineer", "x"], git_repo
    )
    assert proc.returncode == 137
    assert [json.loads(x)["type"] for x in proc.stdout.splitlines()] == ["system", "assistant"]


def test_scenario_steps_are_consumed_in_order_and_the_last_repeats(tmp_path, monkeypatch):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"review": [{"n": 1}, {"n": 2}]}))
    monkeypatch.setenv("HALL_STANDIN_SCRIPT", str(script))
    assert [standin.scenario_step("review", "")[0]["n"] for _ in range(4)] == [1, 2, 2, 2]
    assert standin.scenario_step("fix", "")[0] == {}


@pytest.mark.parametrize(
    "agent,role",
    [
        ("hallmark:principal-engineer", "review"),
        ("hallmark:fixer", "fix"),
        ("hallmark:developer", "dev"),
        ("hallmark:intake", "intake"),
    ],
)
def test_role_comes_from_the_agent(agent, role):
    assert standin.role_of(agent, "") == role


def test_other_roles_answer_a_schema_with_its_smallest_valid_instance(git_repo):
    schema = {
        "type": "object",
        "required": ["split", "parts", "reason"],
        "properties": {
            "split": {"type": "boolean"},
            "reason": {"type": "string", "minLength": 3},
            "parts": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Part"}},
        },
        "$defs": {
            "Part": {
                "type": "object",
                "required": ["title", "size"],
                "properties": {"title": {"type": "string"}, "size": {"enum": ["s", "m"]}},
            }
        },
    }
    proc = _run(
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--agent",
            "hallmark:intake",
            "--json-schema",
            json.dumps(schema),
            "split this",
        ],
        git_repo,
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["structured_output"] == {
        "split": False,
        "parts": [{"title": "stand-in", "size": "s"}],
        "reason": "xxx",
    }
    # and the verdict schema's smallest instance is itself a valid verdict
    assert verdict.parse(standin.minimal_instance(verdict.schema(), verdict.schema())).findings == []
