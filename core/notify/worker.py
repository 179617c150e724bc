"""The daemon's notify worker: one pass over what waits for you in one repository.

It reads the same derived inbox the app's footer and `hall inbox` count (core/waiting.py, dismissals
applied), so a dismissed entry is never sent and a notice never is (notices are not inbox entries).
Each entry is sent once per channel, keyed by its fingerprint: again only when it changes, or when
`remind` comes due (at most `remind_count` times). During quiet hours the phone channels hold
what they would send, and send one digest when the hours end. A channel that fails is recorded
once (a notice, and `hall doctor` reads the state) and tried again after a back-off, never in a
tight loop; each try is bounded by `timeout`, so a dead server never stalls the pass.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from hallmark.core import clock, items
from hallmark.core.config_notify import PHONE
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.waiting import waiting_for_you

from . import channels, state
from .message import Message, digest, from_entry
from .settings import Settings, for_repo

OUTCOMES = frozenset({"notified", "notify_held", "notify_failed"})  # news, never work for the loop


def load_settings(repo: Repo) -> Settings | None:
    """The settings, or None when they cannot be read (recorded once as a notice, not every pass)."""
    try:
        repo.config  # noqa: B018 - validates the repository's [notify] (it may only narrow)
        return for_repo(repo.paths.main_checkout)
    except HallError as exc:
        text = f"notifications are off in this repo: {exc.message}"
        with state.changing(repo.state_dir) as data:
            if data.get("config_problem") != text:
                data["config_problem"] = text
                items.record(repo, None, "notice", actor="notify", kind="notify_config", text=text, next=exc.next)
        return None


def notify_pass(repo: Repo, now: datetime | None = None) -> list[dict[str, Any]]:
    """Send what is due; returns one step per message sent, held or failed."""
    settings = load_settings(repo)
    if settings is None or not settings.channels:
        return []
    now = now or clock.now()
    waiting = waiting_for_you(repo)
    titles = {v.id: v.title for v in repo.index.items(include_terminal=False)}
    steps: list[dict[str, Any]] = []
    with state.changing(repo.state_dir) as data:
        data.pop("config_problem", None)
        current = {e.key: e.fingerprint for e in waiting.entries}
        data["sent"] = {k: v for k, v in data["sent"].items() if current.get(k) == v.get("fingerprint")}
        for channel, held in list(data["held"].items()):
            data["held"][channel] = [h for h in held if current.get(h.get("key")) == h.get("fingerprint")]
        quiet = settings.quiet(now)
        for entry in waiting.entries:
            record = data["sent"].get(entry.key) or {"fingerprint": entry.fingerprint, "reminders": 0, "channels": {}}
            routed = settings.for_kind(entry.kind)
            if _reminder_due(settings, record, routed, now):
                record["reminders"] += 1
                record["channels"] = {}
            message = from_entry(entry, titles.get(entry.item or "", ""), repo.root.name)
            message = replace(message, reminder=record["reminders"])
            sent_to = []
            for channel in routed:
                if record["channels"].get(channel) == entry.fingerprint:
                    continue
                if quiet and channel in PHONE:
                    _hold(data, channel, message)
                    record["channels"][channel] = entry.fingerprint
                    steps.append(_step(message, "notify_held", channel))
                    continue
                if _deliver(repo, settings, data, channel, message, now, steps):
                    record["channels"][channel] = entry.fingerprint
                    sent_to.append(channel)
            if sent_to:
                record["at"] = clock.stamp(now)
            data["sent"][entry.key] = record
        if not quiet:
            _send_digests(repo, settings, data, now, steps)
    return steps


def _reminder_due(settings: Settings, record: dict[str, Any], routed: tuple[str, ...], now: datetime) -> bool:
    every = settings.remind_s
    if every is None or not record.get("at") or record["reminders"] >= settings.config.remind_count:
        return False
    if any(record["channels"].get(c) != record["fingerprint"] for c in routed):
        return False  # the first round has not reached every channel yet
    return (now - clock.parse_time(record["at"])).total_seconds() >= every


def _hold(data: dict[str, Any], channel: str, message: Message) -> None:
    held = [h for h in data["held"].get(channel, []) if h.get("key") != message.key]
    held.append(dict(message.__dict__, options=list(message.options)))
    data["held"][channel] = held


def _send_digests(repo: Repo, settings: Settings, data: dict[str, Any], now: datetime, steps: list) -> None:
    for channel, held in list(data["held"].items()):
        if not held:
            data["held"].pop(channel)
            continue
        if channel not in settings.channels:  # turned off since: nothing to send it on
            data["held"].pop(channel)
            continue
        one = digest([Message(**{**h, "options": tuple(h.get("options") or ())}) for h in held], repo.root.name)
        if _deliver(repo, settings, data, channel, one, now, steps):
            data["held"].pop(channel)


def _deliver(
    repo: Repo, settings: Settings, data: dict[str, Any], channel: str, message: Message, now: datetime, steps: list
) -> bool:
    """Send on one channel unless it is backing off; record a first failure once and a recovery."""
    failing = data["failing"].get(channel)
    if failing and clock.parse_time(failing["retry_at"]) > now:
        return False
    sent = channels.send(channel, settings.config, message, settings.timeout_s)
    if sent.ok:
        if failing:
            data["failing"].pop(channel)
            items.record(repo, None, "notice", actor="notify", kind="notify_recovered", text=f"{channel} sends again")
        steps.append(_step(message, "notified", channel))
        return True
    failures = int(failing["failures"]) + 1 if failing else 1
    retry_at = clock.stamp(datetime.fromtimestamp(now.timestamp() + state.backoff(failures), tz=now.tzinfo))
    data["failing"][channel] = {
        "since": failing["since"] if failing else clock.stamp(now),
        "answer": sent.answer,
        "failures": failures,
        "retry_at": retry_at,
    }
    if not failing:
        items.record(
            repo,
            None,
            "notice",
            actor="notify",
            kind="notify_failed",
            text=f"notify: {channel} failed ({sent.answer}); tried again from {retry_at}",
            next=["hall notify test", "hall doctor"],
        )
    steps.append({**_step(message, "notify_failed", channel), "answer": sent.answer})
    return False


def _step(message: Message, outcome: str, channel: str) -> dict[str, Any]:
    return {"item": message.item, "step": "notify", "outcome": outcome, "key": message.key, "channel": channel}
