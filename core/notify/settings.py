"""The [notify] settings in force for one repository: the user's own table (config.toml in the user
data dir), narrowed by the repository's `.hallmark.toml` (off, a subset of channels, a narrower
route; core/config_notify.py refuses anything else there)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from typing import Any

from hallmark.core.config_notify import CHANNELS, NotifyConfig
from hallmark.core.errors import HallError
from hallmark.core.paths import user_data_dir

MAX_CONFIG_BYTES = 1 << 20


def user_config_path() -> Path:
    return user_data_dir() / "config.toml"


def read_user_table() -> dict[str, Any]:
    """The user's [notify] table as written ({} without a file); a bad file is INVALID_CONFIG."""
    path = user_config_path()
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise HallError("INVALID_CONFIG", f"{path} is over {MAX_CONFIG_BYTES} bytes.", [f"edit {path}"])
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HallError("INVALID_CONFIG", f"{path}: {exc}", [f"edit {path}", "hall doctor"]) from exc
    table = data.get("notify", {})
    if not isinstance(table, dict):
        raise HallError("INVALID_CONFIG", f"{path}: [notify] must be a table.", [f"edit {path}"])
    return table


def user_config() -> NotifyConfig:
    from pydantic import ValidationError

    try:
        return NotifyConfig.model_validate(read_user_table())
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "notify"
        raise HallError(
            "INVALID_CONFIG",
            f"{user_config_path()}: key 'notify.{key}': {first.get('msg', 'invalid')}.",
            [f"edit {user_config_path()}", "hall schema config"],
        ) from exc


@dataclass(frozen=True)
class Settings:
    """What the worker sends through, and when."""

    config: NotifyConfig  # the user's (URLs, tokens, quiet hours, reminders)
    channels: tuple[str, ...] = ()  # on and complete, after the repository's narrowing
    incomplete: dict[str, str] = field(default_factory=dict)  # channel -> what it lacks
    route: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def for_kind(self, kind: str) -> tuple[str, ...]:
        """The channels an inbox kind goes to ([notify.route], else every channel that is on)."""
        chosen = self.route.get(kind)
        return self.channels if chosen is None else tuple(c for c in self.channels if c in chosen)

    @property
    def remind_s(self) -> float | None:
        from hallmark.core.clock import parse_duration

        value = self.config.remind
        return None if value in ("", "off", "none") else parse_duration(value)

    @property
    def timeout_s(self) -> float:
        from hallmark.core.clock import parse_duration

        return parse_duration(self.config.timeout)

    def quiet(self, moment: datetime) -> bool:
        """True inside quiet hours (local time; a span may cross midnight)."""
        return in_quiet_hours(self.config.quiet_hours, moment)


def in_quiet_hours(span: str, moment: datetime) -> bool:
    if not span:
        return False
    start_text, end_text = span.split("-")
    start, end = (time(int(t[:2]), int(t[3:])) for t in (start_text, end_text))
    now = moment.astimezone().time()
    if start <= end:
        return start <= now < end
    return now >= start or now < end


def missing(config: NotifyConfig, channel: str) -> str | None:
    """What a channel lacks to send anything (None when it is complete)."""
    needs = {
        "ntfy": [("ntfy.server", config.ntfy.server), ("ntfy.topic", config.ntfy.topic)],
        "telegram": [("telegram.token", config.telegram.token), ("telegram.chat_id", config.telegram.chat_id)],
        "slack": [("slack.webhook", config.slack.webhook)],
    }.get(channel, [])
    lacking = [name for name, value in needs if not value]
    return f"[notify] {', '.join(lacking)} is not set" if lacking else None


def effective(user: NotifyConfig, repo_table: dict[str, Any] | None = None) -> Settings:
    """The user's settings narrowed by a repository's [notify] table (as written in .hallmark.toml)."""
    repo_table = repo_table or {}
    on = user.enabled and repo_table.get("enabled", True) is not False
    wanted: list[str] = [c for c in CHANNELS if c in user.channels]
    if "channels" in repo_table:
        wanted = [c for c in wanted if c in (repo_table.get("channels") or [])]
    incomplete = {c: why for c in wanted if (why := missing(user, c))}
    channels = tuple(c for c in wanted if c not in incomplete) if on else ()
    route: dict[str, tuple[str, ...]] = {kind: tuple(chosen) for kind, chosen in user.route.items()}
    for kind, chosen in (repo_table.get("route") or {}).items():
        narrower = tuple(c for c in route.get(kind, channels) if c in chosen)
        route[kind] = narrower
    return Settings(config=user, channels=channels, incomplete=incomplete, route=route)


def for_repo(main_checkout: Path) -> Settings:
    """The settings in force in a repository (its .hallmark.toml validated by the caller's Config)."""
    from hallmark.core import config_raw

    table = config_raw.read(main_checkout).get("notify")
    return effective(user_config(), table if isinstance(table, dict) else None)
