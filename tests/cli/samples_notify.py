"""Samples of the notify results (core/notify/results.py, setup_results.StatusLineSet), for
tests/cli/test_results.py: one of each type, every optional key left out."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results, setup_results
from hallmark.core.notify import results as notify_results

ANSWER = notify_results.ChannelAnswer(channel="ntfy", ok=True, answer='200 {"id":"x1"}')
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    notify_results.ChannelAnswer: lambda: ANSWER,
    notify_results.NotifyTested: lambda: notify_results.NotifyTested(
        ok=True, results=(ANSWER,), incomplete={}, config="/h/hallmark/config.toml"
    ),
    notify_results.NtfySetUp: lambda: notify_results.NtfySetUp(
        server="https://ntfy.sh",
        topic="hallmark-x",
        subscribe="https://ntfy.sh/hallmark-x",
        config="/h/hallmark/config.toml",
    ),
    setup_results.StatusLineSet: lambda: setup_results.StatusLineSet(
        settings="/h/.claude/settings.json",
        command="/v/bin/hall-hook statusline",
        installed=True,
        existing=None,
        dry_run=False,
    ),
}
