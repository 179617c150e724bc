"""`hall statusline`: one line for Claude Code's `statusLine` command, e.g.
`◆ 2 waiting · H-0042 review r2 · $1.84 today`.

Claude Code runs the command after every assistant message (at most every 300 ms) with a JSON
payload on stdin (`session_id`, `cwd`, `workspace.current_dir`, `cost`, …) and shows the first line
it prints. So this is as light as the hooks: it reads the derived index only (no git, no writes, no
pydantic, no Textual), and the count is core/waiting's one count, the number the app's footer and
`hall inbox` show. A payload it cannot read, or a directory that is not a Hallmark repository, gives
an empty line (Claude Code then shows none); a broken index says so in a few words, never a traceback.

The line is kept in `<state dir>/statusline.json`, keyed by what it is made of: the stamps (mtime,
size) of the repository's journal, every item's journal, the dismissals and the session's binding,
the directory, the session and the day. While none of them changed the line is read back (a stat
per journal, no SQLite); any change recomputes it from core/waiting, and so does age: a kept line
is at most FRESH_S old, since the daemon's liveness ("daemon stopped") changes with time alone.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing is not imported on this path
if TYPE_CHECKING:
    from .paths import RepoPaths
    from .repo import Repo

MAX_PAYLOAD = 1 << 20  # Claude Code's payload is a few KB; anything larger is not one
SEP = " · "
CACHE_NAME = "statusline.json"
FRESH_S = 15.0  # a kept line is recomputed after this long even when nothing it reads changed
KEEP = 16  # lines kept (one per directory and session)
MAX_CACHE = 64 * 1024


def parse_payload(raw: bytes) -> dict:
    """The stdin JSON as a dict ({} for anything else: empty, too large, not JSON, not an object)."""
    if not raw or len(raw) > MAX_PAYLOAD:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _where(payload: dict) -> str:
    """The session's directory: workspace.current_dir, else cwd, else our own."""
    workspace = payload.get("workspace")
    for value in (workspace.get("current_dir") if isinstance(workspace, dict) else None, payload.get("cwd")):
        if isinstance(value, str) and value and "\0" not in value:
            return value
    return os.getcwd()


def waiting_part(count: int) -> str:
    return f"◆ {count} waiting" if count else "nothing waiting"


def item_part(paths: RepoPaths, where: str, session: str) -> str | None:
    """The session's item as `H-0042 review r2` (the worktree it stands in, else the item the
    session was bound to), or None."""
    from .item_lookup import item_for_session

    view = item_for_session(paths, where, session if isinstance(session, str) else "")
    if view is None:
        return None
    text = f"{view.id} {view.state.replace('_', ' ')}"
    return f"{text} r{view.round}" if view.round else text


def cost_today(repo: Repo) -> float:
    """Today's list-price cost in this repository (UTC day), from the index's usage events: the
    same sum `hall budget` shows as today's cost_usd."""
    from . import clock

    since = clock.now().strftime("%Y-%m-%d") + "T00:00:00.000Z"
    total = 0.0
    for event in repo.index.events(kinds=["usage"], since=since):
        try:
            total += float(event.get("cost_usd") or 0)
        except (TypeError, ValueError):
            continue
    return total


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def freshness(paths: RepoPaths, where: str, session: str) -> list:
    """Everything the line is made of, as cheap stamps: equal stamps, equal line."""
    import time

    from .ids import session_path

    state = str(paths.state_dir)
    items_dir = os.path.join(state, "items")
    try:
        names = sorted(os.listdir(items_dir))
    except OSError:
        names = []
    return [
        where,
        session,
        time.strftime("%Y-%m-%d", time.gmtime()),
        _stamp(os.path.join(state, "events.jsonl")),
        _stamp(os.path.join(state, "inbox-dismissed.json")),
        _stamp(str(bound)) if (bound := session_path(paths.state_dir, session)) else None,
        [[name, _stamp(os.path.join(items_dir, name, "events.jsonl"))] for name in names],
    ]


def _read_cache(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CACHE + 1)
        data = json.loads(raw) if len(raw) <= MAX_CACHE else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: str, data: dict) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
    except OSError:
        try:  # noqa: SIM105 - contextlib is one more import on a path that runs every message
            os.unlink(tmp)
        except OSError:
            pass


def line(payload: dict) -> str:
    """The status line for a payload ('' outside a Hallmark repository): the kept one while
    nothing it is made of changed, else computed and kept."""
    import time

    from .paths import hallmark_above

    where = _where(payload)
    paths = hallmark_above(where)  # the file system only, no git process
    if paths is None:
        return ""
    session = str(payload.get("session_id") or "")
    slot = f"{where}\0{session}"
    stamps = freshness(paths, where, session)
    cache_path = os.path.join(str(paths.state_dir), CACHE_NAME)
    cache = _read_cache(cache_path)
    kept = cache.get(slot)
    now = time.time()
    if isinstance(kept, dict) and kept.get("key") == stamps and 0 <= now - float(kept.get("at") or 0) < FRESH_S:
        return str(kept.get("line") or "")
    text = compute(paths, where, session)
    if not text.startswith("◆ hallmark:"):  # an error is not kept: the next message tries again
        cache = {k: v for k, v in cache.items() if isinstance(v, dict) and now - float(v.get("at") or 0) < 3600}
        cache[slot] = {"key": stamps, "at": now, "line": text}
        _write_cache(cache_path, dict(sorted(cache.items(), key=lambda kv: kv[1]["at"])[-KEEP:]))
    return text


def compute(paths: RepoPaths, where: str, session: str) -> str:
    """The line from core/waiting's count, the session's item and today's cost (the index)."""
    from . import waiting
    from .repo import Repo

    repo = Repo(paths, paths.main_checkout)
    try:
        parts = [waiting_part(waiting.waiting_for_you(repo).count)]
        item = item_part(paths, where, session)
        if item:
            parts.append(item)
        parts.append(f"${cost_today(repo):.2f} today")
    except Exception as exc:  # noqa: BLE001 - a status line never breaks the session; it says where to look
        return f"◆ hallmark: {type(exc).__name__} (hall doctor)"
    return SEP.join(parts)


def main(raw: bytes) -> str:
    return line(parse_payload(raw))


def run_stdin() -> int:
    """Read the payload on stdin, print the line; exit 0 whatever happens (a status line that
    fails only blanks itself). `hall statusline` and `hall-hook statusline` both end here; the
    second is what `hall setup claude --statusline` installs, as it skips the CLI's own imports."""
    import sys

    try:
        stdin = sys.stdin
        raw = b"" if stdin is None or stdin.isatty() else stdin.buffer.read(MAX_PAYLOAD + 1)
        text = main(raw)
    except Exception as exc:  # noqa: BLE001 - never a traceback in the status line
        text = f"◆ hallmark: {type(exc).__name__} (hall doctor)"
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    return 0
