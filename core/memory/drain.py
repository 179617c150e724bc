"""The reflect drain as the memory store sees it: the queue of cards a person decides, the rule
for what came back after a rejection, and the decisions that take more than one verb (accept all,
accept a learning that came back). The app's drain screen draws these; it decides nothing itself.

A card is a pending learning (proposed or skipped), oldest first, then each rejected learning that
was proposed again since its rejection (its audit log ends with the merge of the new proposal).
Accept-all never takes an automation (each needs its own confirmation of its exact command) nor a
learning that came back (a person reopens it on its own card). Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hallmark.core.errors import HallError

from . import deciding, reading, usage
from .access import PERSON
from .results import DrainSummary, Preview, Tombstone
from .store import Learning


@dataclass
class DrainCard:
    lid: str
    learning: dict[str, Any]
    preview: Preview | None  # where accepting writes, and what (reading.preview)
    tombstone: Tombstone | None  # the rejection it resembles or is
    came_back: bool = False  # a rejected pattern that was proposed again

    @property
    def automation(self) -> dict[str, Any] | None:
        """The automation accepting would install (its command, event, matcher and token), if any."""
        found = self.preview.automation if self.preview is not None else None
        return found if isinstance(found, dict) else None

    @property
    def bulk_acceptable(self) -> bool:
        """May accept-all take it? Not a learning that came back, not an automation."""
        return not self.came_back and self.automation is None


@dataclass
class DrainQueue:
    available: bool = False
    problem: str = ""  # why the memory store cannot be read now (its error and the fix)
    cards: dict[str, DrainCard] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # pending oldest first, then the ones that came back
    summary: DrainSummary | None = None  # the last drain's decisions (usage.last_drain_summary)


def came_back(repo: Any) -> list[Learning]:
    """Rejected learnings proposed again since their rejection (the last audit line is a merge)."""
    out = []
    for learning in reading.list_learnings(repo, status="rejected"):
        if not learning.reproposed:
            continue
        lines = reading.audit_log(repo, learning.id)
        if lines and lines[-1].get("action") == "merge":
            out.append(learning)
    return out


def load(repo: Any) -> DrainQueue:
    """The drain's queue now; a store that cannot be read gives an unavailable queue with its problem."""
    data = DrainQueue(available=True)
    try:
        queue = [(x, False) for x in reading.pending(repo)] + [(x, True) for x in came_back(repo)]
    except HallError as exc:  # e.g. the project identity is not committed: say so, with its fix
        fix = "\n".join(f"  {step}" for step in exc.next)
        return DrainQueue(available=False, problem=f"{exc.message}\n\nnext:\n{fix}" if fix else exc.message)
    for learning, back in queue:
        try:
            preview = reading.preview(repo, learning.id)
        except Exception as exc:  # noqa: BLE001 - shown on the card as the reason it can't be written
            preview = Preview(target="?", where="unknown", path=None, text="", problem=str(exc))
        tomb = reading.tombstone_for(repo, learning.id)
        data.cards[learning.id] = DrainCard(learning.id, learning.to_dict(), preview, tomb, back)
        data.order.append(learning.id)
    data.summary = usage.last_drain_summary(repo)
    return data


def accept_all(repo: Any, lids: list[str], actor: str = PERSON) -> dict[str, Any]:
    """Accept each pending learning of lids that accept-all may take; the rest are left, and said."""
    accepted, left = [], []
    for lid in lids:
        learning = reading.get(repo, lid)
        if learning.status not in ("proposed", "skipped") or deciding.automation_confirmation(learning) is not None:
            left.append(lid)
            continue
        accepted.append(deciding.accept(repo, lid, actor=actor).id)
    return {"accepted": accepted, "left": left}


def accept_reopened(repo: Any, lid: str, actor: str = PERSON) -> Learning:
    """A learning that came back after its rejection, accepted after all: reopened, then accepted."""
    deciding.reopen(repo, lid, actor=actor, reason="accepted in the drain after it came back")
    return deciding.accept(repo, lid, actor=actor)


def decide(repo: Any, verb: str, lid: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """One decision verb (accept, skip, reject, undo) on one card; the learning as a dict, and after a
    rejection its tombstone (a `Tombstone`, or None). A dict, not a result: no command replies with it."""
    if verb not in ("accept", "skip", "reject", "undo"):
        raise HallError("USAGE", f"The drain has no decision {verb!r}.", ["hall library review"])
    learning = getattr(deciding, verb)(repo, lid, *args, **kwargs)
    out = learning.to_dict()
    if verb == "reject":
        out["tombstone"] = reading.tombstone_for(repo, lid)
    return out
