"""The commands that make sense next for an item, by its state and hold: every reply's `next`.

Stdlib only and import-light: the SessionStart hook tells Claude the next step from here without
importing the verbs module (core/items.py, which pulls in the config's pydantic model).
"""

from __future__ import annotations

from . import states

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .states import ItemView


def next_for(view: ItemView) -> list[str]:
    i = view.id
    if view.hold:
        if view.hold_next:  # the hold names what releases it (a rebase to do by hand, …)
            return list(view.hold_next)
        return [f'hall retry {i} --reason "…"', f"hall log {i}", f"hall findings {i}"]
    return {
        states.DEVELOPMENT: [f"hall ready {i}", f'hall propose-ready {i} --summary "…"', f"hall status {i}"],
        states.AWAITING_YOU: [f"hall ready {i}", f'hall pull-back {i} --reason "not yet"'],
        states.CHECKS: [f"hall status {i}", f"hall log {i}", f"hall pull-back {i}"],
        states.REVIEW: [f"hall trace {i} --follow", f"hall status {i}", f"hall pull-back {i}"],
        states.FIXING: [f"hall findings {i}", f"hall status {i}", f"hall pull-back {i}"],
        states.ESCALATED: [f'hall retry {i} --reason "…"', f"hall log {i} --kind verdict", f"hall pull-back {i}"],
        states.HALLMARKED: [f"hall status {i}", f"hall log {i}"],
        states.CLOSED: [f"hall log {i}", 'hall new --title "…"'],
        states.DROPPED: [f"hall log {i}", 'hall new --title "…"'],
    }.get(view.state, [f"hall status {i}"])
