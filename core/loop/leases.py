"""Leases: one worker per item at a time. `<state_dir>/leases/<ID>.json`, written under a lock.

A lease names its holder, role, pid and host, and expires. An expired lease, or one whose holder
process is gone (same host), is free. Taking a lease someone else holds is CLAIMED (exit 7).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from hallmark.core import atomic, clock, journal
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

DEFAULT_TTL_S = 15 * 60


def lease_path(repo: Repo, item_id: str) -> Path:
    return repo.state_dir / "leases" / f"{item_id}.json"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_live(lease: dict[str, Any] | None) -> bool:
    if not lease:
        return False
    try:
        if clock.parse_time(lease["expires"]) <= clock.now():
            return False
    except (KeyError, ValueError):
        return False
    return not (lease.get("host") == socket.gethostname() and lease.get("pid") and not _pid_alive(int(lease["pid"])))


def current(repo: Repo, item_id: str) -> dict[str, Any] | None:
    lease = atomic.read_json(lease_path(repo, item_id))
    return lease if is_live(lease) else None


def default_holder(role: str) -> str:
    return f"{role}@{socket.gethostname()}:{os.getpid()}"


def acquire(
    repo: Repo,
    item_id: str,
    role: str,
    holder: str | None = None,
    *,
    ttl_s: float = DEFAULT_TTL_S,
    pid: int | None = None,
) -> dict[str, Any]:
    """Take (or renew) the item's lease; CLAIMED when another live holder has it.

    pid (default: this process) ends the lease early when that process dies; 0 means "only the ttl".
    """
    holder = holder or default_holder(role)
    path = lease_path(repo, item_id)
    with journal.locked(path):
        existing = atomic.read_json(path)
        if is_live(existing) and existing.get("holder") != holder:
            raise HallError(
                "CLAIMED",
                f"{item_id} is claimed by {existing.get('holder')} ({existing.get('role')}) "
                f"until {existing.get('expires')}.",
                [f"hall status {item_id}", "hall next --role …  (another item)"],
            )
        now = clock.now()
        lease = {
            "item": item_id,
            "holder": holder,
            "role": role,
            "pid": os.getpid() if pid is None else pid,
            "host": socket.gethostname(),
            "acquired": clock.stamp(now),
            "expires": clock.stamp(now + timedelta(seconds=ttl_s)),
        }
        atomic.write_json(path, lease)
    return lease


def release(repo: Repo, item_id: str, holder: str | None = None) -> bool:
    path = lease_path(repo, item_id)
    with journal.locked(path):
        existing = atomic.read_json(path)
        if existing is None:
            return False
        if holder is not None and existing.get("holder") != holder and is_live(existing):
            return False
        try:
            path.unlink()
        except FileNotFoundError:
            return False
    return True


@contextmanager
def held(repo: Repo, item_id: str, role: str, holder: str | None = None) -> Iterator[dict[str, Any]]:
    holder = holder or default_holder(role)
    lease = acquire(repo, item_id, role, holder)
    try:
        yield lease
    finally:
        release(repo, item_id, holder)
