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
    from collections.abc import Iterable, Iterator, Mapping
    from pathlib import Path
    from typing import Any

    from .paths import RepoPaths
    from .states import ItemView

CACHE_NAME = "worktrees.json"


def fold_item(paths: RepoPaths, item_id: str) -> ItemView | None:
    """The item's folded view, or None when it has no journal or no creation event. Folded through
    the item's snapshot (core/fold_cache.py), so only the events appended since are read."""
    from .fold_cache import folded

    view = folded(paths.item_journal(item_id), item_id)
    return view if view is not None and view.created else None


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


def worktree_map(paths: RepoPaths) -> Mapping[str, Mapping[str, str]]:
    """item id -> {"worktree": real path, "branch": …}, kept in a growing cache (read-only)."""
    return _lookup(paths).by_item


class _Lookup:
    """One scan of `items/`: the map, and the same map keyed by worktree (a path's owner is then
    found by walking the path's parents, not by testing every item)."""

    __slots__ = ("by_item", "by_worktree")

    def __init__(self, by_item: dict[str, dict[str, str]]) -> None:
        import types

        self.by_item: Mapping[str, Mapping[str, str]] = types.MappingProxyType(by_item)
        by_worktree: dict[str, list[str]] = {}
        for item_id in sorted(by_item, reverse=True):  # a shared worktree: the newest item first
            by_worktree.setdefault(by_item[item_id]["worktree"], []).append(item_id)
        self.by_worktree = by_worktree


# items dir -> (the scan's stamp, the scan): `items/` changing (an item added or removed) moves its
# mtime, so a scan stays good until then (or until a folder that had no creation line changes). Never
# kept for a listing less than RACY_NS old: a change within the same clock tick would not move the mtime.
_SCANS: dict[str, tuple[dict[str, Any], _Lookup]] = {}
RACY_NS = 2_000_000_000


def _stamp(paths: RepoPaths, pending: Iterable[str]) -> dict[str, Any] | None:
    """What a scan of `items/` depends on: `items/` itself (an item added or removed moves its mtime)
    and each item folder that had no creation line yet (its mtime, its journal's size)."""
    try:
        st = os.stat(paths.items_dir)
    except OSError:
        return None
    return {"items": [st.st_ino, st.st_mtime_ns], "pending": {name: _mark(paths, name) for name in pending}}


def _mark(paths: RepoPaths, name: str) -> list[int]:
    """An item folder without a creation line: [its mtime, its journal's size] (-1 when absent)."""
    folder = paths.item_dir(name)
    marks = []
    for path in (folder, folder / "events.jsonl"):
        try:
            st = os.stat(path)
        except OSError:
            marks.append(-1)
            continue
        marks.append(st.st_mtime_ns if path is folder else st.st_size)
    return marks


def _current(paths: RepoPaths, stamp: dict[str, Any] | None) -> bool:
    return stamp is not None and _stamp(paths, stamp["pending"]) == stamp


def _lookup(paths: RepoPaths, *, rebuild: bool = False) -> _Lookup:
    """The scan of `items/`: kept from before while `items/` is unchanged, else scanned again (and
    the owner shards brought up to it, core/worktree_owners.py)."""
    items_dir = str(paths.items_dir)
    kept = _SCANS.get(items_dir)
    if kept is not None and not rebuild and _current(paths, kept[0]):
        return kept[1]
    if not os.path.isdir(items_dir):
        return _Lookup({})  # not set up: nothing to scan, and the state dir is never created here
    from . import worktree_owners
    from .errors import HallError

    folder = paths.state_dir / "cache" / worktree_owners.DIR_NAME
    try:
        with journal.locked(folder, timeout=5.0):  # one scanner writes the shards at a time
            scan, stamp = _rescan(paths, folder, rebuild)
    except (HallError, OSError):  # no lock: scan without writing (a cache; a later call writes)
        found, _, _ = _scan(paths, write=False)
        return _Lookup(found or {})
    if stamp is not None:
        _SCANS[items_dir] = (stamp, scan)
    return scan


def _rescan(paths: RepoPaths, folder: Path, rebuild: bool) -> tuple[_Lookup, dict[str, Any] | None]:
    """Scan `items/`, then write the owner shards every live item is missing from (all of them when
    one is damaged or rebuild is asked) and, when `items/` did not move during the scan, the stamp
    that lets a hook read the shards. Returns (the scan, its stamp when it may be kept)."""
    from . import worktree_owners

    before = _stamp(paths, ())
    found, known, pending = _scan(paths, write=True)
    scan = _Lookup(found or {})
    if found is None or before is None:
        return scan, None
    import time

    stamp: dict[str, Any] | None = {"items": before["items"], "pending": pending}  # marks from before each read
    if time.time_ns() - before["items"][1] <= RACY_NS:
        stamp = None  # a change in the same clock tick would not move the mtime: not kept, not marked
    wrote = True
    if stamp is None or worktree_owners.read_stamp(folder) != stamp:
        try:
            in_shards = None if rebuild else worktree_owners.all_items(folder)
        except worktree_owners.Damaged:
            in_shards = None
        if in_shards is None:
            wrote = worktree_owners.write(folder, known, None)
        else:
            missing = [found[k]["worktree"] for k in found if k not in in_shards]
            wrote = not missing or worktree_owners.write(folder, known, missing)
    if stamp is None or not _current(paths, stamp):  # items/ or a pending folder moved while we read
        return scan, None
    if wrote:
        worktree_owners.mark(folder, stamp)
    return scan, stamp


def _scan(
    paths: RepoPaths, *, write: bool
) -> tuple[dict[str, dict[str, str]] | None, dict[str, dict[str, str]], dict[str, list[int]]]:
    """(the live items' map, every item the map ever held, the item folders without a creation line
    yet with their marks taken before the read); the live map is None without `items/`."""
    cache_path = paths.state_dir / "cache" / CACHE_NAME
    try:
        cached = json.loads(cache_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cached = None
    items = cached.get("items") if isinstance(cached, dict) else None
    known: dict[str, dict[str, str]] = (
        {k: v for k, v in items.items() if isinstance(v, dict) and isinstance(v.get("worktree"), str)}
        if isinstance(items, dict)
        else {}
    )
    try:
        names = set(os.listdir(paths.items_dir))
    except OSError:
        return None, known, {}
    changed = False
    pending: dict[str, list[int]] = {}
    for name in names:
        if name in known or not name.startswith("H-"):
            continue
        mark = _mark(paths, name)
        record = _creation(paths.item_journal(name))
        if record is None:
            pending[name] = mark  # being created right now, or damaged: watched by the stamp
            continue
        worktree = record.get("worktree")
        if not isinstance(worktree, str) or not worktree:
            continue
        known[name] = {"worktree": os.path.realpath(worktree), "branch": str(record.get("branch", ""))}
        changed = True
    if changed and write:
        _write_cache(cache_path, {"v": 1, "items": known})
    return {k: v for k, v in known.items() if k in names}, known, pending


def _parents(real: str) -> Iterator[str]:
    """real, then each directory above it up to the root (deepest first)."""
    while True:
        yield real
        parent = os.path.dirname(real)
        if parent == real:
            return
        real = parent


def _owners_along(paths: RepoPaths, real: str) -> list[tuple[str, str]]:
    """(worktree, item id) for every item whose worktree holds real, deepest first: from the owner
    shards when they match `items/` (a few small reads), else from a scan. A removed item may be
    named (the shards keep every item); the callers check the item is still there."""
    from . import worktree_owners

    folder = paths.state_dir / "cache" / worktree_owners.DIR_NAME
    if _current(paths, worktree_owners.read_stamp(folder)):
        reader = worktree_owners.Reader(folder)
        try:
            return [(path, item_id) for path in _parents(real) for item_id in reader.owners(path)]
        except worktree_owners.Damaged:
            worktree_owners.forget(folder)
            by_worktree = _lookup(paths, rebuild=True).by_worktree
    else:
        by_worktree = _lookup(paths).by_worktree
    return [(path, item_id) for path in _parents(real) for item_id in by_worktree.get(path, ())]


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
    for _, item_id in _owners_along(paths, os.path.realpath(where)):
        view = fold_item(paths, item_id)
        if view is not None and view.active:
            return view
    return None


def _git_checkouts(paths: RepoPaths) -> list[str]:
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
    return found


def checkouts(paths: RepoPaths) -> list[str]:
    """The main checkout, every git worktree of this repository and every item's worktree (real paths)."""
    return _git_checkouts(paths) + [entry["worktree"] for entry in worktree_map(paths).values()]


def checkout_of(paths: RepoPaths, real: str) -> str | None:
    """The deepest checkout of this repository that holds real, or None (outside the repo)."""
    best = None
    for root in _git_checkouts(paths):
        if within(real, root) and (best is None or len(root) > len(best)):
            best = root
    for path, item_id in _owners_along(paths, real):  # the deepest item worktree holding real
        if os.path.isdir(paths.item_dir(item_id)):
            if best is None or len(path) > len(best):
                best = path
            break
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
