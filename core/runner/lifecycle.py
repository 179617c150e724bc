"""How the loop's processes live and die: a run's lock, the guard around each process, group kills.

Every process the loop starts (a headless run, a gate, the ship command, a non-claude fixer) runs
under the guard (`guard.py`) in a session of its own: a timeout or an interrupted loop ends the
whole group, and a loop that dies without a word (SIGKILL, a crash) takes its processes with it,
because the guard watches its parent. A run's lock file is flock'ed by the runner and handed to
the guard, so the lock stays held for as long as any process of the run lives: a run is never
taken for dead (and started again beside itself) while its processes still work.
Stdlib only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import guard as _guard

if TYPE_CHECKING:
    from filelock import BaseFileLock

POSIX = os.name == "posix"


def guarded(command: list[str]) -> list[str]:
    """command, wrapped in the guard (on POSIX; elsewhere as it is)."""
    if not POSIX:
        return list(command)
    return [sys.executable, "-I", "-S", str(Path(_guard.__file__).resolve()), str(os.getpid()), "--", *command]


def kill_group(proc: subprocess.Popen, grace_s: float = 5.0) -> None:
    """SIGTERM the process's group (it leads its own session), then SIGKILL after grace_s."""
    if not POSIX:
        proc.kill()
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class RunLock:
    """An exclusive flock on a run's `.lock` file, whose descriptor can be handed to the guard.

    flock belongs to the open file, not the process: while the guard keeps the inherited
    descriptor open the lock stays held, even after the runner that took it has died.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self._fallback: BaseFileLock | None = None

    def acquire(self, timeout_s: float = 30.0) -> None:
        if not POSIX:  # pragma: no cover - Windows: filelock, no hand-over
            from filelock import FileLock

            self._fallback = FileLock(str(self.path), timeout=timeout_s)
            self._fallback.acquire()
            return
        from hallmark.core.journal import acquire_fd

        try:
            self.fd = acquire_fd(self.path, timeout_s)
        except TimeoutError:
            raise TimeoutError(f"{self.path} is held by another run") from None

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.fd,) if self.fd is not None else ()

    def release(self) -> None:
        """Close our descriptor: the lock is free once the guard's copy is closed too (it has
        exited by now, since the runner waited for it). Never LOCK_UN, which would free it for
        the guard's copy as well."""
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            self._fallback = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def popen_guarded(command: list[str], **kwargs: Any) -> subprocess.Popen[Any]:  # Popen's own keywords
    """Popen the command under the guard, in a session of its own (kill_group ends all of it)."""
    if POSIX:
        kwargs.setdefault("start_new_session", True)
    return subprocess.Popen(guarded(command), **kwargs)


def run_guarded(
    command: list[str],
    *,
    cwd: str | Path,
    env: dict[str, str] | None = None,
    timeout_s: float | None = None,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    stdin: int | IO[Any] | None = subprocess.DEVNULL,
    pass_fds: tuple[int, ...] = (),
) -> tuple[int, bool]:
    """Run to completion under the guard; returns (exit code, timed out). A timeout, Ctrl-C or a
    stopping daemon ends the whole group."""
    proc = popen_guarded(command, cwd=str(cwd), env=env, stdout=stdout, stderr=stderr, stdin=stdin, pass_fds=pass_fds)
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        proc.wait()
        return 124, True
    except BaseException:
        kill_group(proc)
        proc.wait()
        raise
    return (128 - code if code < 0 else code), False


def stop_on_signals() -> dict[int, object]:
    """In the main thread: SIGTERM and SIGHUP become SystemExit, so a stopping daemon unwinds and
    every runner ends its group and writes its end line. Returns the old handlers to restore."""
    import threading

    old: dict[int, object] = {}
    if threading.current_thread() is not threading.main_thread():
        return old

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            old[sig] = signal.signal(sig, stop)
    return old


def restore_signals(old: dict[int, object]) -> None:
    for sig, handler in old.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]
