"""Run a short command and capture its output, without importing subprocess on POSIX.

`subprocess` pulls in selectors, signal handling and threading (~3 ms); the gates need one git
call on a hook that runs on every tool call. os.posix_spawnp with two pipes does the same job.
"""

from __future__ import annotations

import os
import sys


class Result:
    __slots__ = ("returncode", "stderr", "stdout")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def capture(argv: list[str], env: dict[str, str] | None = None) -> Result:
    """Run argv (looked up on PATH) with stdin closed; return its exit code and both outputs."""
    if sys.platform == "win32" or not hasattr(os, "posix_spawnp"):  # pragma: no cover
        import subprocess

        proc = subprocess.run(argv, capture_output=True, env=env, stdin=subprocess.DEVNULL, check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        actions = [
            (os.POSIX_SPAWN_DUP2, null, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
            (os.POSIX_SPAWN_CLOSE, out_r),
            (os.POSIX_SPAWN_CLOSE, err_r),
        ]
        pid = os.posix_spawnp(argv[0], argv, env if env is not None else os.environ, file_actions=actions)
    finally:
        os.close(out_w)
        os.close(err_w)
        os.close(null)
    try:
        stdout = _drain_both(out_r, err_r)
    finally:
        os.close(out_r)
        os.close(err_r)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return Result(code, stdout[0], stdout[1])


def _drain_both(out_fd: int, err_fd: int) -> tuple[bytes, bytes]:
    """Read both pipes to the end without deadlocking on a full one."""
    import select

    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    open_fds = [out_fd, err_fd]
    while open_fds:
        ready, _, _ = select.select(open_fds, [], [])
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                chunks[fd].append(data)
            else:
                open_fds.remove(fd)
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])
