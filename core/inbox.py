"""Your Office: escalations only, oldest first, derived from the journal (via the index).

A dismissed entry stays hidden until it changes: dismissals remember a fingerprint.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import atomic, journal, states
from .errors import HallError
from .inbox_results import InboxEntry, Notice, QuestionEntry
from .repo import Repo, current_actor

if TYPE_CHECKING:
    from .item_results import InboxReport


def _fingerprint(key: str, since: str, text: str) -> str:
    """What a dismissal remembers: the entry hides until its key, time or text changes."""
    return hashlib.sha1(f"{key}|{since}|{text}".encode()).hexdigest()[:12]


def _entry(kind: str, item: str | None, since: str, text: str, key: str, nxt: list[str]) -> InboxEntry:
    return InboxEntry(
        kind=kind,
        item=item,
        since=since,
        text=text,
        key=key,
        fingerprint=_fingerprint(key, since, text),
        next=tuple(nxt),
    )


def entries(repo: Repo, views: list[states.ItemView] | None = None) -> list[InboxEntry]:
    """Every escalation, oldest first. `views` (the index's items, when the caller has them) spares
    a second read of every item."""
    found: list[InboxEntry] = []
    for q in repo.index.questions(open_only=True):
        opts = f" [{', '.join(q['options'])}]" if q["options"] else ""
        since, text = q["asked"] or "", f"{q['question']}{opts}"
        found.append(
            QuestionEntry(
                kind="question",
                item=q["item"],
                since=since,
                text=text,
                key=q["qid"],
                fingerprint=_fingerprint(q["qid"], since, text),
                next=(f"hall answer {q['qid']} <answer>",),
                qid=q["qid"],
                options=q["options"],
                default=q["default"],
            )
        )
    for view in repo.index.items(include_terminal=False) if views is None else views:
        if view.terminal:
            continue
        if view.state == states.ESCALATED:
            found.append(
                _entry(
                    "escalated",
                    view.id,
                    view.state_since,
                    f"{view.title}: {view.rejects} rejected reviews",
                    f"escalated:{view.id}",
                    [f'hall retry {view.id} --reason "…"', f"hall log {view.id} --kind verdict"],
                )
            )
        elif view.state == states.AWAITING_YOU:
            found.append(
                _entry(
                    "ready?",
                    view.id,
                    view.state_since,
                    f"{view.title}: {view.summary or 'ready?'}",
                    f"ready:{view.id}",
                    [f"hall ready {view.id}", f'hall pull-back {view.id} --reason "not yet"'],
                )
            )
        if view.hold:
            found.append(
                _entry(
                    view.hold,
                    view.id,
                    view.hold_since or view.updated,
                    f"{view.title}: held ({view.hold}) {view.hold_reason}".strip(),
                    f"hold:{view.id}",
                    list(view.hold_next) or [f'hall retry {view.id} --reason "…"', f"hall log {view.id}"],
                )
            )
    found.extend(_extra_sources(repo))
    stopped = _daemon_stopped()
    if stopped and not any(e.key == stopped.key for e in found):
        found.append(stopped)
    found.sort(key=lambda e: e.since or "")
    return found


def _daemon_stopped() -> InboxEntry | None:
    """A daemon that should run but has no heartbeat, derived on every read (no daemon needed)."""
    from .loop.daemon_state import liveness, read_state

    data = read_state()
    info = liveness(data)
    if not info["stale"]:
        return None
    key = f"daemon:stopped:{data.get('started', '')}"
    since = info.get("heartbeat") or info.get("started") or ""
    return _entry(
        "daemon stopped",
        None,
        since,
        f"The daemon has no heartbeat since {since or 'it started'}.",
        key,
        ["hall daemon start", "hall daemon status"],
    )


def _extra_sources(repo: Repo) -> list[InboxEntry]:
    """Repo-level escalations written by other parts (daemon stopped, budget, session waiting)."""
    out: list[InboxEntry] = []
    for event in repo.index.events(kinds=["inbox_entry", "inbox_cleared"], repo_level=True):
        key = event.get("key", "")
        out = [e for e in out if e.key != key]
        if event["event"] == "inbox_cleared":
            continue
        out.append(
            _entry(
                event.get("kind", "notice"),
                event.get("for_item"),
                event.get("t", ""),
                event.get("text", ""),
                key,
                list(event.get("next") or []),
            )
        )
    return out


def _dismissed_path(repo: Repo) -> Path:
    return repo.state_dir / "inbox-dismissed.json"


def visible(repo: Repo, *, show_all: bool = False, views: list[states.ItemView] | None = None) -> list[InboxEntry]:
    all_entries = entries(repo, views)
    if show_all:
        return all_entries
    dismissed = atomic.read_json(_dismissed_path(repo), {}) or {}
    return [e for e in all_entries if not _dismissed(repo, dismissed.get(e.key), e.fingerprint)]


def _dismissal(repo: Repo, key: str, fingerprint: str) -> dict[str, Any]:
    """A person's dismissal, signed (core/person_cap.py): one an agent writes into the file by
    hand hides nothing. GATE_DENIED, and nothing hidden, when this process cannot sign."""
    from . import person_cap

    made = journal.make_event("inbox_dismissed", None, current_actor(), {"key": key, "fingerprint": fingerprint})
    try:
        return person_cap.seal(made, repo.paths)
    except person_cap.CapError as exc:
        raise person_cap.refusal("hall inbox --dismiss", exc) from None


def _dismissed(repo: Repo, value: Any, fingerprint: str) -> bool:
    from . import person_cap

    if (
        not isinstance(value, dict)
        or value.get("fingerprint") != fingerprint
        or value.get("event") != "inbox_dismissed"
    ):
        return False  # a bare fingerprint (written by hand, or before dismissals were signed) hides nothing
    return person_cap.why_not(value, repo.paths) is None


def dismiss(repo: Repo, number: int | None = None, *, clear: bool = False) -> list[InboxEntry]:
    shown = visible(repo)
    if clear:
        chosen = shown
    else:
        if number is None or not 1 <= number <= len(shown):
            raise HallError("USAGE", f"There is no inbox entry {number}; there are {len(shown)}.", ["hall inbox"])
        chosen = [shown[number - 1]]
    path = _dismissed_path(repo)
    signed = {entry.key: _dismissal(repo, entry.key, entry.fingerprint) for entry in chosen}
    with journal.locked(path):
        data = atomic.read_json(path, {}) or {}
        data.update(signed)
        atomic.write_json(path, data)
    return chosen


def dismiss_entry(repo: Repo, key: str, fingerprint: str) -> InboxEntry:
    """Hide the entry the person was looking at, named by its key and fingerprint (a number can
    point at another entry once the list changes under the cursor). An entry that changed since it
    was shown is not hidden: the person has not seen what it says now."""
    shown = {e.key: e for e in visible(repo)}
    entry = shown.get(key)
    if entry is None:
        raise HallError("WRONG_STATE", f"The inbox has no entry {key!r} to dismiss any more.", ["hall inbox"])
    if entry.fingerprint != fingerprint:
        raise HallError(
            "WRONG_STATE", f"The inbox entry {key!r} changed since it was shown; look again.", ["hall inbox"]
        )
    path = _dismissed_path(repo)
    signed = _dismissal(repo, key, fingerprint)
    with journal.locked(path):
        data = atomic.read_json(path, {}) or {}
        data[key] = signed
        atomic.write_json(path, data)
    return entry


def undismiss(repo: Repo, key: str) -> bool:
    """Show a dismissed entry again (the app's undo). False when it was not dismissed."""
    path = _dismissed_path(repo)
    with journal.locked(path):
        data = atomic.read_json(path, {}) or {}
        if key not in data:
            return False
        del data[key]
        atomic.write_json(path, data)
    return True


def notices(repo: Repo) -> list[Notice]:
    """What the loop handles on its own: stuck items, session waiting, learnings (news, never escalated)."""
    return [
        Notice(
            kind=event.get("kind", "notice"), item=event.get("item"), since=event.get("t"), text=event.get("text", "")
        )
        for event in repo.index.events(kinds=["notice"])
    ]


def report(repo: Repo, *, show_all: bool = False) -> InboxReport:
    """`hall inbox`: the entries shown, numbered for --dismiss N."""
    from .item_results import InboxReport

    numbered = tuple(entry.numbered(n) for n, entry in enumerate(visible(repo, show_all=show_all), start=1))
    return InboxReport(entries=numbered, count=len(numbered))
