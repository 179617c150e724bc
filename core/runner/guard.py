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

import contextlib
import os
import signal
import sys
import time

POLL_S = 0.2  # at most this long between looks at the parent (short commands are looked at sooner)
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
    with contextlib.suppress(ProcessLookupError):
        os.killpg(0, signal.SIGKILL)  # ends the guard too, which is what we want


def _keep_to_ourselves() -> None:
    """The descriptors we were handed (the run's lock) stay with the guard: the command does not
    inherit them, so a process it leaves behind cannot keep the run looking alive."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                os.set_inheritable(fd, False)


def _end_leftovers() -> None:
    """The command is done: whatever it left running in its group (a server a test started, a
    background job of the agent's) is told to stop too. The guard itself ignores the signal."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(0, signal.SIGTERM)


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: guard.py <parent pid> -- <command…>\n")
        return 2
    parent = int(argv[1])
    command = argv[3:]
    if os.getpgrp() != os.getpid():  # never signal the caller's group: the guard leads a group of its own
        os.setpgid(0, 0)
    _keep_to_ourselves()
    child = os.fork()  # fork and exec, not subprocess: importing subprocess costs more than the rest
    if child == 0:
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            sys.stderr.write(f"cannot start {command[0]}: {exc.strerror or exc}\n")
        os._exit(127)
    pause = 0.001
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            _end_leftovers()
            return _exit_code(status)
        if os.getppid() != parent:  # the loop that started us is gone: so is its run
            _end_group()
            return 137
        time.sleep(pause)
        pause = min(POLL_S, pause * 2)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
