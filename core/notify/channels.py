"""Sending one message on one channel, within a bound: the desktop (notify-send over D-Bus on Linux,
osascript on macOS), ntfy (`POST <server>/<topic>` with Title, Priority and Tags headers), Telegram
(`sendMessage`) and a Slack incoming webhook. Each answers what the other side said; nothing here
retries (the worker backs a failing channel off) and nothing raises.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass

from hallmark.core import secrets
from hallmark.core.config_notify import NotifyConfig

from .message import Message, priority, tags

USER_AGENT = "hallmark-notify"
MAX_ANSWER = 400  # what is kept of the other side's reply


@dataclass(frozen=True)
class Sent:
    channel: str
    ok: bool
    answer: str  # "200 OK", "notify-send: exit 0", "connection refused", …


def _header(value: str) -> str:
    """An HTTP header value: ASCII as is, anything else RFC 2047-encoded as ntfy's docs show
    (`=?UTF-8?B?…?=`; ntfy decodes it)."""
    if value.isascii():
        return value
    import base64

    return f"=?UTF-8?B?{base64.b64encode(value.encode()).decode()}?="


def _post(channel: str, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Sent:
    """POST within `timeout`; the answer never repeats the URL (a webhook's or a bot's URL is its
    secret) and passes the secret scanner, since a failure's answer is written to the journal."""
    ok, answer = False, ""
    try:
        request = urllib.request.Request(url, data=body, method="POST", headers={"User-Agent": USER_AGENT, **headers})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read(MAX_ANSWER).decode("utf-8", "replace")
            ok, answer = 200 <= response.status < 300, f"{response.status} {text}".strip()
    except urllib.error.HTTPError as exc:
        text = exc.read(MAX_ANSWER).decode("utf-8", "replace") if exc.fp else ""
        answer = f"{exc.code} {text}".strip()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        answer = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
    return Sent(channel, ok, secrets.redact(answer.replace(url, "<the URL>")) if url else answer)


def ntfy(config: NotifyConfig, message: Message, timeout: float) -> Sent:
    url = f"{config.ntfy.server.rstrip('/')}/{config.ntfy.topic}"
    headers = {
        "Title": _header(message.headline),
        "Priority": priority(message.kind),
        "Tags": tags(message.kind),
        "Content-Type": "text/plain; charset=utf-8",
    }
    if config.ntfy.token:
        headers["Authorization"] = f"Bearer {config.ntfy.token}"
    return _post("ntfy", url, message.body.encode(), headers, timeout)


def telegram(config: NotifyConfig, message: Message, timeout: float) -> Sent:
    url = f"{config.telegram.api.rstrip('/')}/bot{config.telegram.token}/sendMessage"
    payload = {
        "chat_id": config.telegram.chat_id,
        "text": f"{message.headline}\n{message.body}",
        "disable_web_page_preview": True,
    }
    sent = _post("telegram", url, json.dumps(payload).encode(), {"Content-Type": "application/json"}, timeout)
    return Sent(sent.channel, sent.ok, sent.answer.replace(config.telegram.token, "<token>"))


def slack(config: NotifyConfig, message: Message, timeout: float) -> Sent:
    payload = {"text": f"*{message.headline}*\n{message.body}"}
    return _post(
        "slack", config.slack.webhook, json.dumps(payload).encode(), {"Content-Type": "application/json"}, timeout
    )


def desktop_command(message: Message) -> list[str] | None:
    """The command that shows the notification on this platform (None where there is none)."""
    if sys.platform == "darwin":
        script = f"display notification {_applescript(message.body)} with title {_applescript(message.headline)}"
        return ["osascript", "-e", script]
    binary = shutil.which("notify-send")
    if binary is None:
        return None
    urgency = "critical" if priority(message.kind) == "high" else "normal"
    return [binary, "--app-name=Hallmark", f"--urgency={urgency}", "--", message.headline, message.body]


def _applescript(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def desktop(config: NotifyConfig, message: Message, timeout: float) -> Sent:
    argv = desktop_command(message)
    if argv is None:
        return Sent("desktop", False, "notify-send not found (Debian: apt-get install libnotify-bin)")
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Sent("desktop", False, f"{argv[0]} timed out after {timeout:g}s")
    except OSError as exc:
        return Sent("desktop", False, f"{argv[0]}: {exc}")
    said = (proc.stderr or proc.stdout).strip()[:MAX_ANSWER]
    name = argv[0].rsplit("/", 1)[-1]
    return Sent("desktop", proc.returncode == 0, f"{name}: exit {proc.returncode}{': ' + said if said else ''}")


SENDERS = {"desktop": desktop, "ntfy": ntfy, "telegram": telegram, "slack": slack}


def send(channel: str, config: NotifyConfig, message: Message, timeout: float) -> Sent:
    try:
        return SENDERS[channel](config, message, timeout)
    except Exception as exc:  # noqa: BLE001 - a channel's surprise is its answer, never the daemon's crash
        return Sent(channel, False, f"internal error: {type(exc).__name__}: {exc}")
