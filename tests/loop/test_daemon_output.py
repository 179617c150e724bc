"""`hall daemon run` says what it does while it does it: one JSON line per step on a pipe (the summary
last), one readable line per step on a terminal (a real pseudo-terminal here)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def test_json_lines_one_per_step_as_they_happen(loop_repo, ready_item, scenario, kit):
    scenario({"review": [dict(kit.approve(), sleep=3)]})  # a slow review: the checks' line comes before it ends
    item_id = ready_item()
    proc = subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(loop_repo.root)],
        cwd=loop_repo.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = proc.stdout.readline()  # the checks step arrives before the daemon is done
    step = json.loads(first)
    assert step["event"] == "step" and step["item"] == item_id and step["outcome"] == "checks_passed"
    assert proc.poll() is None, "the line came while the daemon was still working"
    rest = proc.stdout.read()
    proc.wait(timeout=60)
    lines = [step] + [json.loads(x) for x in rest.splitlines()]
    steps, summary = lines[:-1], lines[-1]
    assert [(s["step"], s["outcome"]) for s in steps] == [
        ("assayer", "checks_passed"),
        ("assayer", "hallmarked"),
        ("shipper", "shipped"),
        ("librarian", "distilled"),
    ]
    assert all(s["repo"] == loop_repo.root.name for s in steps)
    assert summary["passes"] >= 3 and "next" in summary and proc.returncode == 0


def test_a_terminal_gets_one_readable_line_per_step(loop_repo, ready_item, scenario, kit):
    scenario({"review": [kit.approve()]})
    item_id = ready_item()
    main, follower = os.openpty()
    proc = subprocess.Popen(
        [str(BIN / "hall"), "daemon", "run", "--until-idle", "--repo", str(loop_repo.root)],
        cwd=loop_repo.root,
        stdout=follower,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ, COLUMNS="200", TERM="dumb"),
    )
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(main)
    text = out.decode("utf-8", "replace")
    lines = [x for x in text.splitlines() if item_id in x]
    assert len(lines) == 4, text
    assert "assayer -> checks_passed" in lines[0] and "assayer -> hallmarked" in lines[1]
    assert "shipper -> shipped" in lines[2] and loop_repo.root.name in lines[2]
    assert "librarian -> distilled" in lines[3]
    assert "{" not in text.split("pass(es)")[0]  # no JSON on a terminal
    assert "pass(es)" in text
