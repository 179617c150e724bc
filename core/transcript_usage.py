"""What a Claude Code session's transcript gained since the last read: the usage of each API
response (one response is written as several assistant lines sharing `message.id`, each repeating
`usage`, often only the last with the final output_tokens, so responses are keyed by message id and
counted at their largest), claimed through the session's usage ledger (core/usage_ledger.py) so a
response another path already counted adds only what it grew by. The Stop hook reads it here.
Stdlib only (the hook path).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FIELDS = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
)


def read_usage(
    transcript: Any, state: dict[str, Any], state_dir: Any, session: str, *, claim: bool = True
) -> tuple[dict[str, Any], int]:
    """New usage in the transcript since the stored offset: (totals not counted before, new offset).

    With claim=False the offset moves on and nothing is counted (a headless run's own usage)."""
    totals: dict[str, Any] = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "responses": 0,
        "model": "",
    }
    offset = stored if isinstance(stored := state.get("transcript_offset"), int) else 0
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
    responses, models = _responses(data[:cut])
    if not claim or not responses:
        return totals, offset + cut
    from . import usage_ledger

    new, first = usage_ledger.claim(state_dir, session, responses)
    for key, grew in new.items():
        for _, target in FIELDS:
            totals[target] += grew.get(target, 0)
        if key in models:
            totals["model"] = models[key]
    totals["responses"] = len(first)
    return totals, offset + cut


def _responses(data: bytes) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """The usage of each assistant response in whole transcript lines (a response logged over several
    lines counts once, at its largest), and each response's model."""
    responses: dict[str, dict[str, int]] = {}
    models: dict[str, str] = {}
    for raw in data.split(b"\n"):
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
    return responses, models
