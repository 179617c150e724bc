"""The watchman: which items are stuck. One rule for the daemon (which records a notice) and the
floor plan (which shows the flag), so the two never disagree.

An item is stuck when the loop owns its next step (checks, review, fixing, or shipping a
hallmarked item) and nothing has happened to it for `stuck_after`: no event other than the
watchman's own notice, and no live run (a run is progress, however quiet). An item that waits on a
person (held, or with an open question) is not stuck: it is in your inbox instead. An item in
development is left alone: its next step is a person's or their session's, which the watchman
cannot judge. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import clock, states
from .runs import has_live_run

LOOP_STATES = (states.CHECKS, states.REVIEW, states.FIXING, states.HALLMARKED)


@dataclass(frozen=True)
class Stuck:
    item: str
    state: str
    quiet_s: float  # seconds since its last progress
    last_progress: str  # the stamp of that last event
    noticed: bool  # the watchman's notice for this quiet spell is already in the journal

    @property
    def quiet(self) -> str:
        """How long it has been quiet, e.g. "2h"."""
        seconds = int(self.quiet_s)
        if seconds < 3600:
            return f"{seconds // 60}m"
        if seconds < 86400:
            return f"{seconds // 3600}h"
        return f"{seconds // 86400}d"


def stuck_after_seconds(repo: Any) -> float:
    """`stuck_after` from .hallmark.toml through the stdlib reader (the floor's first paint and the
    daemon read the same key); a value that does not parse falls back to the default, and
    `hall doctor` names it."""
    from .config_raw import DEFAULTS, load_raw

    try:
        return clock.parse_duration(load_raw(repo.root)["stuck_after"])
    except Exception:  # noqa: BLE001 - a bad config is reported by `hall doctor`; the watchman still watches
        return clock.parse_duration(DEFAULTS["stuck_after"])


def stuck_items(
    repo: Any,
    *,
    views: list[states.ItemView] | None = None,
    now: datetime | None = None,
    stuck_after_s: float | None = None,
) -> list[Stuck]:
    """The stuck items, the quietest first."""
    now = now or clock.now()
    limit = stuck_after_seconds(repo) if stuck_after_s is None else stuck_after_s
    views = repo.index.items(include_terminal=False) if views is None else views
    candidates = [v for v in views if v.state in LOOP_STATES and not v.terminal and not v.hold and not v.open_questions]
    if not candidates:
        return []
    times = repo.index.progress_times([v.id for v in candidates])
    found: list[Stuck] = []
    for view in candidates:
        progress, noticed = times.get(view.id, (view.updated, ""))
        progress = progress or view.updated
        if not progress:
            continue
        try:
            quiet = (now - clock.parse_time(progress)).total_seconds()
        except ValueError:
            continue
        if quiet < limit or has_live_run(repo.paths, view.id):
            continue
        found.append(Stuck(view.id, view.state, quiet, progress, bool(noticed) and noticed >= progress))
    found.sort(key=lambda s: (-s.quiet_s, s.item))
    return found


def flag_stuck(repo: Any) -> list[str]:
    """The daemon's side: a `stuck` notice on each stuck item not yet flagged in its quiet spell;
    the items flagged now."""
    from . import items

    flagged = []
    for stuck in stuck_items(repo, stuck_after_s=clock.parse_duration(repo.config.stuck_after)):
        if stuck.noticed:
            continue
        items.record(
            repo,
            stuck.item,
            "notice",
            actor="watchman",
            kind="stuck",
            text=f"{stuck.item} has had no new event for {int(stuck.quiet_s // 60)} min in {stuck.state}",
        )
        flagged.append(stuck.item)
    return flagged
