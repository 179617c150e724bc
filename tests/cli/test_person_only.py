"""A person's decisions are refused to agents by the CLI itself (GATE_DENIED, exit 5), whatever the
spelling; the agent's own verbs stay open. The hook gate denies the same table (tests/gates)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import items, person_only, states
from hallmark.tui.cli import main

HALL = str(Path(sys.executable).parent / "hall")

PERSON_ONLY = [
    ["ready"],
    ["ready", "H-0001"],
    ["ready", "--note", "x"],
    ["verdict", "--file", "v.json"],
    ["answer", "Q-1", "a"],
    ["retry", "--reason", "x"],
    ["budget", "--grant"],
    ["budget", "--grant", "500k"],
    ["budget", "--grant=5"],
    ["budget", "--gra", "5"],
    ["budget", "--set", "daily=9M"],
    ["budget", "--se", "daily=9M"],
    ["daemon", "run", "--until-idle"],
    ["daemon", "--until-idle", "run"],
    ["daemon", "start"],
    ["daemon", "stop"],
    ["library", "accept", "L-1"],
    ["library", "reject", "L-1", "--reason", "x"],
    ["library", "retire", "L-1"],
    ["library", "lock", "--title", "x"],
    ["library", "import", "--from", "x"],
    ["library", "undo", "L-1"],
    ["library", "review", "--accept", "L-1"],
    ["library", "review", "--reject=L-1"],
    ["library", "reconcile", "--update"],
    ["inbox", "1", "--dismiss"],
    ["inbox", "--clear"],
    ["setup", "claude"],
    ["setup", "claude", "--dry-run"],
    ["-C", "/tmp", "ready"],
    ["-C/tmp", "ready"],
    ["--json", "ready"],
]
AGENT_VERBS = [
    ["propose-ready", "--summary", "x"],
    ["ask", "why?"],
    ["fixed", "F-1"],
    ["findings"],
    ["status"],
    ["log"],
    ["library", "propose", "--kind", "rule"],
    ["library", "search", "x"],
    ["library", "briefing"],
    ["library", "review"],
    ["budget"],
    ["daemon", "status"],
    ["inbox"],
    ["checkpoint", "set", "--phase", "x"],
    ["pull-back", "--reason", "x"],
    ["ready", "--help"],
    ["new", "--title", "ready"],
    ["log", "--kind", "verdict"],
]
AGENT_ENVS = [
    {"CLAUDECODE": "1"},
    {"CLAUDE_CODE_ENTRYPOINT": "cli"},
    {"HALL_SESSION_ID": "s-1"},
    {"HALL_ACTOR": "fixer"},
    {"CLAUDECODE": "1", "HALL_ACTOR": "you"},
]


@pytest.mark.parametrize("argv", PERSON_ONLY, ids=" ".join)
def test_the_table_names_every_person_only_spelling(argv):
    assert person_only.action(argv) is not None


@pytest.mark.parametrize("argv", AGENT_VERBS, ids=" ".join)
def test_the_agent_s_verbs_stay_open(argv):
    assert person_only.action(argv) is None


@pytest.mark.parametrize("argv", PERSON_ONLY, ids=" ".join)
def test_the_cli_refuses_them_under_claude_code(argv, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAUDECODE", "1")
    code = main(["--json", *argv])
    reply = json.loads(capsys.readouterr().out)
    if reply["error"]["code"] == "USAGE":  # an argv argparse itself rejects never reaches a handler
        pytest.skip("argparse rejects this spelling before anything runs")
    assert code == 5 and reply["error"]["code"] == "GATE_DENIED", reply
    assert "person's decision" in reply["error"]["message"]


@pytest.mark.parametrize("env", AGENT_ENVS, ids=lambda e: ",".join(e))
def test_every_agent_marker_is_refused_and_nothing_moves(env, hall_repo, hall):
    created = items.new(hall_repo, title="person only", actor="you")
    worktree = Path(created["worktree"])
    for argv in (["ready"], ["daemon", "run", "--until-idle"], ["budget", "--grant"]):
        result = hall(*argv, cwd=worktree, env=env)
        assert result.code == 5, (argv, result.stdout, result.stderr)
        assert result.json["error"]["code"] == "GATE_DENIED"
    assert items.fold_item(hall_repo, created["item"]).state == states.DEVELOPMENT


def test_a_person_may(hall_repo, hall):
    created = items.new(hall_repo, title="person only", actor="you")
    result = hall("ready", cwd=Path(created["worktree"]))
    assert result.code == 0, result.stdout
    assert items.fold_item(hall_repo, created["item"]).state == states.CHECKS


def test_the_agent_verbs_run_under_claude_code(hall_repo, hall):
    created = items.new(hall_repo, title="agent verbs", actor="you")
    worktree = Path(created["worktree"])
    result = hall("propose-ready", "--summary", "done", "--ask", cwd=worktree, env={"CLAUDECODE": "1"})
    assert result.code == 0, result.stdout
    assert items.fold_item(hall_repo, created["item"]).state == states.AWAITING_YOU


def test_the_refusal_reaches_the_real_process_with_a_clean_environment(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "HALL_"))}
    env["CLAUDECODE"] = "1"
    proc = subprocess.run(
        [HALL, "daemon", "run", "--until-idle"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 5 and json.loads(proc.stdout)["error"]["code"] == "GATE_DENIED"
