"""The agent-verb server: outside the sandbox, runs the agent verbs a sandboxed `hall` hands over.

Hosted by whoever launches an agent (the runner for every headless run, `hall new --open`,
`hall takeover --run`) for as long as that agent lives: `serving(paths, env)` makes the spool
(a fresh 0700 folder under `/tmp/hallmark-<uid>/`), answers requests in a thread, and removes it at
the end. Each request is checked (core/agent_channel.check_request: an agent verb, typed, bounded,
nothing that starts a process), its cwd must be one of the repository's checkouts, and it runs as
`hall <argv>` with the environment the launcher gave the agent (HALL_ACTOR and HALL_RUN are the
launcher's, never the request's) and CLAUDECODE=1, so a person's decision is refused as it is to
any agent. Credential variables are removed as for the agent itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import agent_channel as channel
from .errors import HallError
from .paths import RepoPaths, is_within

DAEMON_SPOOL = "daemon"  # under channel_root(): the daemon's spool, for plain sessions (no launcher)
RUN_TIMEOUT_S = 24 * 3600.0  # `hall ask --wait` may wait for a person for hours
OUTPUT_LIMIT = 4 * 1024 * 1024


def channel_root_path() -> Path:
    """`/tmp/hallmark-<uid>` (not $TMPDIR: inside the sandbox that is Claude Code's own temp dir)."""
    return Path("/tmp") / f"hallmark-{os.getuid() if hasattr(os, 'getuid') else 0}"


def channel_root() -> Path:
    """channel_root_path(), made: per user, 0700, ours (refused when another user made it)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    root = channel_root_path()
    with contextlib.suppress(FileExistsError):
        root.mkdir(mode=0o700)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        raise HallError(
            "COMMAND_FAILED",
            f"{root} is not a private folder of this user; the agent-verb channel will not use it.",
            [f"remove {root}"],
        )
    return root


def hall_command() -> list[str]:
    """The `hall` of this installation (beside this interpreter)."""
    beside = Path(sys.executable).parent / "hall"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-c", "from hallmark.tui.cli import entry; entry()"]


class Server:
    """One spool, served by one thread until `stop()`."""

    def __init__(self, paths: RepoPaths | list[RepoPaths], env: dict[str, str], *, spool: Path | None = None) -> None:
        self.repos = paths if isinstance(paths, list) else [paths]
        self.env = dict(env)
        if spool is None:
            _prune(channel_root())
            self.spool = Path(tempfile.mkdtemp(prefix="agent-verbs-", dir=channel_root()))
        else:
            spool.mkdir(mode=0o700, exist_ok=True)
            self.spool = spool
        self._owned = spool is None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="agent-verbs", daemon=True)
        self._workers: list[threading.Thread] = []

    def start(self) -> Server:
        (self.spool / channel.ALIVE).touch()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=5)
        if self._owned:
            shutil.rmtree(self.spool, ignore_errors=True)
        else:
            (self.spool / channel.ALIVE).unlink(missing_ok=True)

    def _loop(self) -> None:
        beat = 0.0
        while not self._stop.is_set():
            now = time.time()
            if now - beat >= 1.0:
                with contextlib.suppress(OSError):
                    os.utime(self.spool / channel.ALIVE)
                beat = now
            try:
                names = sorted(os.listdir(self.spool))
            except OSError:
                return
            for name in names:
                if name.endswith(".req.json") and not name.startswith("."):
                    self._claim(name)
            self._stop.wait(channel.POLL_S)

    def _claim(self, name: str) -> None:
        rid = name.removesuffix(".req.json")
        work = self.spool / f".{rid}.work"
        try:
            os.rename(self.spool / name, work)
        except OSError:
            return
        worker = threading.Thread(target=self._answer, args=(rid, work), daemon=True)
        self._workers.append(worker)
        worker.start()

    def _answer(self, rid: str, work: Path) -> None:
        try:
            reply = self.handle(channel._read_bounded(work))
        except (ValueError, OSError) as exc:
            reply = _error(HallError("USAGE", f"unreadable channel request: {exc}"))
        finally:
            work.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            channel._write_atomic(self.spool, f"{rid}.reply.json", reply)

    def handle(self, data: Any) -> dict[str, Any]:
        """Check one request and run it; the reply is {code, stdout, stderr}."""
        try:
            request = channel.check_request(data)
            cwd = Path(os.path.realpath(request["cwd"]))
            if not any(is_within(cwd, Path(root)) for root in self._checkouts()):
                raise HallError(
                    "GATE_DENIED",
                    f"{cwd} is not a checkout of a repository this channel serves.",
                )
        except HallError as exc:
            return _error(exc)
        env = {k: v for k, v in self.env.items() if k not in _credential_env()}
        env.update(request["env"])
        env["CLAUDECODE"] = "1"  # an agent's request, whatever it says of itself
        env.setdefault("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
        env.pop(channel.ENV, None)
        try:
            proc = subprocess.run(
                [*hall_command(), *request["argv"]],
                cwd=str(cwd),
                env=env,
                input=request["stdin"],
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return _error(HallError("COMMAND_FAILED", f"hall could not run: {exc}"))
        return {"code": proc.returncode, "stdout": proc.stdout[-OUTPUT_LIMIT:], "stderr": proc.stderr[-OUTPUT_LIMIT:]}

    def _checkouts(self) -> list[str]:
        from .item_lookup import checkouts

        return [os.path.realpath(p) for paths in self.repos for p in checkouts(paths)]


PRUNE_AFTER_S = 3600.0


def _prune(root: Path) -> None:
    """Remove the spools of launchers that died without removing theirs (no heartbeat for an hour)."""
    now = time.time()
    for folder in root.glob("agent-verbs-*"):
        try:
            beat = (folder / channel.ALIVE).stat().st_mtime
        except OSError:
            beat = folder.stat().st_mtime if folder.exists() else now
        if now - beat > PRUNE_AFTER_S:
            shutil.rmtree(folder, ignore_errors=True)


def _credential_env() -> tuple[str, ...]:
    from .sandbox_wall import CREDENTIAL_ENV

    return CREDENTIAL_ENV


def _error(exc: HallError) -> dict[str, Any]:
    return {"code": exc.exit_code, "stdout": exc.to_json() + "\n", "stderr": ""}


@contextlib.contextmanager
def serving(paths: RepoPaths, env: dict[str, str]) -> Iterator[Server]:
    """Serve the agent verbs for one launched agent; `server.spool` goes into its HALL_CHANNEL."""
    server = Server(paths, env).start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def daemon_channel(roots: list[Path]) -> Iterator[Server | None]:
    """The daemon's spool (`/tmp/hallmark-<uid>/daemon`) for plain sessions in these repositories,
    which no launcher of Hallmark's serves; None (and nothing served) where it cannot be made."""
    from .paths import discover

    repos = [p for p in (discover(Path(r), required=False) for r in roots) if p is not None and p.initialized]
    try:
        server = Server(repos, dict(os.environ), spool=channel_root() / DAEMON_SPOOL).start() if repos else None
    except (HallError, OSError):
        server = None
    try:
        yield server
    finally:
        if server is not None:
            server.stop()
