"""Which item owns a directory, and where that item stands, without the SQLite index.

The hook path runs on every tool call, so it neither opens the index nor imports the dataclass
fold. Instead:

- `worktrees.json` under `<state>/cache/` maps each item to its worktree. An item's worktree is
  fixed by its creation event (the first line of its journal), so the map only grows: a hook
  lists `items/` and reads the first line of any item it has not seen. Deleting the file loses
  nothing; it is rebuilt from the journals.
- `fold(events)` computes the state, frozen sha and hallmarked sha through the same transition
  table as core/states.py (a property test checks it agrees with states.fold).
"""

from __future__ import annotations

import json
import os

from .. import journal
from ..transitions import CREATION_EVENTS, ESCALATED, TERMINAL, TRANSITIONS, carries_hallmark

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..paths import RepoPaths

CACHE_NAME = "worktrees.json"


def fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields the gates need, folded exactly as states.apply does."""
    view: dict[str, Any] = {"state": "development", "created": "", "sha": "", "hallmark_sha": "", "hold": "",
                            "worktree": "", "branch": "", "title": "", "session": "", "last_event": "", "events": 0,
                            "hallmark_chain": []}
    # hallmark_chain: the indices (into events) of the `hallmarked` event that struck the current
    # hallmark and of each carried `rebased` since; gates/hallmark.py follows it back to the run
    for index, event in enumerate(events):
        name = event.get("event")
        view["events"] += 1
        view["last_event"] = str(name)
        if name in CREATION_EVENTS:
            if view["events"] == 1 or not view["created"]:
                view["created"] = event.get("t", "")
                view["state"] = "development"
            for key in ("title", "branch", "worktree"):
                value = event.get(key)
                if isinstance(value, str) and value:
                    view[key] = value
            continue
        if name in TRANSITIONS:
            nxt = TRANSITIONS[name].get(view["state"])
            if name == "retried" and view["hold"]:
                view["hold"] = ""
                if view["state"] != ESCALATED:
                    continue
                nxt = TRANSITIONS[name].get(view["state"])
            if nxt is None:
                continue
            if name in ("ready", "fix_submitted"):
                view["sha"] = str(event.get("sha", view["sha"]))
                if name == "ready":
                    view["hold"] = ""
            elif name == "checks_failed" and event.get("held"):
                view["hold"] = "checks"
            elif name == "hallmarked":
                view["hallmark_sha"] = str(event.get("sha", view["sha"]))
                view["hallmark_chain"] = [index]
            elif name == "pulled_back":
                view["sha"] = ""
                view["hold"] = ""
                view["hallmark_sha"] = ""
                view["hallmark_chain"] = []
            elif name == "reopened":
                view["hallmark_sha"] = ""
                view["hallmark_chain"] = []
            elif name == "recheck_failed":  # the rebased commit failed its gates: no hallmark any more
                view["sha"] = str(event.get("sha", view["sha"]))
                view["hallmark_sha"] = ""
                view["hallmark_chain"] = []
            view["state"] = nxt
            continue
        if name == "held":
            view["hold"] = str(event.get("kind", "hold"))
        elif name == "rebased" and carries_hallmark(view["state"], event):
            view["hallmark_sha"] = view["sha"] = str(event["sha"])
            view["hallmark_chain"] = view["hallmark_chain"] + [index]
        elif name == "released":
            view["hold"] = ""
        elif name == "session_bound":
            view["session"] = str(event.get("session", ""))
        elif name == "titled":
            view["title"] = str(event.get("title", view["title"]))
    view["active"] = bool(view["created"]) and view["state"] not in TERMINAL
    return view


def fold_item(paths: RepoPaths, item_id: str) -> dict[str, Any] | None:
    found = fold_item_events(paths, item_id)
    return found[0] if found else None


def fold_item_events(paths: RepoPaths, item_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The item's view and the events it was folded from (the hallmark check reads both)."""
    path = paths.item_journal(item_id)
    if not path.exists():
        return None
    events = journal.read(path).events
    view = fold(events)
    if not view["created"]:
        return None
    view["id"] = item_id
    return view, events


def _creation(path: os.PathLike[str] | str) -> dict[str, Any] | None:
    """The creation event: the journal's first whole line (or, if that line is torn, a full read)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
    except OSError:
        return None
    if first.endswith(b"\n"):
        record, _ = journal.parse_line(first.rstrip(b"\n"))
        if record is not None and record.get("event") in CREATION_EVENTS:
            return record
    for record in journal.read(path).events:
        if record.get("event") in CREATION_EVENTS:
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
        _write_json(cache_path, {"v": 1, "items": known})
    return {k: v for k, v in known.items() if k in names}


def _write_json(path, data: dict[str, Any]) -> None:
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


def item_for_path(paths: RepoPaths, real: str) -> dict[str, Any] | None:
    """The active item whose worktree holds real (the deepest worktree wins)."""
    candidates = [(len(entry["worktree"]), item_id, entry["worktree"])
                  for item_id, entry in worktree_map(paths).items() if within(real, entry["worktree"])]
    for _, item_id, _ in sorted(candidates, reverse=True):
        view = fold_item(paths, item_id)
        if view is not None and view["active"]:
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
    for entry in worktree_map(paths).values():
        found.append(entry["worktree"])
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
    if not session_id or "/" in session_id or session_id.startswith("."):
        return None
    try:
        data = json.loads((paths.state_dir / "sessions" / f"{session_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    item = data.get("item") if isinstance(data, dict) else None
    return item if isinstance(item, str) and item.startswith("H-") else None


def item_for_session(paths: RepoPaths, cwd: str, session_id: str) -> dict[str, Any] | None:
    """The item for a hook: the worktree we stand in, else the session's bound item."""
    view = item_for_path(paths, os.path.realpath(cwd)) if cwd else None
    if view is not None:
        return view
    bound = session_item(paths, session_id)
    if bound:
        return fold_item(paths, bound)
    return None
