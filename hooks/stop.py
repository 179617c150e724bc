"""Stop: record the turn (its summary) and the token usage the transcript gained since last time.

The transcript is read from the byte offset stored in the session file. One API response is
written as several assistant lines sharing `message.id` and `requestId`, each repeating `usage`
(often only the last has the final output_tokens), so responses are keyed by both and counted
once, at their largest; a response seen across two turns only adds what it grew by.
"""

from __future__ import annotations

import json
import os

from hallmark.core.gates import itemstate

from . import common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

SUMMARY_LIMIT = 2000
SEEN_KEEP = 200
FIELDS = (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"),
          ("cache_read_input_tokens", "cache_read_tokens"), ("cache_creation_input_tokens", "cache_write_tokens"))


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    found = itemstate.item_for_session(paths, cwd, session)
    item = found["id"] if found else None
    state = common.read_session(paths, session) if session else {}
    usage, offset, seen = read_usage(payload.get("transcript_path"), state)
    summary = payload.get("last_assistant_message")
    fields: dict[str, Any] = {"session": session}
    if isinstance(summary, str) and summary.strip():
        fields["summary"] = summary.strip()[:SUMMARY_LIMIT]
    common.record(paths, item, "turn", **fields)
    if usage["responses"]:
        common.record(paths, item, "usage", run=session, role="session", model=usage["model"],
                      input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
                      cache_read_tokens=usage["cache_read_tokens"], cache_write_tokens=usage["cache_write_tokens"],
                      turns=1, responses=usage["responses"], duration_ms=0, standin=False)
    if session:
        common.update_session(paths, session, transcript_offset=offset, seen=seen,
                              transcript=str(payload.get("transcript_path") or ""))
    return None


def read_usage(transcript: Any, state: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, dict[str, int]]]:
    """New usage in the transcript since the stored offset: (totals, new offset, responses seen)."""
    totals: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                              "cache_write_tokens": 0, "responses": 0, "model": ""}
    seen: dict[str, dict[str, int]] = state.get("seen") if isinstance(state.get("seen"), dict) else {}
    offset = state.get("transcript_offset") if isinstance(state.get("transcript_offset"), int) else 0
    if state.get("transcript") and transcript and state.get("transcript") != transcript:
        offset, seen = 0, {}
    if not isinstance(transcript, str) or not transcript or not os.path.isfile(transcript):
        return totals, offset, seen
    try:
        size = os.path.getsize(transcript)
        if offset > size:  # rewritten or truncated: start again
            offset, seen = 0, {}
        with open(transcript, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return totals, offset, seen
    cut = data.rfind(b"\n") + 1
    for raw in data[:cut].split(b"\n"):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("type") != "assistant":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        key = f"{message.get('id', '')}|{entry.get('requestId', '')}"
        if key == "|":
            key = str(entry.get("uuid", ""))
        now = {}
        for source, target in FIELDS:
            value = message["usage"].get(source)
            now[target] = value if isinstance(value, int) and value >= 0 else 0
        before = seen.get(key, {})
        if not before:
            totals["responses"] += 1
        for target, value in now.items():
            grew = value - int(before.get(target, 0) or 0)
            if grew > 0:
                totals[target] += grew
        seen[key] = {t: max(v, int(before.get(t, 0) or 0)) for t, v in now.items()}
        if isinstance(message.get("model"), str):
            totals["model"] = message["model"]
    if len(seen) > SEEN_KEEP:
        seen = dict(list(seen.items())[-SEEN_KEEP:])
    return totals, offset + cut, seen
