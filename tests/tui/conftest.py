"""Fixtures for the terminal app: real repos with items in every state, a pinned clock and theme,
real run files, and helpers to let workers settle before asserting or snapshotting."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

CREATED_AT = "2026-11-30T09:00:00.000Z"
VIEWED_AT = "2026-11-30T11:00:00.000Z"  # two hours later: the watchman flags quiet items

STAMP = "20261130T090500123Z"


@pytest.fixture(autouse=True)
def _steady(monkeypatch: pytest.MonkeyPatch) -> None:
    """No cursor blink, and commits with fixed dates (so SHAs shown on screen are stable)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda _self: None, raising=False)
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-11-30T08:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-11-30T08:00:00Z")


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Pin the core's clock: at("2026-11-30T09:00:00.000Z")."""

    def pin(moment: str) -> None:
        monkeypatch.setenv("HALLMARK_FIXED_NOW", moment)

    pin(CREATED_AT)
    return pin


def make_app(path: Path | str, **kwargs: Any):
    from hallmark.tui.app import HallmarkApp

    kwargs.setdefault("theme", "hallmark-dark")
    kwargs.setdefault("watch_journal", False)
    kwargs.setdefault("persist_theme", False)
    app = HallmarkApp(path, **kwargs)
    app.animation_level = "none"
    return app


async def settle(pilot, rounds: int = 40) -> None:
    """Wait until every short-lived worker (loads, core calls, searches) has finished."""
    app = pilot.app
    for _ in range(rounds):
        await pilot.pause()
        busy = [w for w in app.workers if w.group not in ("watch", "tail") and w.is_running]
        if not busy:
            await pilot.pause()
            busy = [w for w in app.workers if w.group not in ("watch", "tail") and w.is_running]
            if not busy:
                return
        await asyncio.sleep(0.02)


async def until(pilot, check: Callable[[], bool], timeout: float = 5.0) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if check():
            return True
        await pilot.pause(0.05)
    return check()


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


# -- a busy building ----------------------------------------------------------------------------


def build_busy(repo) -> dict[str, str]:
    """Items in every state, a question, a hold, a usage record and a finished run, through the core."""
    from hallmark.core import items, questions

    ids: dict[str, str] = {}

    def new(key: str, title: str) -> str:
        ids[key] = items.new(repo, title=title)["item"]
        return ids[key]

    dev = new("development", "Fix login redirect")
    questions.ask(repo, "Keep the old cookie name?", item_id=dev, options=["yes", "no"], default="yes")
    chk = new("checks", "Add response cache")
    items.ready(repo, chk)
    rev = new("review", "Paginate the orders API")
    items.ready(repo, rev)
    items.transition(repo, rev, "checks_passed", actor="assayer")
    fix = new("fixing", "Tighten CSV parsing")
    items.ready(repo, fix)
    items.transition(repo, fix, "checks_failed", actor="assayer")
    wait = new("awaiting_you", "Rename settings module")
    items.propose_ready(repo, wait, summary="renamed, tests green", ask=True, actor="agent")
    esc = new("escalated", "Migrate to the new queue")
    items.ready(repo, esc)
    items.transition(repo, esc, "checks_passed", actor="assayer")
    items.transition(repo, esc, "escalated", actor="assayer", open_findings=2)
    hm = new("hallmarked", "Document the CLI")
    items.ready(repo, hm)
    items.transition(repo, hm, "checks_passed", actor="assayer")
    items.transition(repo, hm, "hallmarked", actor="assayer")
    drp = new("dropped", "Try a new logger")
    items.drop(repo, drp, reason="not needed")
    items.record(
        repo,
        rev,
        "usage",
        actor="assayer",
        run=f"{STAMP}-review.jsonl",
        role="review",
        model="hallmark-standin",
        input_tokens=12000,
        output_tokens=3400,
        cache_read_tokens=50000,
        cache_write_tokens=2000,
        turns=3,
        duration_ms=42000,
        cost_usd=0.0,
        standin=True,
    )
    write_run(repo.paths.item_dir(rev) / "runs" / f"{STAMP}-review.jsonl", finished=True, item=rev)
    return ids


def stream_lines(item: str = "H-0003", n_tools: int = 3) -> list[dict[str, Any]]:
    """Real-format stream-json lines (init, assistant text and tool use, tool results, result)."""
    session = "1d1e46f9-35c7-4834-b529-846d5bb82288"
    lines: list[dict[str, Any]] = [
        {
            "type": "system",
            "subtype": "init",
            "cwd": "/work/repo-" + item,
            "session_id": session,
            "tools": ["Bash", "Read"],
            "mcp_servers": [],
            "model": "hallmark-standin",
            "permissionMode": "default",
            "claude_code_version": "2.1.7",
            "uuid": "u-0",
        }
    ]
    for i in range(n_tools):
        lines.append(
            {
                "type": "assistant",
                "message": {
                    "model": "hallmark-standin",
                    "id": f"msg_{i}",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Reading part {i} of the change."}],
                    "stop_reason": None,
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
                "parent_tool_use_id": None,
                "session_id": session,
                "uuid": f"a-{i}",
            }
        )
        lines.append(
            {
                "type": "assistant",
                "message": {
                    "model": "hallmark-standin",
                    "id": f"msg_{i}",
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{i}",
                            "name": "Bash",
                            "input": {"command": f"git diff --stat HEAD~{i + 1}"},
                        }
                    ],
                    "stop_reason": None,
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
                "parent_tool_use_id": None,
                "session_id": session,
                "uuid": f"b-{i}",
            }
        )
        lines.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": f"toolu_{i}",
                            "type": "tool_result",
                            "content": f" app.py | {i + 2} +-\n",
                            "is_error": False,
                        }
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": session,
                "uuid": f"c-{i}",
                "tool_use_result": {
                    "stdout": f" app.py | {i + 2} +-\n",
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                },
            }
        )
    lines.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 42000,
            "duration_api_ms": 40000,
            "num_turns": 3,
            "result": "No blockers.",
            "session_id": session,
            "total_cost_usd": 0.0,
            "usage": {
                "input_tokens": 12000,
                "output_tokens": 3400,
                "cache_read_input_tokens": 50000,
                "cache_creation_input_tokens": 2000,
            },
            "uuid": "r-0",
        }
    )
    return lines


def write_run(path: Path, *, finished: bool, item: str = "H-0003", n_tools: int = 3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = stream_lines(item, n_tools)
    if finished:
        lines.append(
            {
                "type": "hall_run_end",
                "role": "review",
                "item": item,
                "exit_code": 0,
                "duration_ms": 42000,
                "failure": None,
                "cwd": "/work/repo-" + item,
            }
        )
    else:
        lines = lines[:-1]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture
def busy(hall_repo, at):
    """(repo, ids): a building with an item in every state, viewed two hours after it was built."""
    ids = build_busy(hall_repo)
    at(VIEWED_AT)
    return hall_repo, ids
