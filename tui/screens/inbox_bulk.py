"""Marks and bulk actions in the inbox (k9s's space): dismiss or retry several entries at once.

Each bulk verb is one core call over the marked entries (core.inbox.dismiss_entry, core.items.retry
for each), so one confirmation, one toast and one journal refresh. A rebase conflict is never in a
bulk retry: it needs its branch rebased first (core.items.retry refuses it, and says why).
"""

from __future__ import annotations

from typing import Any

from hallmark.core import inbox, items
from hallmark.core.actor import require_person
from hallmark.core.errors import HallError
from hallmark.core.inbox_results import InboxEntry
from hallmark.core.repo import Repo


def retryable(entry: InboxEntry) -> bool:
    """An escalation or a hold a retry releases (a conflict hold is not one)."""
    if not entry.item:
        return False
    return entry.kind == "escalated" or (entry.key.startswith("hold:") and entry.kind != "conflict")


def dismiss_many(repo: Repo, entries: list[tuple[str, str]]) -> dict[str, Any]:
    """Dismiss each (key, fingerprint): the entries hide until they change."""
    done = [inbox.dismiss_entry(repo, key, fingerprint) for key, fingerprint in entries]
    return {"dismissed": [e.key for e in done]}


def undismiss_many(repo: Repo, keys: list[str]) -> dict[str, Any]:
    return {"restored": [inbox.undismiss(repo, key) for key in keys]}


def retry_many(repo: Repo, item_ids: list[str], *, reason: str) -> dict[str, Any]:
    """One more round for each item, with the same reason; a refusal is reported, not fatal."""
    actor = require_person("retry")
    retried: list[str] = []
    refused: dict[str, str] = {}
    for item_id in item_ids:
        try:
            items.retry(repo, item_id, reason=reason, actor=actor)
            retried.append(item_id)
        except HallError as exc:
            refused[item_id] = exc.message
    return {"retried": retried, "refused": refused}
