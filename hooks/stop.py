"""Stop: record the turn (its summary) and the token usage the transcript gained since last time
(core/transcript_usage.py reads it from the byte offset stored in the session file). In a headless
run Hallmark started (`HALL_RUN` set by the runner) the runner records the run's usage once, so
this hook leaves it alone.
"""

from __future__ import annotations

import os

from hallmark.core import item_lookup
from hallmark.core.transcript_usage import FIELDS, read_usage

from . import common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

SUMMARY_LIMIT = 2000


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = raw if isinstance(raw := payload.get("session_id"), str) else ""
    found = item_lookup.item_for_session(paths, cwd, session)
    item = found.id if found else None
    state = common.read_session(paths, session) if session else {}
    headless = bool(os.environ.get("HALL_RUN"))
    usage, offset = read_usage(payload.get("transcript_path"), state, paths.state_dir, session, claim=not headless)
    summary = payload.get("last_assistant_message")
    fields: dict[str, Any] = {"session": session}
    if isinstance(summary, str) and summary.strip():
        fields["summary"] = common.clip(summary.strip(), SUMMARY_LIMIT)
    common.record(paths, item, "turn", **fields)
    if usage["responses"] or any(usage[f] for _, f in FIELDS):
        common.record(
            paths,
            item,
            "usage",
            run=session,
            role="session",
            model=usage["model"],
            input_tokens=usage["input_tokens"],
            output_tokens=usage["output_tokens"],
            cache_read_tokens=usage["cache_read_tokens"],
            cache_write_tokens=usage["cache_write_tokens"],
            turns=1,
            responses=usage["responses"],
            duration_ms=0,
            standin=False,
        )
    if session:
        common.update_session(
            paths, session, transcript_offset=offset, transcript=str(payload.get("transcript_path") or "")
        )
    return None
