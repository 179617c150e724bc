"""The per-item delivery view, folded from the journal: what GitHub last said about the item's PR.

The Delivery Office (watch.py) records a `pr_status` event only when something changed, a
`gh_unavailable` event when GitHub could not be asked (once per outage), and `delivered` when the
PR merged or closed. `hall status`, the inbox and the app read this fold, never GitHub. When the
last word is "could not ask", the view says GH_UNAVAILABLE and nothing in it reads as green: the
last known CI and mergeability are kept apart (`last_known`), not shown as current.
"""

from __future__ import annotations

from typing import Any

from hallmark.core.results import Result

GH_UNAVAILABLE = "GH_UNAVAILABLE"
STATUS_EVENTS = frozenset(
    {"pr_adopted", "pr_opened", "pr_updated", "pr_status", "gh_unavailable", "delivered", "shipped"}
)


class DeliveryView(Result):
    """What the Delivery Office knows of one item's PR."""

    pr: str
    number: int | None
    state: str  # OPEN, MERGED, CLOSED, GH_UNAVAILABLE, or UNKNOWN (not asked yet)
    ci: str  # passing, failing, pending, none, unknown
    failing: list[str]
    mergeable: str  # MERGEABLE, CONFLICTING, UNKNOWN
    review_decision: str
    head: str
    open_threads: int
    delivered: bool
    checked_at: str
    unavailable: str  # why GitHub could not be asked ("" when it could)
    line: str  # one line for a person

    def is_green(self) -> bool:
        """Only a current answer can be green: merged, or open with passing CI, mergeable, no open threads."""
        if self.state == "MERGED":
            return True
        return (
            self.state == "OPEN"
            and self.ci in ("passing", "none")
            and self.mergeable == "MERGEABLE"
            and not self.open_threads
        )


def ci_of(checks: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(passing | failing | pending | none, the failing check names) from statusCheckRollup nodes."""
    if not checks:
        return "none", []
    failing, pending = [], False
    for check in checks:
        status = str(check.get("status") or check.get("state") or "").upper()
        conclusion = str(check.get("conclusion") or "").upper()
        name = str(check.get("name") or check.get("context") or "?")
        if conclusion in (
            "FAILURE",
            "TIMED_OUT",
            "CANCELLED",
            "ACTION_REQUIRED",
            "STARTUP_FAILURE",
            "ERROR",
        ) or status in (
            "FAILURE",
            "ERROR",
        ):
            failing.append(name)
        elif status not in ("COMPLETED", "SUCCESS") or (status == "COMPLETED" and not conclusion):
            pending = True
    if failing:
        return "failing", failing
    return ("pending" if pending else "passing"), []


def _line(view: dict[str, Any]) -> str:
    number = f"#{view['number']}" if view["number"] else view["pr"]
    if view["delivered"]:
        return f"PR {number} {view['state'].lower()}: delivered"
    if view["state"] == GH_UNAVAILABLE:
        return f"PR {number}: {GH_UNAVAILABLE} ({view['unavailable']})"
    if view["state"] == "UNKNOWN":
        return f"PR {number}: not asked yet"
    parts = [
        f"PR {number} {view['state'].lower()}",
        f"CI {view['ci']}" + (f" ({', '.join(view['failing'])})" if view["failing"] else ""),
    ]
    parts.append(view["mergeable"].lower())
    if view["open_threads"]:
        parts.append(f"{view['open_threads']} open thread(s)")
    if view["review_decision"]:
        parts.append(view["review_decision"].lower().replace("_", " "))
    return " · ".join(parts)


def fold(events: list[dict[str, Any]]) -> DeliveryView | None:
    """The delivery view of one item's events (None when it has no PR)."""
    from .prid import number_of

    view: dict[str, Any] = {
        "pr": "",
        "number": None,
        "state": "UNKNOWN",
        "ci": "unknown",
        "failing": [],
        "mergeable": "UNKNOWN",
        "review_decision": "",
        "head": "",
        "open_threads": 0,
        "delivered": False,
        "checked_at": "",
        "unavailable": "",
    }
    for event in events:
        name = event.get("event")
        if name not in STATUS_EVENTS:
            continue
        if event.get("pr"):
            view["pr"] = str(event["pr"])
            view["number"] = number_of(view["pr"])
        if name == "pr_status":
            view.update(
                state=str(event.get("state") or "UNKNOWN"),
                ci=str(event.get("ci") or "unknown"),
                failing=list(event.get("failing") or []),
                mergeable=str(event.get("mergeable") or "UNKNOWN"),
                review_decision=str(event.get("review_decision") or ""),
                head=str(event.get("head") or ""),
                open_threads=len(event.get("threads") or []),
                checked_at=str(event.get("t", "")),
                unavailable="",
            )
        elif name == "gh_unavailable":
            view.update(
                state=GH_UNAVAILABLE,
                ci="unknown",
                failing=[],
                mergeable="UNKNOWN",
                unavailable=str(event.get("why", "")),
            )
            view["checked_at"] = str(event.get("t", ""))
        elif name == "delivered":
            view.update(delivered=True, state=str(event.get("state") or "MERGED"), unavailable="")
    if not view["pr"]:
        return None
    return DeliveryView(**view, line=_line(view))
