"""The terminal app's part (`[notify] terminal`): what it writes to its terminal when something new
waits for you. `bell` rings; `osc9` asks the terminal for a desktop notification by OSC 9 (iTerm2,
WezTerm, kitty, Windows Terminal, foot); `osc777` by OSC 777 (urxvt, VTE terminals such as GNOME
Terminal and Tilix); `off` writes nothing. The app writes it only while it runs; terminals that know
neither ignore the sequence. The text is the message's own headline, so it is cleaned and redacted.
"""

from __future__ import annotations

from hallmark.core.inbox_results import InboxEntry

from .message import from_entry


def _plain(text: str) -> str:
    """No control characters (an escape inside an OSC would end it early or start another)."""
    return "".join(ch for ch in text if ch.isprintable()).replace(";", ",")


def alert(mode: str, entry: InboxEntry, title: str = "") -> str:
    """The sequence to write for one new entry ('' for off)."""
    if mode == "off":
        return ""
    if mode == "bell":
        return "\a"
    message = from_entry(entry, title)
    head, body = _plain(message.headline), _plain(f"{message.title}: {message.text}" if message.title else message.text)
    if mode == "osc777":
        return f"\x1b]777;notify;{head};{body}\a"  # BEL ends the OSC (it does not ring)
    return f"\x1b]9;{head}: {body}\a"


def mode() -> str:
    """The user's [notify] terminal ('bell' when it cannot be read: the app must open anyway)."""
    from hallmark.core.errors import HallError

    from .settings import user_config

    try:
        config = user_config()
    except HallError:
        return "bell"
    return config.terminal if config.enabled else "off"
