"""The replies of `hall notify test` and `hall notify setup ntfy`."""

from __future__ import annotations

from hallmark.core.results import Result


class ChannelAnswer(Result):
    """One channel's answer to the test message: what the other side said ("200 …", "exit 0")."""

    channel: str
    ok: bool
    answer: str


class NotifyTested(Result):
    """`hall notify test`: one test message on every channel that is on, and what each answered;
    the channels listed but lacking a key, and why; ok when every channel that is on answered."""

    ok: bool
    results: tuple[ChannelAnswer, ...]
    incomplete: dict[str, str]
    config: str  # the user's config.toml, where channels are set


class NtfySetUp(Result):
    """`hall notify setup ntfy`: the topic (random unless given), the server, and the file written."""

    server: str
    topic: str
    subscribe: str  # the URL to subscribe to in the ntfy app
    config: str
