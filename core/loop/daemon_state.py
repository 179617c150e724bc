"""The daemon's state file, read cheaply (stdlib only) by the inbox and the hooks.

`<user data dir>/daemon.json` holds pid, host, started, heartbeat, expected and the stop flag.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hallmark.core import atomic, clock
from hallmark.core.paths import user_data_dir

HEARTBEAT_STALE_S = 300


def state_path() -> Path:
    return user_data_dir() / "daemon.json"


def read_state() -> dict[str, Any]:
    return atomic.read_json(state_path(), {}) or {}


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return isinstance(pid, int) and pid > 0
    return True


def hostname() -> str:
    """socket.gethostname() without importing socket where os.uname() gives the same name (POSIX:
    both are the kernel's nodename); SessionStart asks on every session."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def liveness(data: dict[str, Any] | None = None) -> dict[str, Any]:
    """running: a live daemon process on this host; stale: one should run but has no heartbeat."""
    data = read_state() if data is None else data
    pid = data.get("pid")
    host = hostname()
    running = pid_alive(pid) and data.get("host", host) == host
    age = None
    if data.get("heartbeat"):
        try:
            age = round((clock.now() - clock.parse_time(data["heartbeat"])).total_seconds(), 1)
        except (TypeError, ValueError):
            age = None
    stale = bool(data.get("expected")) and (not running or (age is not None and age > HEARTBEAT_STALE_S))
    return {
        "running": running,
        "pid": pid if running else None,
        "heartbeat_age_s": age,
        "stale": stale,
        "started": data.get("started"),
        "heartbeat": data.get("heartbeat"),
    }
