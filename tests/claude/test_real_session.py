"""Acceptance with the real Claude Code CLI and the scripted model: the install, a session's gates
and context, and the Stop hook's usage — everything Claude Code does is real, only the model's
answers are scripted."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.claude_cli


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def stream(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def claude_p(claude: Path, cwd: Path, prompt: str, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(claude), "-p", prompt, "--output-format", "stream-json", "--verbose", *extra],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )


def tool_results(records: list[dict]) -> dict[str, dict]:
    """tool_use id -> its tool_result block, from the stream's user lines."""
    found = {}
    for record in records:
        if record.get("type") != "user":
            continue
        for block in record.get("message", {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[block["tool_use_id"]] = block
    return found


def tool_uses(records: list[dict]) -> list[dict]:
    return [
        b
        for r in records
        if r.get("type") == "assistant"
        for b in r.get("message", {}).get("content") or []
        if b.get("type") == "tool_use"
    ]


def test_setup_session_gates_context_and_usage(claude_cli, model_server, hall, hall_repo):
    repo = hall_repo
    main = repo.root
    setup = hall("setup", "claude", "--json", cwd=main)
    assert setup.code == 0, setup.stderr + setup.stdout
    installed = setup.json
    assert installed["route"] == "claude"
    assert [step["argv"][1:3] for step in installed["ran"]] == [["plugin", "marketplace"], ["plugin", "install"]]

    from hallmark.core import items

    created = items.new(repo, title="Add mul")
    item, worktree = created["item"], Path(created["worktree"])
    outside = main / "feature.py"  # a new file in the main checkout: outside the item's worktree
    server = model_server(
        {
            "roles": {
                "session": [
                    [
                        {
                            "tool": "Bash",
                            "input": {"command": "git push origin HEAD", "description": "publish"},
                            "usage": {"input_tokens": 1000, "output_tokens": 11},
                        },
                        {
                            "tool": "Write",
                            "input": {"file_path": str(outside), "content": "print('bypassed the item')\n"},
                            "usage": {"input_tokens": 1100, "output_tokens": 12},
                        },
                        {"text": "Both were refused.", "usage": {"input_tokens": 1200, "output_tokens": 13}},
                    ]
                ]
            }
        }
    )
    proc = claude_p(claude_cli, worktree, "Publish this and tidy app.py in the main checkout.")
    records = stream(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    init = records[0] if records[0].get("subtype") == "init" else next(r for r in records if r.get("subtype") == "init")
    assert "hallmark" in [p["name"] for p in init["plugins"]]

    first = server.requests("session")[0]
    assert item in first.user_text(), "the SessionStart context names the item"
    uses = {u["name"]: u["id"] for u in tool_uses(records)}
    results = tool_results(records)
    for name in ("Bash", "Write"):
        result = results[uses[name]]
        assert result.get("is_error") is True, result
        assert "GATE_DENIED" in json.dumps(result), result
    assert not outside.exists()

    usage = [e for e in items.item_events(repo, item) if e.get("event") == "usage"]
    assert len(usage) == 1, usage
    assert usage[0]["output_tokens"] == 11 + 12 + 13
    assert usage[0]["input_tokens"] == 1000 + 1100 + 1200

    doctor = hall("doctor", "--json", cwd=main)
    by_name = {c["check"]: c for c in doctor.json["checks"]}
    for name in ("claude code", "plugin", "hook command", "session"):
        assert by_name[name]["ok"], by_name[name]


def test_a_gate_hook_that_cannot_start_blocks_and_doctor_names_the_fix(claude_cli, model_server, hall, hall_repo):
    """A moved venv: the hooks Claude Code runs name a hall-hook that is gone. onFailure: block makes
    the gate fail closed (Claude Code >= 2.1.295), and doctor says to run hall setup claude again."""
    main = hall_repo.root
    assert hall("setup", "claude", "--json", cwd=main).code == 0
    from hallmark.core.plugin_install import install_root

    hooks_file = install_root() / "current" / "plugin" / "hooks" / "hooks.json"
    data = json.loads(hooks_file.read_text())
    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = "/nonexistent/old-venv/bin/hall-hook " + handler["command"].split(" ", 1)[1]
    hooks_file.write_text(json.dumps(data))
    marker = main / "ran.txt"
    model_server({"roles": {"session": [[{"tool": "Bash", "input": {"command": f"touch {marker}"}}, "ok"]]}})
    proc = claude_p(claude_cli, main, "touch a file", "--allowedTools", "Bash(touch:*)")
    results = list(tool_results(stream(proc.stdout)).values())
    assert results and results[0].get("is_error") is True, proc.stdout[-2000:]
    assert not marker.exists()
    checks = {c["check"]: c for c in hall("doctor", "--json", cwd=main).json["checks"]}
    assert not checks["hook command"]["ok"] and "hall setup claude" in checks["hook command"]["fix"]


FORGED = "FORGED-SESSION-LINE-5530"


def test_a_session_opened_like_hall_new_open_records_through_the_channel_and_cannot_touch_the_record(
    claude_cli, model_server, hall_repo, tmp_path, monkeypatch
):
    """`hall new --open`'s own path (open_session: the item's wall in --settings, the channel served
    while it runs), with the real CLI in print mode: the commit and `hall propose-ready` go, a write
    to the journal that the hook gate cannot read is refused by the sandbox."""
    from hallmark.core import items, sandbox_profile
    from hallmark.core.open_session import open_session

    available = sandbox_profile.availability()
    if not available["ok"]:
        pytest.skip(f"Claude Code's sandbox cannot run here: {available['detail']}")
    repo = hall_repo
    created = items.new(repo, title="Add sub")
    item, worktree = created["item"], Path(created["worktree"])
    journal = repo.paths.item_journal(item)
    where, what = str(journal).encode().hex(), (FORGED + "\n").encode().hex()
    forge = f"python3 -c \"import binascii as b; open(b.unhexlify('{where}').decode(), 'a').write(b.unhexlify('{what}').decode())\""
    model_server(
        {
            "roles": {
                "session": [
                    [
                        {"tool": "Bash", "input": {"command": forge, "description": "forge"}},
                        {"tool": "Write", "input": {"file_path": str(worktree / "sub.py"), "content": "x = 1\n"}},
                        {"tool": "Bash", "input": {"command": "git add sub.py"}},
                        {"tool": "Bash", "input": {"command": "git commit -q -m sub"}},
                        {"tool": "Bash", "input": {"command": "hall propose-ready --summary 'sub is in'"}},
                        {"text": "Proposed."},
                    ]
                ]
            }
        }
    )
    out = tmp_path / "session.jsonl"
    wrapper = tmp_path / "claude-print"
    wrapper.write_text(f'#!/bin/sh\nexec {claude_cli} "$@" > {out}\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv(
        "HALL_CLAUDE",
        f"{wrapper} -p 'Add sub and propose it' --output-format stream-json --verbose --permission-mode acceptEdits",
    )
    opened = open_session(repo, item)
    records = stream(out.read_text())
    assert opened["exit_code"] == 0 and opened["sandbox"]["enabled"] is True, out.read_text()[-2000:]
    results = [tool_results(records)[u["id"]] for u in tool_uses(records)]
    assert results[0].get("is_error") is True, results[0]
    assert FORGED not in journal.read_text()
    assert not any(r.get("is_error") for r in results[1:5]), results[1:5]
    assert "proposed" in json.dumps(results[4]) or "awaiting" in json.dumps(results[4]), results[4]
    assert items.fold_item(repo, item).state == "awaiting_you"
    proposed = [e for e in items.item_events(repo, item) if e.get("event") == "proposed_ready"]
    assert proposed and proposed[-1]["sha"] == git(worktree, "rev-parse", "HEAD")  # the commit went in
