"""PostToolUse: record commits; bind the session to the item when `hall new`, `hall adopt` or
`hall ask` ran (read from their JSON output); hand failures to the memory store's capture."""

from __future__ import annotations

import json
import os
import re

from hallmark.core import item_lookup
from hallmark.core.gates.ran import what_ran

from . import common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

BINDING_VERBS = frozenset({"new", "adopt", "ask"})
_ITEM = r"H-\d{1,9}"


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    _memory_capture(paths, payload)
    if event != "post-tool-use" or payload.get("tool_name") != "Bash":
        return None
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    session = raw if isinstance(raw := payload.get("session_id"), str) else ""
    hall_verbs, commit_dirs = what_ran(command, cwd)
    if hall_verbs & BINDING_VERBS and session:
        _bind(paths, session, _stdout(payload), sorted(hall_verbs & BINDING_VERBS))
    for directory in commit_dirs:
        _record_commit(paths, directory, session)
    return None


def _stdout(payload: dict[str, Any]) -> str:
    response = payload.get("tool_response")
    if isinstance(response, dict):
        out = response.get("stdout")
        return out if isinstance(out, str) else ""
    return response if isinstance(response, str) else ""


def _bind(paths: RepoPaths, session: str, stdout: str, verbs: list[str]) -> None:
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        item = data.get("item") if isinstance(data, dict) else None
        if isinstance(item, str) and re.fullmatch(_ITEM, item) and paths.item_journal(item).exists():
            previous = common.read_session(paths, session).get("item")
            common.update_session(paths, session, item=item)
            if previous != item:
                common.record(paths, item, "session_bound", session=session, via=f"hall {verbs[0]}")
            return


def _record_commit(paths: RepoPaths, directory: str, session: str) -> None:
    from hallmark.core.gates.run import capture

    if not os.path.isdir(directory):
        return
    result = capture(["git", "-C", directory, "log", "-1", "--format=%H%x00%B"])
    if result.returncode != 0:
        return
    sha, _, message = result.stdout.decode("utf-8", "replace").strip().partition("\x00")
    if not sha:
        return
    # the subject is the first paragraph with its lines joined (as git's %s): redacted as written,
    # before the join, so a token wrapped over two lines is still one token when judged
    paragraph = common.clip(message.strip().split("\n\n", 1)[0], 2000)
    subject = common.clip(" ".join(paragraph.split()), 300)
    view = item_lookup.item_for_session(paths, directory, session)
    common.record(paths, view.id if view else None, "commit", sha=sha, subject=subject, session=session, cwd=directory)


def _memory_capture(paths: RepoPaths, payload: dict[str, Any]) -> None:
    try:
        from hallmark.core.memory.failures import capture
    except Exception:  # noqa: BLE001 - that part may not be installed
        return
    try:
        capture(paths, payload)
    except Exception as exc:  # noqa: BLE001 - fail open, log
        common.log(paths, "post-tool-use", f"memory capture failed: {type(exc).__name__}: {exc}")
