"""Which item owns a path or a session, and which checkout of the repo holds a path: read from the
journals alone, never from the SQLite index, because the hooks ask on every tool call.

- `worktrees.json` under `<state>/cache/` maps each item to its worktree. An item's worktree is
  fixed by its creation event (the first line of its journal), so the map only grows: a lookup
  lists `items/` and reads the first line of any item it has not seen. Deleting the file loses
  nothing; it is rebuilt from the journals.
- An item's state is `states.fold` of its journal (the one fold), so a gate, a hook and `hall
  status` can never disagree about it.

This is the one "item for this path" lookup: the hooks, the gates, `items.resolve` (an id left out
inside a worktree) and the memory store's failure capture all ask here.
"""

from __future__ import annotations

import json
import os

from . import journal, states
from .bounded_read import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .paths import RepoPaths
    from .states import ItemView

CACHE_NAME = "worktrees.json"


def fold_item(paths: RepoPaths, item_id: str) -> ItemView | None:
    """The item's folded view, or None when it has no journal or no creation event."""
    found = fold_item_events(paths, item_id)
    return found[0] if found else None


def fold_item_events(paths: RepoPaths, item_id: str) -> tuple[ItemView, list[dict[str, Any]]] | None:
    """The item's view and the events it was folded from (the hallmark check reads both)."""
    path = paths.item_journal(item_id)
    if not path.exists():
        return None
    events = journal.read(path).events
    view = states.fold(item_id, events)
    if not view.created:
        return None
    return view, events


def _creation(path: Path) -> dict[str, Any] | None:
    """The creation event: the journal's first whole line (or, if that line is torn, a full read)."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:  # never blocks on a FIFO
            first = handle.readline()
    except OSError:
        return None
    if first.endswith(b"\n"):
        record, _ = journal.parse_line(first.rstrip(b"\n"))
        if record is not None and record.get("event") in states.CREATION_EVENTS:
            return record
    for record in journal.read(path).events:
        if record.get("event") in states.CREATION_EVENTS:
            return record
    return None


def worktree_map(paths: RepoPaths) -> dict[str, dict[str, str]]:
    """item id -> {"worktree": real path, "branch": …}, kept in a growing cache."""
    cache_path = paths.state_dir / "cache" / CACHE_NAME
    try:
        cached = json.loads(cache_path.read_text(encoding="utf-8"))
        known: dict[str, dict[str, str]] = cached.get("items", {}) if isinstance(cached, dict) else {}
    except (OSError, ValueError):
        known = {}
    try:
        names = os.listdir(paths.items_dir)
    except OSError:
        return {}
    changed = False
    for name in names:
        if name in known or not name.startswith("H-"):
            continue
        record = _creation(paths.item_journal(name))
        if record is None:
            continue
        worktree = record.get("worktree")
        if not isinstance(worktree, str) or not worktree:
            continue
        known[name] = {"worktree": os.path.realpath(worktree), "branch": str(record.get("branch", ""))}
        changed = True
    if changed:
        _write_cache(cache_path, {"v": 1, "items": known})
    return {k: v for k, v in known.items() if k in names}


def _write_cache(path: Path, data: dict[str, Any]) -> None:
    """Best effort: the map is a cache of the journals, so a failed write costs only a re-read."""
    if not path.parent.parent.is_dir():
        return  # <state>/cache/<name>: never create the state dir, whose existence marks a set-up repo
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def within(path: str, root: str) -> bool:
    """Component-wise containment of two real paths (never a string prefix)."""
    if path == root:
        return True
    root = root.rstrip(os.sep) or os.sep
    return path.startswith(root + os.sep) if root != os.sep else path.startswith(os.sep)


def item_for_path(paths: RepoPaths, where: str | os.PathLike[str]) -> ItemView | None:
    """The active item whose worktree holds `where` (the deepest worktree wins), folded."""
    real = os.path.realpath(where)
    candidates = [
        (len(entry["worktree"]), item_id)
        for item_id, entry in worktree_map(paths).items()
        if within(real, entry["worktree"])
    ]
    for _, item_id in sorted(candidates, reverse=True):
        view = fold_item(paths, item_id)
        if view is not None and view.active:
            return view
    return None


def checkouts(paths: RepoPaths) -> list[str]:
    """The main checkout and every git worktree of this repository (real paths)."""
    found = [os.path.realpath(paths.main_checkout)]
    base = paths.common_dir / "worktrees"
    try:
        names = os.listdir(base)
    except OSError:
        names = []
    for name in names:
        try:
            gitdir = (base / name / "gitdir").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        found.append(os.path.realpath(os.path.dirname(gitdir)))
    found.extend(entry["worktree"] for entry in worktree_map(paths).values())
    return found


def checkout_of(paths: RepoPaths, real: str) -> str | None:
    """The deepest checkout of this repository that holds real, or None (outside the repo)."""
    best = None
    for root in checkouts(paths):
        if within(real, root) and (best is None or len(root) > len(best)):
            best = root
    return best


def session_item(paths: RepoPaths, session_id: str) -> str | None:
    """The item a Claude Code session was bound to (by hall new/adopt/ask), if any."""
    from .ids import session_path

    path = session_path(paths.state_dir, session_id)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    item = data.get("item") if isinstance(data, dict) else None
    return item if isinstance(item, str) and item.startswith("H-") else None


def item_for_session(paths: RepoPaths, cwd: str, session_id: str) -> ItemView | None:
    """The item for a hook: the worktree we stand in, else the session's bound item."""
    view = item_for_path(paths, cwd) if cwd else None
    if view is not None:
        return view
    bound = session_item(paths, session_id)
    if bound:
        return fold_item(paths, bound)
    return None
