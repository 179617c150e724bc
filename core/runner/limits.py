"""What a headless run's stream says about limits, errors and usage, as Claude Code reports them.

Read with the real CLI 2.1.332 against the scripted model server:

- A plan limit (claude.ai sign-in): a `rate_limit_event` line with `rate_limit_info.status:
  "rejected"` and `resetsAt` (epoch seconds), then a synthetic assistant line and a result whose
  text is "You've hit your 5-hour limit · resets 2:49pm (UTC)", `api_error_status: 429`,
  `api_error: "usage_limit_reached"`. No retry.
- An API 429 (API key): Claude Code retries itself (`system/api_retry` lines, up to
  `max_retries`), then ends with "API Error: Request rejected (429) · …", `api_error_status: 429`
  and no reset time.
- 529 overloaded / 5xx: retried the same way, then an error result with that status.
- A killed run has no result line: its usage is summed from the assistant lines, one response per
  `message.id` at its largest figures.

Each maps to what the seed asks: a plan or rate limit pauses the model workers until the reset; an
overloaded API is retried after a short pause (not the item's fault); anything else is a failure.
Stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hallmark.core import clock

RATE_PAUSE_S = 300  # an API rate limit after Claude Code's own retries: try again in five minutes
OVERLOADED_PAUSE_S = 60  # an overloaded or failing API after Claude Code's own retries
USAGE_FIELDS = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
)
_HIT = re.compile(r"hit your (?:[\w-]+ )*limit|usage limit reached|usage_limit_reached", re.I)
_OLD_RESET = re.compile(r"limit reached\|(\d{9,11})")
_RESETS = re.compile(
    r"resets\s+(?:(?:on\s+)?(?P<mon>[A-Z][a-z]{2,8})\.?\s+(?P<day>\d{1,2}),?\s+(?:at\s+)?)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>am|pm)"
    r"(?:\s*\((?P<tz>[^)]+)\))?",
    re.I,
)
_MONTHS = {
    m: i for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)
}


@dataclass
class Limit:
    """A limit the run hit: `plan`, `rate` or `overloaded`, and when the loop may try again."""

    kind: str
    resets_at: str | None
    detail: str = ""


@dataclass
class StreamFacts:
    """Read line by line: rate-limit events, API errors, retries and per-response usage."""

    rejected_until: int | None = None  # rate_limit_event resetsAt (epoch seconds)
    rate_limit_type: str = ""
    api_status: int | None = None
    api_error: str = ""
    error_text: str = ""
    retries: int = 0
    responses: dict[str, dict[str, Any]] = field(default_factory=dict)  # message id -> figures + model

    def see(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "rate_limit_event":
            info = got if isinstance(got := record.get("rate_limit_info"), dict) else {}
            if info.get("status") == "rejected":
                self.rejected_until = _epoch(info.get("resetsAt")) or self.rejected_until
                self.rate_limit_type = str(info.get("rateLimitType") or "")
        elif kind == "system" and record.get("subtype") == "api_retry":
            self.retries += 1
            self.api_status = _status(record.get("error_status")) or self.api_status
        elif kind == "assistant":
            self._assistant(record)

    def _assistant(self, record: dict[str, Any]) -> None:
        message = got if isinstance(got := record.get("message"), dict) else {}
        if record.get("is_api_error_message") or record.get("error"):
            self.api_status = _status(record.get("api_error_status")) or self.api_status
            self.api_error = str(record.get("api_error") or record.get("error") or self.api_error)
            params = got if isinstance(got := record.get("api_error_params"), dict) else {}
            info = got if isinstance(got := params.get("rate_limit_info"), dict) else {}
            if info.get("status") == "rejected":
                self.rejected_until = _epoch(info.get("resetsAt")) or self.rejected_until
            self.error_text = " ".join(
                str(b.get("text", "")) for b in message.get("content") or [] if isinstance(b, dict)
            )
            return
        usage = message.get("usage")
        message_id = message.get("id")
        if not isinstance(usage, dict) or not isinstance(message_id, str) or not message_id:
            return
        before = self.responses.get(message_id, {})
        now: dict[str, Any] = {
            target: max(_int(usage.get(source)), _int(before.get(target))) for source, target in USAGE_FIELDS
        }
        now["model"] = str(message.get("model") or before.get("model") or "")
        self.responses[message_id] = now


def limit_of(
    result: dict[str, Any] | None, facts: StreamFacts, stderr_tail: str = "", now: datetime | None = None
) -> Limit | None:
    """The limit a failed run hit, or None when its failure is of another kind."""
    now = now or clock.now()
    result = result or {}
    status = _status(result.get("api_error_status")) or facts.api_status
    api_error = str(result.get("api_error") or facts.api_error or "")
    text = " ".join(
        str(x)
        for x in (
            result.get("result") or "",
            facts.error_text,
            stderr_tail,
            " ".join(map(str, result.get("errors") or [])),
        )
        if x
    )
    plan = facts.rejected_until is not None or api_error == "usage_limit_reached" or bool(_HIT.search(text))
    if plan:
        until = facts.rejected_until
        resets = _stamp(until) if until else (old_reset(text) or reset_from_text(text, now))
        return Limit("plan", resets, text.strip()[:300])
    if status == 429 or "rate_limit" in api_error or "rate_limit_error" in text or "rate limit" in text.lower():
        return Limit("rate", clock.stamp(now + timedelta(seconds=RATE_PAUSE_S)), text.strip()[:300])
    if status == 529 or (status is not None and status >= 500) or "overloaded" in text.lower():
        return Limit("overloaded", clock.stamp(now + timedelta(seconds=OVERLOADED_PAUSE_S)), text.strip()[:300])
    return None


def old_reset(text: str) -> str | None:
    """Older CLIs: `Claude AI usage limit reached|<epoch>`."""
    match = _OLD_RESET.search(text)
    return _stamp(int(match.group(1))) if match else None


def reset_from_text(text: str, now: datetime) -> str | None:
    """`resets 8pm (Europe/Berlin)`, `resets 2:49pm (UTC)`, `resets Dec 3, 9am (UTC)`: the next such
    moment after now (a time zone Python does not know is read as UTC)."""
    match = _RESETS.search(text)
    if not match:
        return None
    hour = int(match.group("hour")) % 12 + (12 if match.group("ampm").lower() == "pm" else 0)
    minute = int(match.group("minute") or 0)
    if minute > 59:
        return None
    zone = _zone(match.group("tz"))
    local_now = now.astimezone(zone)
    month_name = (match.group("mon") or "").lower()[:3]
    if month_name:
        month = _MONTHS.get(month_name)
        if month is None:
            return None
        try:
            moment = local_now.replace(
                month=month, day=int(match.group("day")), hour=hour, minute=minute, second=0, microsecond=0
            )
        except ValueError:
            return None
        if moment <= local_now:
            try:
                moment = moment.replace(year=moment.year + 1)
            except ValueError:
                return None
    else:
        moment = local_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if moment <= local_now:
            moment += timedelta(days=1)
    return clock.stamp(moment.astimezone(UTC))


def fallback_rows(facts: StreamFacts, fallback_model: str) -> list[dict[str, Any]]:
    """Usage per model from the assistant lines (a run with no result line, e.g. killed)."""
    by_model: dict[str, dict[str, Any]] = {}
    for figures in facts.responses.values():
        model = figures.get("model") or fallback_model or "unknown"
        row = by_model.setdefault(
            model,
            {
                "model": model,
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_read_tokens": 0,
                "cache_write_tokens": 0,
                "reported_cost_usd": 0.0,
            },
        )
        for _, target in USAGE_FIELDS:
            row[target] += _int(figures.get(target))
    return list(by_model.values())


def _zone(name: str | None) -> Any:
    if not name:
        return UTC
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name.strip())
    except (ValueError, KeyError, OSError, ImportError):
        return UTC
    except Exception:  # noqa: BLE001 - zoneinfo raises its own error types for odd names
        return UTC


def _epoch(value: Any) -> int | None:
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        return None
    return number // 1000 if number > 10**11 else number  # milliseconds, now and then


def _stamp(epoch: int) -> str:
    return clock.stamp(datetime.fromtimestamp(epoch, UTC))


def _status(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0
