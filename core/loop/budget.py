"""The four budget levels, checked before every model run, each reaching the person when hit.

- Per run: `max_usd` becomes `--max-budget-usd` (the runner passes it); a run that hits it fails,
  is retried once, then the item is held (`run_failed`).
- Per item: `per_item` tokens; the item is held (`budget`), which is an inbox entry. `hall retry`
  grants another `per_item` (or `--tokens`).
- Per room per day: `[budget.<role>] daily`; the room closes for the day (an inbox entry), items
  wait in order.
- Daily total: `daily`; the daemon pauses (an inbox entry). `hall budget --grant` lifts it for today.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from hallmark.core import clock, journal, person_cap, states
from hallmark.core.config import parse_tokens
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

from .budget_results import BudgetStatus, DailyBudget, ItemBudget, PerItemBudget, RoomBudget, RoomBudgets

ACTOR = "hall"
ROLES = ("review", "fix", "intake", "librarian", "dev")


@dataclass
class Block:
    level: str  # per_item | room | daily
    reason: str


def today() -> str:
    return clock.now().strftime("%Y-%m-%d")


def _day_start() -> str:
    return today() + "T00:00:00.000Z"


def _usage_today(repo: Repo) -> list[dict[str, Any]]:
    return repo.index.events(kinds=["usage"], since=_day_start())


def _tokens(event: dict[str, Any]) -> int:
    return states.usage_tokens(event)


def daily_cap(repo: Repo) -> int | None:
    return parse_tokens(repo.config.budget.daily)


def per_item_cap(repo: Repo) -> int | None:
    return parse_tokens(repo.config.budget.per_item)


def room_cap(repo: Repo, role: str) -> int | None:
    daily = repo.config.budget.room(role).daily
    return parse_tokens(daily) if daily is not None else None


def granted_today(repo: Repo) -> int:
    total = 0
    for event in repo.index.events(kinds=["budget_granted"], repo_level=True):
        if event.get("day") == today() and person_cap.counts(event, repo.paths):
            total += int(event.get("tokens") or 0)  # an agent's unsigned grant raises nothing
    return total


def item_allowance(repo: Repo, item_id: str) -> int | None:
    """per_item plus what `hall retry` granted after budget holds."""
    cap = per_item_cap(repo)
    if cap is None:
        return None
    from hallmark.core.items import item_events

    allowance, hold = cap, ""
    for event in item_events(repo, item_id):
        name = event.get("event")
        if name == "held":
            hold = str(event.get("kind", ""))
        elif name in ("released",):
            hold = ""
        elif name == "retried" and person_cap.counts(event, repo.paths):
            if event.get("tokens"):
                allowance += int(event["tokens"])
            elif hold == "budget":
                allowance += cap
            hold = ""
    return allowance


def _inbox_once(repo: Repo, kind: str, key: str, text: str, nxt: list[str], item: str | None = None) -> bool:
    path = repo.paths.repo_journal
    with journal.locked(path):
        for event in journal.read(path).events:
            if event.get("event") == "inbox_entry" and event.get("key") == key:
                return False
        journal.append_unlocked(
            path,
            journal.make_event(
                "inbox_entry", None, ACTOR, {"kind": kind, "key": key, "text": text, "for_item": item, "next": nxt}
            ),
        )
    return True


def check_daily(repo: Repo) -> Block | None:
    cap = daily_cap(repo)
    if cap is None:
        return None
    used = sum(_tokens(e) for e in _usage_today(repo))
    limit = cap + granted_today(repo)
    if used < limit:
        return None
    reason = f"today's model runs used {used:,} tokens of the daily {limit:,}; the loop pauses until tomorrow"
    if _inbox_once(
        repo,
        "budget",
        f"budget:daily:{today()}",
        f"Daily budget reached: {reason}.",
        ["hall budget", "hall budget --grant"],
    ):
        journal.append(repo.paths.repo_journal, "paused", item=None, actor=ACTOR, reason=reason, level="daily")
    return Block("daily", reason)


PLAN_PAUSE_S = 3600  # when the limit's reset time is unknown


def pause_for_plan(repo: Repo, resets_at: str | None) -> dict[str, Any]:
    """A rate or plan limit: the model workers pause until it resets (recorded as `paused`)."""
    until = resets_at or clock.stamp(clock.now() + timedelta(seconds=PLAN_PAUSE_S))
    return journal.append(
        repo.paths.repo_journal,
        "paused",
        item=None,
        actor=ACTOR,
        level="plan",
        until=until,
        reason="Claude's rate or plan limit was reached; model runs wait until it resets",
    )


def check_plan(repo: Repo) -> Block | None:
    pauses = [e for e in repo.index.events(kinds=["paused"], repo_level=True) if e.get("level") == "plan"]
    if not pauses:
        return None
    until = pauses[-1].get("until")
    if until and clock.parse_time(until) > clock.now():
        return Block("plan", f"Claude's limit was reached; model runs wait until {until}")
    return None


def check_room(repo: Repo, role: str) -> Block | None:
    cap = room_cap(repo, role)
    if cap is None:
        return None
    used = sum(_tokens(e) for e in _usage_today(repo) if e.get("role") == role)
    if used < cap:
        return None
    reason = f"the {role} room used {used:,} tokens of its daily {cap:,}; it is closed until tomorrow"
    _inbox_once(
        repo,
        "budget",
        f"budget:room:{role}:{today()}",
        f"Room budget reached: {reason}.",
        ["hall budget", f"hall budget --set {role}.daily=…"],
    )
    return Block("room", reason)


def check_item(repo: Repo, view: states.ItemView) -> Block | None:
    allowance = item_allowance(repo, view.id)
    if allowance is None or view.tokens < allowance:
        return None
    reason = f"{view.id} used {view.tokens:,} tokens of its {allowance:,} (per_item)"
    if view.hold != "budget":
        from hallmark.core.items import record

        record(repo, view.id, "held", actor=ACTOR, kind="budget", reason=reason)
    return Block("per_item", reason)


def gate(repo: Repo, view: states.ItemView, role: str) -> Block | None:
    """Whether a model run for this item and role may start now (the blocking level, or None)."""
    return check_daily(repo) or check_room(repo, role) or check_item(repo, view)


def grant(repo: Repo, tokens: int | None = None, actor: str = "you") -> BudgetStatus:
    amount = tokens if tokens is not None else (daily_cap(repo) or 0)
    _append_sealed(repo, "hall budget --grant", "budget_granted", actor, day=today(), tokens=amount)
    _append_sealed(repo, "hall budget --grant", "inbox_cleared", actor, key=f"budget:daily:{today()}")
    return status(repo)


def _append_sealed(repo: Repo, action: str, event: str, actor: str, **fields: Any) -> dict[str, Any]:
    """Append a person's budget decision to the repo journal, signed (core/person_cap.py)."""
    path = repo.paths.repo_journal
    with journal.locked(path):
        return journal.append_unlocked(path, _sealed(repo, action, event, actor, **fields))


def _sealed(repo: Repo, action: str, event: str, actor: str, **fields: Any) -> dict[str, Any]:
    made = journal.make_event(event, None, actor, fields)
    try:
        return person_cap.seal_if_person(made, repo.paths)
    except person_cap.CapError as exc:
        raise person_cap.refusal(action, exc) from None


def status(repo: Repo) -> BudgetStatus:
    """Today's spend against each level."""
    from hallmark.core.runner.command import role_max_usd

    usage = _usage_today(repo)
    used = sum(_tokens(e) for e in usage)
    cost = round(sum(float(e.get("cost_usd") or 0) for e in usage), 6)
    cap = daily_cap(repo)
    granted = granted_today(repo)
    limit = None if cap is None else cap + granted
    rooms = {}
    for role in ROLES:
        role_used = sum(_tokens(e) for e in usage if e.get("role") == role)
        role_cap = room_cap(repo, role)
        rooms[role] = RoomBudget(
            used=role_used,
            daily=role_cap,
            max_usd_per_run=role_max_usd(repo, role),
            closed=role_cap is not None and role_used >= role_cap,
        )
    items_over = tuple(
        ItemBudget(
            item=view.id, tokens=view.tokens, allowance=item_allowance(repo, view.id), held=view.hold == "budget"
        )
        for view in repo.index.items(include_terminal=False)
    )
    return BudgetStatus(
        day=today(),
        daily=DailyBudget(
            cap=cap,
            granted=granted,
            limit=limit,
            used=used,
            cost_usd=cost,
            remaining=None if limit is None else max(0, limit - used),
            paused=limit is not None and used >= limit,
        ),
        per_item=PerItemBudget(cap=per_item_cap(repo), items=items_over),
        rooms=RoomBudgets(**rooms),
    )


# -- --set ---------------------------------------------------------------------------------------

_SETTABLE = re.compile(r"^(daily|per_item|(review|fix|intake|librarian|dev)\.(daily|max_usd))$")


def set_value(repo: Repo, assignment: str) -> BudgetStatus:
    """`hall budget --set k=v`: edit one budget key in .hallmark.toml, keeping the rest of the file."""
    key, sep, value = assignment.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not _SETTABLE.match(key):
        raise HallError(
            "USAGE",
            f"--set takes daily=…, per_item=… or <role>.daily|max_usd=…, not {assignment!r}.",
            ["hall budget --set daily=4M", "hall budget --set review.max_usd=3"],
        )
    role, _, leaf = key.rpartition(".")
    if leaf == "max_usd":
        if value.lower() != "none":
            try:
                float(value)
            except ValueError as exc:
                raise HallError("USAGE", f"{key} must be a number of dollars or none.", []) from exc
        literal = value if value.lower() != "none" else '"none"'
    else:
        try:
            parse_tokens(value)
        except ValueError as exc:
            raise HallError("USAGE", str(exc), []) from exc
        literal = f'"{value}"'
    section = f"budget.{role}" if role else "budget"
    from hallmark.core.atomic import write_text
    from hallmark.core.config_raw import config_path

    path = config_path(repo.root)
    decision = _sealed(repo, "hall budget --set", "budget_set", "you", key=key, value=value)  # before any edit
    with journal.locked(path):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        write_text(path, _set_in_toml(text, section, leaf, literal))
    from hallmark.core.config import load

    load(repo.root)  # the edit must leave a valid file
    with journal.locked(repo.paths.repo_journal):
        journal.append_unlocked(repo.paths.repo_journal, decision)
    repo.__dict__.pop("config", None)
    return status(repo)


def _set_in_toml(text: str, section: str, key: str, literal: str) -> str:
    lines = text.splitlines()
    header = f"[{section}]"
    start = next((i for i, line in enumerate(lines) if line.strip() == header), None)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [header, f"{key} = {literal}"]
        return "\n".join(lines) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("[")), len(lines))
    for i in range(start + 1, end):
        if re.match(rf"^\s*{re.escape(key)}\s*=", lines[i]):
            lines[i] = f"{key} = {literal}"
            return "\n".join(lines) + "\n"
    lines.insert(end if end == len(lines) or lines[end - 1].strip() else end - 1, f"{key} = {literal}")
    return "\n".join(lines) + "\n"


def window_start(since: str | None) -> str | None:
    """`--since 7d` or a date -> an ISO stamp."""
    if not since:
        return None
    if re.match(r"^\d{4}-\d{2}-\d{2}", since):
        return since if "T" in since else since + "T00:00:00.000Z"
    try:
        seconds = clock.parse_duration(since)
    except ValueError as exc:
        raise HallError("USAGE", f"--since {since!r} is neither a date nor a duration (7d, 24h).", []) from exc
    return clock.stamp(clock.now() - timedelta(seconds=seconds))
