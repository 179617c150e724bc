"""`hall notify test` (one test message on every channel that is on, and what each answered),
`hall notify setup ntfy` (a random topic in the user's config.toml) and the doctor's row."""

from __future__ import annotations

import json
import secrets as _random
from pathlib import Path

from hallmark.core import atomic
from hallmark.core.setup_results import Check

from . import channels, state
from .message import test_message
from .results import ChannelAnswer, NotifyTested, NtfySetUp
from .settings import Settings, effective, read_user_table, user_config, user_config_path


def _settings(main_checkout: Path | None) -> Settings:
    if main_checkout is None:
        return effective(user_config())
    from hallmark.core.config import load

    load(main_checkout)  # a repository's [notify] that does more than narrow is refused here too
    from .settings import for_repo

    return for_repo(main_checkout)


def send_test(main_checkout: Path | None) -> NotifyTested:
    """Send the test message on every channel in force here (in a repository: after its narrowing)."""
    settings = _settings(main_checkout)
    repo = main_checkout.name if main_checkout else ""
    answers = tuple(
        ChannelAnswer(channel=s.channel, ok=s.ok, answer=s.answer)
        for s in (channels.send(c, settings.config, test_message(repo), settings.timeout_s) for c in settings.channels)
    )
    return NotifyTested(
        ok=bool(answers) and all(a.ok for a in answers),
        results=answers,
        incomplete=dict(settings.incomplete),
        config=str(user_config_path()),
    )


def setup_ntfy(server: str | None = None, topic: str | None = None) -> NtfySetUp:
    """Write [notify.ntfy] server and a topic (random: 128 bits, so nobody guesses it) into the user's
    config.toml and turn the ntfy channel on; the file must still validate."""
    from hallmark.core.loop.budget import _set_in_toml

    path = user_config_path()
    current = user_config()  # a broken file is reported before anything is written
    table = read_user_table()
    server = (server or table.get("ntfy", {}).get("server") or current.ntfy.server).rstrip("/")
    topic = topic or f"hallmark-{_random.token_urlsafe(16)}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    text = _set_in_toml(text, "notify.ntfy", "server", json.dumps(server))
    text = _set_in_toml(text, "notify.ntfy", "topic", json.dumps(topic))
    wanted = list(dict.fromkeys([*current.channels, "ntfy"]))
    text = _set_in_toml(text, "notify", "channels", json.dumps(wanted))
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    atomic.write_text(path, text)
    try:
        user_config()
    except Exception:
        if before is None:
            path.unlink()
        else:
            atomic.write_text(path, before)
        raise
    return NtfySetUp(server=server, topic=topic, subscribe=f"{server}/{topic}", config=str(path))


def doctor_check(state_dir: Path, main_checkout: Path) -> Check:
    """One row: the channels in force, those lacking a key, and each channel failing now."""
    from hallmark.core.errors import HallError

    try:
        settings = _settings(main_checkout)
    except HallError as exc:
        return Check(check="notify", ok=False, detail=exc.message, fix=exc.next[0] if exc.next else None, optional=True)
    failing = state.read(state_dir)["failing"]
    problems = [f"{c}: {why}" for c, why in settings.incomplete.items()]
    problems += [f"{c} failing since {f.get('since')}: {f.get('answer')}" for c, f in failing.items()]
    on = ", ".join(settings.channels) or "none"
    detail = f"channels: {on}" + (f"; {'; '.join(problems)}" if problems else "")
    fix = None if not problems else "hall notify test"
    return Check(check="notify", ok=not problems, detail=detail, fix=fix, optional=True)
