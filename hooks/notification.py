"""Notification: file "session waiting" as a notice under the session's item, and as an inbox
entry keyed by the session (the next prompt from the person clears it).

Only the notification types that mean Claude is waiting for the person count (hooks.json matches
them too; this check covers a settings file wired by hand without the matcher). Older versions
send no `notification_type`: those count, as before."""

from __future__ import annotations

from hallmark.core import item_lookup

from . import common

WAITING_TYPES = frozenset({"permission_prompt", "idle_prompt", "elicitation_dialog"})

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths


def handle(payload: dict[str, Any], paths: RepoPaths, cwd: str, event: str) -> dict[str, Any] | None:
    session = raw if isinstance(raw := payload.get("session_id"), str) else ""
    message = common.text_field(payload, "message", 500) or "Claude is waiting for you"
    kind = common.text_field(payload, "notification_type", 100)
    if kind and kind not in WAITING_TYPES:  # auth_success, elicitation_complete, …: nobody is waiting
        return None
    found = item_lookup.item_for_session(paths, cwd, session)
    item = found.id if found else None
    common.record(
        paths, item, "notice", kind="session_waiting", message=message, notification_type=kind, session=session
    )
    where = f"{item}: " if item else ""
    nxt = [f"hall status {item}"] if item else ["hall status --all"]
    common.record(
        paths,
        None,
        "inbox_entry",
        kind="waiting",
        for_item=item,
        text=f"{where}{message}",
        key=f"waiting:{session or cwd}",
        next=nxt,
    )
    if session:
        common.update_session(paths, session, waiting=True)
    return None
