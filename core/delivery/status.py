"""`hall status <id>` with the item's delivery view (what the Delivery Office last heard of its PR)."""

from __future__ import annotations

from hallmark.core import items
from hallmark.core.item_results import ItemDetail
from hallmark.core.repo import Repo

from .view import fold


def status_one(repo: Repo, item_id: str) -> ItemDetail:
    """items.status_one, plus the delivery block (None without a PR); read from the journal, never GitHub."""
    return ItemDetail.detail(items.fold_item(repo, item_id), fold(items.item_events(repo, item_id)))
