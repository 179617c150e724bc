"""The app's bell for real: `hall tui` in a detached tmux session, a question asked from another
process, and tmux's `#{window_bell_flag}` set by the app's bell; with `[notify] terminal = "off"`
the app rings nothing (its toast still shows). Skips, saying why, without tmux."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hallmark.core import items, questions

from .conftest import user_config

BIN = Path(sys.executable).parent


def _tmux(server: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", server, *args], capture_output=True, text=True, timeout=20).stdout


def _until(check, timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.3)
    return False


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: apt-get install tmux)")
@pytest.mark.parametrize("mode", ["bell", "off"])
def test_a_new_question_rings_the_apps_bell(hall_repo, mode):
    user_config(f'[notify]\nterminal = "{mode}"\n')
    item = items.new(hall_repo, title="Bell")["item"]
    server = f"hall-bell-{uuid.uuid4().hex[:8]}"
    env = " ".join(f"{k}={v}" for k, v in os.environ.items() if k in ("HOME", "HALLMARK_DATA_DIR", "PATH"))
    command = f"cd {hall_repo.root} && env {env} TERM=xterm-256color {BIN / 'hall'} tui"
    _tmux(server, "new-session", "-d", "-s", "app", "-x", "160", "-y", "45", command)
    try:
        assert _until(lambda: "waiting" in _tmux(server, "capture-pane", "-p", "-t", "app")), "the app did not open"
        time.sleep(1.0)
        assert _tmux(server, "display", "-p", "-t", "app", "#{window_bell_flag}").strip() == "0"
        questions.ask(hall_repo, "Rung from another process?", item_id=item, options=["yes", "no"])
        assert _until(lambda: "Rung from another process" in _tmux(server, "capture-pane", "-p", "-t", "app"))
        time.sleep(1.0)
        rung = _tmux(server, "display", "-p", "-t", "app", "#{window_bell_flag}").strip() == "1"
        assert rung is (mode == "bell")
    finally:
        _tmux(server, "kill-server")
