"""Which items have their worktree at a path, on disk in small shards: a hook finds a path's owner
by reading the shards of the path's parents, whatever the number of items.

Reading the whole worktree map (a JSON object of every item) on every Edit cost ~10 ms at 10,000
items. The same map, keyed by worktree path and split by a hash of the path into BUCKETS files
under `<state>/cache/worktree-owners/`, answers "who owns this directory" with one small read
per parent directory. core/item_lookup.py owns the map and writes the shards from it; this module
only lays them out, reads them and writes them.

Trusted only as far as `scanned` says: it holds the inode and mtime of `items/` at the last scan
(and of each item folder that had no creation line yet), written after the shards. `items/`
changing (an item added or removed) moves its mtime, and item_lookup scans again before it reads
a shard. Shards name every item the map ever
held (a removed item's folder is gone, which the reader checks); a missing shard is damage, and
item_lookup rebuilds them all. Everything is a cache of the journals: deleting the folder loses
nothing. Stdlib only, no typing at run time (the hook path).
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

DIR_NAME = "worktree-owners"
STAMP_NAME = "scanned"
BUCKETS = 256
VERSION = 1
MAX_SHARD_BYTES = 8 * 1024 * 1024


class Damaged(Exception):
    """A shard the stamp promises is missing or unreadable: rebuild them all."""


def bucket(worktree: str) -> str:
    return f"{zlib.crc32(worktree.encode('utf-8', 'surrogateescape')) % BUCKETS:02x}.json"


def _pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(x) is int for x in value)


def read_stamp(folder: Path) -> dict[str, Any] | None:
    """What the shards were last brought up to (item_lookup's scan stamp: `items/`'s inode and mtime,
    and the folders that had no creation line yet), or None."""
    try:
        with open(folder / STAMP_NAME, "rb") as handle:
            data = json.loads(handle.read(MAX_SHARD_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION or data.get("buckets") != BUCKETS:
        return None
    stamp = data.get("stamp")
    if not isinstance(stamp, dict) or not _pair(stamp.get("items")) or not isinstance(stamp.get("pending"), dict):
        return None
    return stamp if all(_pair(v) for v in stamp["pending"].values()) else None


class Reader:
    """The owners of worktree paths, one shard read per bucket asked for (kept for this reader)."""

    __slots__ = ("folder", "shards")

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.shards: dict[str, dict[str, list[str]]] = {}

    def owners(self, worktree: str) -> list[str]:
        """The items whose worktree is exactly this path (newest first); raises Damaged."""
        name = bucket(worktree)
        shard = self.shards.get(name)
        if shard is None:
            shard = self.shards[name] = _read_shard(self.folder / name)
        found = shard.get(worktree)
        return [i for i in found if isinstance(i, str)] if isinstance(found, list) else []


def _read_shard(path: Path) -> dict[str, list[str]]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SHARD_BYTES + 1)
        record = json.loads(data) if len(data) <= MAX_SHARD_BYTES else None
    except (OSError, ValueError) as exc:
        raise Damaged(str(path)) from exc
    owners = record.get("owners") if isinstance(record, dict) and record.get("v") == VERSION else None
    if not isinstance(owners, dict):
        raise Damaged(str(path))
    return owners


def all_items(folder: Path) -> set[str]:
    """Every item id any shard names (a scan's check that none is missing); raises Damaged."""
    found: set[str] = set()
    for n in range(BUCKETS):
        for ids in _read_shard(folder / f"{n:02x}.json").values():
            if isinstance(ids, list):
                found.update(i for i in ids if isinstance(i, str))
    return found


def group(known: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, list[str]]]:
    """bucket file name -> {worktree: [item ids, newest first]} for every item of the map."""
    shards: dict[str, dict[str, list[str]]] = {}
    for item_id in sorted(known, reverse=True):
        worktree = known[item_id]["worktree"]
        shards.setdefault(bucket(worktree), {}).setdefault(worktree, []).append(item_id)
    return shards


def write(folder: Path, known: Mapping[str, Mapping[str, str]], only: Iterable[str] | None) -> bool:
    """Write the shards (all BUCKETS of them, or only the buckets of these worktrees) from the whole
    map; the stamp is removed first and written by mark() after. False when nothing could be written."""
    shards = group(known)
    names = [f"{n:02x}.json" for n in range(BUCKETS)] if only is None else sorted({bucket(w) for w in only})
    try:
        folder.mkdir(exist_ok=True)
        if only is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(folder / STAMP_NAME)
        for name in names:
            _write_atomic(folder / name, {"v": VERSION, "owners": shards.get(name, {})})
    except OSError:
        return False
    return True


def mark(folder: Path, stamp: dict[str, Any]) -> None:
    """Record the scan the shards now match (after write())."""
    with contextlib.suppress(OSError):
        _write_atomic(folder / STAMP_NAME, {"v": VERSION, "buckets": BUCKETS, "stamp": stamp})


def forget(folder: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(folder / STAMP_NAME)


def _write_atomic(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8") as handle:
            handle.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
