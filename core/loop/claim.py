"""`hall next`: a worker (an agent's shell, a script) claims the oldest item with work for its role,
under a lease (leases.py), the way the daemon's own passes take theirs.

Not in leases.py: that module is on the hook path (core/waiting.py reads leases), and claiming
needs the daemon's candidates and the item verbs.
"""

from __future__ import annotations

from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

from . import leases
from .daemon import candidates
from .results import Claimed, Lease, NothingToClaim

WORK = {
    "checks": "run the gates",
    "review": "review the frozen commit",
    "fixing": "fix the open findings",
    "hallmarked": "rebase and ship",
}


def claim(
    repo: Repo, role: str, *, item: str | None = None, holder: str | None = None, ttl_s: float = leases.DEFAULT_TTL_S
) -> Claimed | NothingToClaim:
    """`hall next`: lease the oldest item with work for the role (only `item`, if given).

    An agent's shell ends with each command, so the lease lives by its lifetime (`ttl_s`), not a
    pid. WRONG_STATE when the item named has no such work; CLAIMED when every candidate is held."""
    found = candidates(repo, role)
    if item:
        wanted = items.resolve(repo, item)
        found = [v for v in found if v.id == wanted]
        if not found:
            view = items.fold_item(repo, wanted)
            raise HallError(
                "WRONG_STATE",
                f"{wanted} is {view.state}{' (held)' if view.hold else ''}: no {role} work there.",
                items.next_for(view),
            )
    holder = holder or leases.default_holder(role)
    claimed_by: list[str] = []
    for view in found:
        try:
            lease = leases.acquire(repo, view.id, role, holder, ttl_s=ttl_s, pid=0)
        except HallError as exc:
            if exc.code != "CLAIMED":
                raise
            claimed_by.append(view.id)
            continue
        return Claimed(
            item=view.id,
            state=view.state,
            role=role,
            work=WORK[view.state],
            sha=view.sha,
            worktree=view.worktree,
            lease=Lease.of(lease),
        )
    if claimed_by:
        raise HallError(
            "CLAIMED",
            f"Every {role} item is claimed by another worker: {', '.join(claimed_by)}.",
            ["hall daemon status", "try again later"],
        )
    return NothingToClaim(item=None, role=role, work=None)
