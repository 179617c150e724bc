"""Stop: record the turn (its summary) and the token usage the transcript gained since last time.

The transcript is read from the byte offset stored in the session file. One API response is
written as several assistant lines sharing `message.id`, each repeating `usage` (often only the last
has the final output_tokens), so responses are keyed by message id and counted at their largest,
through the session's usage ledger (core/usage_ledger.py): a response another path already
counted, or this hook in an earlier turn, adds only what it grew by. In a headless run Hallmark
started (`HALL_RUN` set by the runner) the runner records the run's usage once, so this hook
leaves it alone.
"""

from __future__ import annotations

import json
import os

from hallmark.core import item_lookup

from . import common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

SUMMARY_LIMIT = 2000
FIELDS = (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"),
          ("cache_read_input_tokens", "cache_read_tokens"), ("cache_creation_input_tokens", "cache_write_tokens"))


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    found = item_lookup.item_for_session(paths, cwd, session)
    item = found.id if found else None
    state = common.read_session(paths, session) if session else {}
    headless = bool(os.environ.get("HALL_RUN"))
    usage, offset = read_usage(payload.get("transcript_path"), state, paths.state_dir, session, claim=not headless)
    summary = payload.get("last_assistant_message")
    fields: dict[str, Any] = {"session": session}
    if isinstance(summary, str) and summary.strip():
        fields["summary"] = summary.strip()[:SUMMARY_LIMIT]
    common.record(paths, item, "turn", **fields)
    if usage["responses"] or any(usage[f] for _, f in FIELDS):
        common.record(paths, item, "usage", run=session, role="session", model=usage["model"],
                      input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
                      cache_read_tokens=usage["cache_read_tokens"], cache_write_tokens=usage["cache_write_tokens"],
                      turns=1, responses=usage["responses"], duration_ms=0, standin=False)
    if session:
        common.update_session(paths, session, transcript_offset=offset,
                              transcript=str(payload.get("transcript_path") or ""))
    return None


def read_usage(transcript: Any, state: dict[str, Any], state_dir: Any, session: str, *,
               claim: bool = True) -> tuple[dict[str, Any], int]:
    """New usage in the transcript since the stored offset: (totals not counted before, new offset).

    With claim=False the offset moves on and nothing is counted (a headless run's own usage)."""
    totals: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                              "cache_write_tokens": 0, "responses": 0, "model": ""}
    offset = state.get("transcript_offset") if isinstance(state.get("transcript_offset"), int) else 0
    if state.get("transcript") and transcript and state.get("transcript") != transcript:
        offset = 0
    if not isinstance(transcript, str) or not transcript or not os.path.isfile(transcript):
        return totals, offset
    try:
        size = os.path.getsize(transcript)
        if offset > size:  # rewritten or truncated: start again (the ledger keeps what was counted)
            offset = 0
        with open(transcript, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return totals, offset
    cut = data.rfind(b"\n") + 1
    responses: dict[str, dict[str, int]] = {}
    models: dict[str, str] = {}
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
        key = str(message.get("id") or entry.get("requestId") or entry.get("uuid") or "")
        if not key:
            continue
        before = responses.get(key, {})
        for source, target in FIELDS:
            value = message["usage"].get(source)
            value = value if isinstance(value, int) and value >= 0 else 0
            before[target] = max(value, before.get(target, 0))
        responses[key] = before
        if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
            models[key] = message["model"]
    if not claim or not responses:
        return totals, offset + cut
    from hallmark.core import usage_ledger

    new, first = usage_ledger.claim(state_dir, session, responses)
    for key, grew in new.items():
        for _, target in FIELDS:
            totals[target] += grew.get(target, 0)
        if key in models:
            totals["model"] = models[key]
    totals["responses"] = len(first)
    return totals, offset + cut
