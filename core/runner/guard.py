"""The run guard: a tiny parent for every process the loop starts, so nothing outlives the loop.

`python guard.py <parent pid> -- <command…>` starts the command in the guard's own process group
(the caller starts the guard in a new session) and waits for it. When the process that started
the guard dies (a daemon killed with SIGKILL, a crash), the guard sees its parent change, ends
its whole group (the command and everything it started: tool calls, a test run, a push) and exits.
While it lives it also keeps open the file descriptors it was handed (the run's lock), so a run
whose daemon died still counts as live until its processes are really gone, and no second run
starts beside it.

Stdlib only, and run by path with `-I -S`: it must start in milliseconds and import nothing of ours.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

POLL_S = 0.2  # how often the guard looks at its parent
GRACE_S = 3.0  # SIGTERM, then this long, then SIGKILL


def _end_group() -> None:
    """SIGTERM to the whole group (ourselves excepted), then SIGKILL to what is left."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        os.killpg(0, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
    try:
        os.killpg(0, signal.SIGKILL)  # ends the guard too, which is what we want
    except ProcessLookupError:
        pass


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: guard.py <parent pid> -- <command…>\n")
        return 2
    parent = int(argv[1])
    command = argv[3:]
    try:
        child = subprocess.Popen(command)  # same group, same stdin/stdout/stderr
    except OSError as exc:
        sys.stderr.write(f"cannot start {command[0]}: {exc.strerror or exc}\n")
        return 127
    while True:
        try:
            code = child.wait(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            if os.getppid() != parent:  # the loop that started us is gone: so is its run
                _end_group()
                return 137
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
