"""What `hall budget` (core/loop/budget.py) answers: today's spend against each of the budget
levels (the daily total, each room, each item's allowance). The CLI adds `next` (tui/cli/usage.py)."""

from __future__ import annotations

from hallmark.core import results


class DailyBudget(results.Result):
    """Today's total against `daily` (plus what `--grant` added); paused once it is spent."""

    cap: int | None
    granted: int
    limit: int | None
    used: int
    cost_usd: float
    remaining: int | None
    paused: bool


class ItemBudget(results.Result):
    """An open item's tokens against its allowance (`per_item` plus what `hall retry` granted)."""

    item: str
    tokens: int
    allowance: int | None
    held: bool


class PerItemBudget(results.Result):
    """`per_item` and every open item against it."""

    cap: int | None
    items: tuple[ItemBudget, ...]


class RoomBudget(results.Result):
    """One room's tokens today against its `[budget.<room>] daily`, and its per-run dollar cap."""

    used: int
    daily: int | None
    max_usd_per_run: float | None
    closed: bool


class RoomBudgets(results.Result):
    """Each room's budget, by room (the roles in core/config.py's ROOMS order)."""

    review: RoomBudget
    fix: RoomBudget
    intake: RoomBudget
    librarian: RoomBudget
    dev: RoomBudget

    def by_room(self) -> dict[str, RoomBudget]:
        return {room: getattr(self, room) for room in results.reply_keys(type(self))}


class BudgetStatus(results.Result):
    """`hall budget` (and after `--set` or `--grant`): today's spend against each level."""

    day: str
    daily: DailyBudget
    per_item: PerItemBudget
    rooms: RoomBudgets
