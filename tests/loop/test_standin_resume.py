"""The stand-in's `--resume`: the session id is reused as the real CLI does, and an unknown session
is refused with the CLI's words."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

SHIM = Path(__file__).resolve().parent / "bin" / "claude"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SHIM), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_resume_keeps_the_session_and_answers_as_dev(tmp_path):
    # "verdict" in the message would make a bare run look like a review: --resume means the dev session
    proc = _run(
        ["-p", "--resume", "abc-123", "the verdict is yours: raw", "--output-format", "stream-json", "--verbose"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert {x.get("session_id") for x in lines} == {"abc-123"}
    first_words = lines[1]["message"]["content"][0]["text"]
    assert first_words == "Resumed session abc-123 with: the verdict is yours: raw"
    assert "structured_output" not in lines[-1] and lines[-1]["subtype"] == "success"


def test_an_unknown_session_is_refused_like_the_real_cli(tmp_path, monkeypatch):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"dev": [{"no_conversation": True}]}))
    monkeypatch.setenv("HALL_STANDIN_SCRIPT", str(script))
    proc = _run(["-p", "--resume", "nope", "hi", "--output-format", "stream-json", "--verbose"], tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "No conversation found with session ID: nope" in proc.stderr
