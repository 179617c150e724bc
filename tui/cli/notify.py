"""Telling a person: `notify test|ntfy` and `statusline` (Claude Code's status line).

`hall statusline` runs after every assistant message, so this module imports nothing at its top but
the framework; each handler imports its core module.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hallmark.core.notify.results import NotifyTested, NtfySetUp

from .framework import Group, arg, command, with_next

notify_group = Group("notify", dest="notify_cmd")


def _here() -> Path | None:
    from hallmark.core.paths import hallmark_above

    paths = hallmark_above(Path.cwd())
    return paths.main_checkout if paths is not None else None


@notify_group.command(
    "test",
    "Send one test message on every channel that is on (in a repository: as it narrows them) and print what each answered.",
    replies=(NotifyTested,),
)
def cmd_notify_test(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.notify.probe import send_test

    done = send_test(_here())
    if not done.results:
        nxt = [f'edit {done.config}: [notify] channels = ["desktop", "ntfy"]', "hall notify ntfy"]
    else:
        nxt = ["hall doctor"] if done.ok else [f"edit {done.config}", "hall notify test"]
    return {**with_next(done, nxt), "_exit": 0 if done.ok else 1}


@notify_group.command(
    "ntfy",
    "Turn ntfy on in your config.toml with a random topic (subscribe to it in the ntfy app).",
    replies=(NtfySetUp,),
    args=[
        arg("--server", help="the ntfy server (default: the one set, else https://ntfy.sh)"),
        arg("--topic", help="a topic of your own instead of a random one"),
    ],
)
def cmd_notify_ntfy(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.notify.probe import setup_ntfy

    done = setup_ntfy(args.server, args.topic)
    return with_next(done, ["hall notify test", f"subscribe to {done.subscribe} in the ntfy app"])


@command("statusline")
def cmd_statusline(args: argparse.Namespace) -> None:
    """Print one line for Claude Code's statusLine setting from the JSON it passes on stdin.

    No reply type: the output is the line itself (Claude Code shows the first line printed), and it
    never fails: a bad payload or a directory outside Hallmark prints an empty line."""
    from hallmark.core.statusline import run_stdin

    raise SystemExit(run_stdin())
