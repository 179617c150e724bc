"""The agent-verb channel: how `hall` inside the sandbox records what only Hallmark may write.

Inside Claude Code's sandbox the state directory is read-only, so the few verbs an agent must run
that write Hallmark's state (AGENT_VERBS: `hall fixed`, `propose-ready`, `ask`, `new`, `findings`,
`checkpoint set`, `library propose`) are handed to a small server outside it
(core/agent_channel_server.py), hosted by the process that launched the agent for as long as the
agent lives. The sandbox stays whole: the agent can reach nothing but these verbs, and a person's
decision sent this way is refused like any other an agent makes.

The transport is a spool directory, not a socket: on Linux the sandbox blocks creating any unix
socket (seccomp; Claude Code's `allowUnixSockets` is macOS-only), and opening them all
(`allowAllUnixSockets`) would hand the agent the docker socket, the session bus and the ssh agent.
The spool is a fresh 0700 folder under `/tmp/hallmark-<uid>/` named by `HALL_CHANNEL`, the one place
outside its worktree the sandbox lets the agent write. A request is `<id>.req.json` (written
beside, then renamed in); the server claims it by renaming it, runs the verb as `hall` would, and
answers with `<id>.reply.json`. Stdlib only: `hall` calls this before loading any command.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import sys
import time
from pathlib import Path
from typing import Any

from .errors import HallError

ENV = "HALL_CHANNEL"
AGENT_VERBS = frozenset(
    {
        ("fixed",),
        ("propose-ready",),
        ("ask",),
        ("new",),
        ("findings",),
        ("checkpoint", "set"),
        ("library", "propose"),
    }
)
# nothing that starts a process (`new --open`), moves the cwd, or reads a file outside the sandbox
# with the server's reach (`checkpoint set --from-file`; stdin, `-`, is passed instead); argparse
# takes any unambiguous prefix of a long option, so a prefix is refused as the option itself
REFUSED_OPTIONS = ("--open", "--yolo", "--from-file")
MAX_STDIN = 128 * 1024
PASSED_ENV = ("HALL_SESSION_ID", "HALL_ITEM", "AGENTMEMORY_PROJECT_NAME", "CLAUDE_CODE_ENTRYPOINT")
MAX_REQUEST = 256 * 1024
MAX_ARGS = 64
MAX_ARG = 16 * 1024
CLAIM_TIMEOUT_S = 15.0
ALIVE = "alive"  # the server touches it every second; a stale one means nobody is serving
STALE_S = 10.0
POLL_S = 0.05


def words_of(argv: list[str]) -> tuple[str, ...]:
    """The command words (no options), e.g. ("checkpoint", "set", "H-0001")."""
    found: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "-C":
            skip = True
            continue
        if arg.startswith("-"):
            continue
        found.append(arg)
    return tuple(found)


def agent_verb(argv: list[str]) -> tuple[str, ...] | None:
    """The agent verb argv names, or None."""
    words = words_of(argv)
    for verb in AGENT_VERBS:
        if words[: len(verb)] == verb:
            return verb
    return None


def _state_writable(cwd: Path) -> bool | None:
    """Whether this process can write the repository's state dir (None: not a Hallmark repo)."""
    from .paths import discover

    paths = discover(cwd, required=False)
    if paths is None or not paths.initialized:
        return None
    return os.access(paths.state_dir, os.W_OK)


def should_forward(argv: list[str], cwd: Path | None = None) -> bool:
    """True for an agent verb run where the state dir cannot be written (inside the sandbox)."""
    if agent_verb(argv) is None:
        return False
    where = Path(cwd or os.getcwd())
    chdir = _chdir(argv)
    if chdir:
        where = (where / chdir).resolve()
    return _state_writable(where) is False


def _chdir(argv: list[str]) -> str | None:
    for index, arg in enumerate(argv[:-1]):
        if arg == "-C":
            return argv[index + 1]
    return None


def request_body(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> dict[str, Any]:
    """What the client sends: the verb's argv (any -C folded into cwd), cwd, and the few variables
    that say which session and item (everything else the server takes from its own launch)."""
    chdir = _chdir(argv)
    if chdir:
        cwd = (cwd / chdir).resolve()
        index = argv.index("-C")
        argv = argv[:index] + argv[index + 2 :]
    return {
        "argv": list(argv),
        "cwd": str(cwd),
        "env": {k: env[k] for k in PASSED_ENV if env.get(k)},
        "stdin": stdin,
    }


def check_request(data: Any) -> dict[str, Any]:
    """A request, typed and bounded, or HallError (the server's first check)."""
    if not isinstance(data, dict):
        raise HallError("USAGE", "a channel request is a JSON object")
    argv, cwd, env, stdin = data.get("argv"), data.get("cwd"), data.get("env", {}), data.get("stdin", "")
    if not isinstance(argv, list) or not argv or len(argv) > MAX_ARGS:
        raise HallError("USAGE", "a channel request's argv is a list of 1 to 64 words")
    if not all(isinstance(a, str) and len(a) <= MAX_ARG and "\0" not in a for a in argv):
        raise HallError("USAGE", "a channel request's argv holds strings only")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise HallError("USAGE", "a channel request's cwd is an absolute path")
    if not isinstance(env, dict) or not all(k in PASSED_ENV and isinstance(v, str) for k, v in env.items()):
        raise HallError("USAGE", f"a channel request passes only {', '.join(PASSED_ENV)}")
    if not isinstance(stdin, str) or len(stdin) > MAX_STDIN:
        raise HallError("USAGE", "a channel request's stdin is text of at most 128 KiB")
    verb = agent_verb(argv)
    if verb is None:
        shown = " ".join(words_of(argv)[:2]) or argv[0]
        raise HallError(
            "GATE_DENIED",
            f"`hall {shown}` is not an agent verb; inside the sandbox only "
            + ", ".join("hall " + " ".join(v) for v in sorted(AGENT_VERBS))
            + " reach Hallmark's state.",
            ["a person runs it in their own terminal"],
        )
    refused = _refused_option(argv)
    if refused:
        raise HallError("GATE_DENIED", f"{refused} is not accepted through the agent-verb channel.")
    return {"argv": argv, "cwd": cwd, "env": env, "stdin": stdin, "verb": verb}


def _refused_option(argv: list[str]) -> str | None:
    for index, arg in enumerate(argv):
        if arg == "-C" or (arg.startswith("-C") and not arg.startswith("--")):
            return "-C"
        name, eq, value = arg.partition("=")
        if not name.startswith("--") or len(name) < 4:
            continue
        for option in REFUSED_OPTIONS:
            if option.startswith(name):
                given = value if eq else (argv[index + 1] if index + 1 < len(argv) else "")
                if option == "--from-file" and given == "-":
                    continue  # stdin: what the client read and sent
                return option
    return None


def _read_bounded(path: Path, limit: int = MAX_REQUEST) -> Any:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:  # never a link the agent left to a file it cannot read
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path.name} is over {limit} bytes")
    return json.loads(data.decode("utf-8"))


def _write_atomic(folder: Path, name: str, data: dict[str, Any]) -> None:
    tmp = folder / f".{name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(tmp, flags, 0o600), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data))
    os.replace(tmp, folder / name)


def _alive(spool: Path) -> bool:
    try:
        return time.time() - (spool / ALIVE).stat().st_mtime < STALE_S
    except OSError:
        return False


def _daemon_spool() -> str:
    """The daemon's spool (plain sessions have no launcher of their own), when it is served."""
    from .agent_channel_server import DAEMON_SPOOL, channel_root_path

    spool = channel_root_path() / DAEMON_SPOOL
    return str(spool) if _alive(spool) else ""


def forward(argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> int:
    """Send the verb through the channel, print what it printed, return its exit code."""
    env = dict(os.environ if env is None else env)
    spool_text = env.get(ENV, "").strip() or _daemon_spool()
    if not spool_text or not Path(spool_text).is_dir() or not _alive(Path(spool_text)):
        raise HallError(
            "COMMAND_FAILED",
            "Hallmark's state is read-only in this sandbox, and no agent-verb channel is serving it "
            f"({ENV} {'names no live channel' if spool_text else 'is not set'}).",
            [
                "start the session with `hall new --open` (it serves the channel)",
                "or run `hall daemon start` in your own terminal",
            ],
        )
    spool = Path(spool_text)
    stdin = ""
    if "-" in argv:  # only a verb told to read stdin waits for it (a Bash tool's stdin may never close)
        try:
            stdin = sys.stdin.read(MAX_STDIN)
        except (OSError, ValueError):
            stdin = ""
    body = request_body(list(argv), Path(cwd or os.getcwd()), env, stdin)
    rid = f"{int(time.time() * 1000)}-{secrets.token_hex(6)}"
    _write_atomic(spool, f"{rid}.req.json", body)
    reply_path = spool / f"{rid}.reply.json"
    request_path = spool / f"{rid}.req.json"
    started = time.monotonic()
    while not reply_path.exists():
        if request_path.exists() and time.monotonic() - started > CLAIM_TIMEOUT_S:
            request_path.unlink(missing_ok=True)
            raise HallError("COMMAND_FAILED", "No agent-verb server took the request.", ["hall doctor"])
        if not _alive(spool):
            raise HallError("COMMAND_FAILED", "The agent-verb server stopped before it answered.", ["hall doctor"])
        time.sleep(POLL_S)
    try:
        reply = _read_bounded(reply_path, 16 * 1024 * 1024)
    finally:
        reply_path.unlink(missing_ok=True)
    if not isinstance(reply, dict):
        raise HallError("COMMAND_FAILED", "The agent-verb server's answer is not a JSON object.")
    sys.stdout.write(str(reply.get("stdout") or ""))
    sys.stderr.write(str(reply.get("stderr") or ""))
    sys.stdout.flush()
    code = reply.get("code")
    return code if isinstance(code, int) else 1
