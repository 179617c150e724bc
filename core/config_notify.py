"""`[notify]`: where a person is told that the loop needs them (core/notify/ sends it).

The channels, their URLs and tokens live in the user's own `<user data dir>/config.toml`: a
repository is shared, and a repository that could add a channel or a URL could send its inbox
anywhere. So `.hallmark.toml`'s `[notify]` may only narrow: turn notifications off (`enabled =
false`), keep a subset of the user's `channels`, or narrow a `[notify.route]`. Anything else there
is an error naming the key.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .config_raw import DEFAULTS

CHANNELS = ("desktop", "ntfy", "telegram", "slack")
PHONE = frozenset({"ntfy", "telegram", "slack"})  # held during quiet hours, one digest after
Channel = Literal["desktop", "ntfy", "telegram", "slack"]
REPO_KEYS = frozenset({"enabled", "channels", "route"})  # what a repository's [notify] may set
_HOURS = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$")
_D = DEFAULTS["notify"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _seconds(value: str, *, empty_ok: bool, at_most: float) -> str:
    from .clock import parse_duration

    if empty_ok and value in ("", "off", "none"):
        return value
    try:
        seconds = parse_duration(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a duration (e.g. 5s, 30m, 2h)") from None
    if not 0 < seconds <= at_most:
        raise ValueError(f"{value!r} is out of range (above 0, at most {int(at_most)}s)")
    return value


class NtfyConfig(_Strict):
    server: str = Field(_D["ntfy"]["server"], description="the ntfy server (https://ntfy.sh or your own)")
    topic: str = Field(_D["ntfy"]["topic"], description="the topic; `hall notify setup ntfy` makes a random one")
    token: str = Field(
        _D["ntfy"]["token"], description="an access token (Authorization: Bearer), if the server needs it"
    )


class TelegramConfig(_Strict):
    api: str = Field(_D["telegram"]["api"], description="the Bot API's base URL")
    token: str = Field(_D["telegram"]["token"], description="the bot's token from @BotFather")
    chat_id: str = Field(_D["telegram"]["chat_id"], description="the chat to write to")


class SlackConfig(_Strict):
    webhook: str = Field(_D["slack"]["webhook"], description="the incoming webhook's URL")


class NotifyConfig(_Strict):
    """In `<user data dir>/config.toml`. In `.hallmark.toml` only enabled, channels and route."""

    enabled: bool = Field(_D["enabled"], description="false: send nothing (a repository may turn it off)")
    channels: list[Channel] = Field(
        default_factory=lambda: list(_D["channels"]), description="the channels that are on (desktop, ntfy, …)"
    )
    terminal: Literal["bell", "osc9", "osc777", "off"] = Field(
        _D["terminal"], description="the terminal app on a new entry: its bell, or a desktop notification by OSC 9/777"
    )
    quiet_hours: str = Field(
        _D["quiet_hours"], description='"22:00-07:00", local time: phone channels hold, then send one digest'
    )
    remind: str = Field(_D["remind"], description='send a still-waiting entry again after this long ("" never)')
    remind_count: int = Field(_D["remind_count"], ge=0, le=20, description="at most this many reminders an entry")
    timeout: str = Field(_D["timeout"], description="each channel's bound per message (a failing channel waits)")
    ntfy: NtfyConfig = Field(default_factory=NtfyConfig)
    telegram: TelegramConfig = Field(default_factory=TelegramConfig)
    slack: SlackConfig = Field(default_factory=SlackConfig)
    route: dict[str, list[Channel]] = Field(
        default_factory=dict, description='inbox kind -> its channels (e.g. question = ["ntfy"]); others go to all'
    )

    @field_validator("quiet_hours")
    @classmethod
    def _hours(cls, value: str) -> str:
        if value and not _HOURS.match(value.strip()):
            raise ValueError(f'{value!r} is not a span of hours like "22:00-07:00"')
        return value.strip()

    @field_validator("remind")
    @classmethod
    def _remind(cls, value: str) -> str:
        return _seconds(value, empty_ok=True, at_most=30 * 86400)

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: str) -> str:
        return _seconds(value, empty_ok=False, at_most=60)


def repo_table_problem(table: object) -> str | None:
    """Why a repository's [notify] table is refused (None when it only narrows)."""
    if not isinstance(table, dict):
        return None
    extra = sorted(set(table) - REPO_KEYS)
    if extra:
        return (
            f"[notify] in the repository may only narrow (enabled, channels, route); "
            f"'{extra[0]}' belongs in your own config.toml"
        )
    return None
