"""T in a run's trace, in the real app: the take-over runs the stand-in `claude` and the journal records it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hallmark.core import items

SESSION = "0b7e1c8a-5a55-4e0e-9d2a-6f0c6f1f7a11"


def test_T_in_the_trace_takes_the_item_over(hall_repo, new_item, commit_all, standin_claude):
    app_module = pytest.importorskip("hallmark.tui.app")
    item_id, wt = new_item("reviewed")
    (wt / "r.py").write_text("r = 1\n")
    sha = commit_all(wt)
    items.ready(hall_repo, item_id)
    items.transition(hall_repo, item_id, "checks_passed", actor="assayer", sha=sha)
    runs = hall_repo.paths.item_dir(item_id) / "runs"
    runs.mkdir(parents=True)
    run = runs / "20261130T094312123Z-review.jsonl"
    lines = [
        {"type": "system", "subtype": "init", "cwd": str(wt), "session_id": SESSION, "model": "claude-sonnet-4-5"},
        {"type": "result", "subtype": "success", "is_error": False, "session_id": SESSION, "result": "ok"},
        {
            "type": "hall_run_end",
            "role": "review",
            "item": item_id,
            "exit_code": 0,
            "duration_ms": 5,
            "failure": None,
            "cwd": str(wt),
        },
    ]
    run.write_text("".join(json.dumps(line) + "\n" for line in lines))

    async def scenario() -> None:
        app = app_module.HallmarkApp(hall_repo.root, watch_journal=False, persist_theme=False)
        app.animation_level = "none"
        async with app.run_test(size=(110, 32)) as pilot:
            await pilot.pause()
            app.open_trace(run, item=item_id)
            await pilot.pause()
            await pilot.press("T")
            await pilot.pause()
            await pilot.press("y")  # take over asks first
            for _ in range(100):
                if standin_claude() and items.fold_item(hall_repo, item_id).state == "development":
                    break
                await pilot.pause(0.05)

    asyncio.run(scenario())
    launched = standin_claude()
    assert len(launched) == 1
    argv = launched[0]["argv"]
    if "--settings" in argv:  # the sandbox wall, where the sandbox can run here
        argv = argv[: argv.index("--settings")] + argv[argv.index("--settings") + 2 :]
    assert argv == ["--resume", SESSION]
    assert Path(launched[0]["cwd"]).resolve() == wt.resolve()
    assert launched[0]["env"]["HALL_ITEM"] == item_id
    assert (
        launched[0]["env"]["AGENTMEMORY_PROJECT_NAME"] == (hall_repo.root / ".agentmemory-project").read_text().strip()
    )
    names = [e["event"] for e in items.item_events(hall_repo, item_id)]
    assert names[-2:] == ["taken_over", "pulled_back"]
    assert items.fold_item(hall_repo, item_id).state == "development"
