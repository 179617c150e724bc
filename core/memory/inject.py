"""What SessionStart injects: the checkpoint, the authority order, locked decisions, the notes
index and accepted learnings, capped; or, when memory cannot be read, a plain statement that it
was not restored (degraded mode), never a silent or a false claim of continuity.

Only accepted learnings appear (pending, skipped, rejected and retired ones never do; their
number is mentioned so a person knows to drain). STDLIB ONLY: `hall-hook session-start` imports
this on every session start and must not pull in pydantic, rich, textual or GitPython.
"""

from __future__ import annotations

from hallmark.core import clock
from hallmark.core.paths import RepoPaths

from . import identity
from .briefing import degraded_text, estimate_tokens, line
from .lifecycle import PENDING
from .search_index import SearchIndex
from .store import Store

AUTHORITY = (
    "Authority order when these disagree: 1) current git and approved issues/specs; "
    "2) the repository's docs and ADRs; 3) the workflow checkpoint; 4) accepted learnings; "
    "5) raw observations. Verify recalled state against current files before relying on it."
)
LEARNINGS_CAP_TOKENS = 2000  # tokens estimated as bytes/4
TOTAL_CAP_BYTES = 8000  # the hook adds its own item summary; Claude Code's context stays small
NOTES_MAX = 20


def session_context(paths: RepoPaths) -> str:
    """The SessionStart additionalContext for this repository (always a string)."""
    try:
        return _context(paths)
    except Exception as exc:  # noqa: BLE001 - any failure is degraded mode, said plainly
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return degraded_text(f"the memory store could not be read ({message})")


def _context(paths: RepoPaths) -> str:
    from . import checkpoint, decisions, notes

    if not paths.state_dir.is_dir():
        return degraded_text("Hallmark is not set up in this repository (run `hall init`)")
    project = identity.current(paths).value
    store = Store(paths)
    library = store.root
    if library.exists() and not library.is_dir():
        return degraded_text(f"{library} is not a directory")
    parts: list[str] = [f"Hallmark memory for project {project} (restored from {library})."]

    slot = checkpoint.show(paths)
    if slot.text:
        parts.append(
            "Workflow checkpoint (the handoff state; replace it at milestones with "
            "`hall checkpoint set`):\n" + slot.text.rstrip()
        )
    else:
        parts.append("Workflow checkpoint: none recorded yet for this project (`hall checkpoint set`).")
    parts.append(AUTHORITY)

    locked = decisions.context_lines(paths)
    if locked:
        parts.append(
            "Locked decisions (follow exactly; `hall library lock --show ID` for allowed variations "
            "and anti-patterns):\n" + "\n".join(locked)
        )

    all_notes = notes.list_notes(paths, project=project)
    if all_notes:
        lines = [notes.index_line(n) for n in all_notes[-NOTES_MAX:]]
        room = TOTAL_CAP_BYTES - 800 - len("\n\n".join(parts).encode("utf-8"))
        while lines and len("\n".join(lines).encode("utf-8")) > room:
            lines.pop(0)  # the oldest notes go first; their index is one command away
        left = len(all_notes) - len(lines)
        more = f"\n({left} older notes: `hall note list`)" if left else ""
        parts.append(
            "Notes (one line each; read the body with `hall note show <slug>` when the work touches it):\n"
            + "\n".join(lines)
            + more
        )

    index = SearchIndex(store)
    index.catch_up()
    accepted_total = index.count(project, ("accepted",))
    promoted = index.count(project, ("promoted",))
    if accepted_total:
        # the whole context stays within TOTAL_CAP_BYTES: learnings get what the rest leaves
        room = TOTAL_CAP_BYTES - len("\n\n".join(parts).encode("utf-8")) - 400
        cap = max(0, min(LEARNINGS_CAP_TOKENS, room // 4))
        lines, used = [], 0
        moment = clock.stamp()
        for learning in index.top(project, "accepted", max(1, cap // 12)):
            if not learning.valid_at(moment):  # only what holds now reaches a session
                continue
            text = line(learning)
            cost = estimate_tokens(text + "\n")
            if used + cost > cap:
                break
            used += cost
            lines.append(text)
        left = accepted_total - len(lines)
        tail = f"\n({left} more: `hall library search <words>`)" if left else ""
        parts.append(
            "Accepted learnings (approved by a person; tokens estimated as bytes/4, capped at "
            f"{cap}):\n" + "\n".join(lines) + tail
        )
    if promoted:
        parts.append(f"{promoted} accepted learnings are promoted into CLAUDE.md and .claude/ and load from there.")
    waiting = index.count(project, tuple(PENDING))
    if waiting:
        parts.append(
            f"{waiting} proposed learnings wait for a person's review (`hall library review`); "
            "they are not part of this context."
        )
    unreadable = index.unreadable()
    if unreadable:
        parts.append(
            f"{len(unreadable)} learning files could not be read and were left out (`hall library audit --verify`)."
        )
    return "\n\n".join(parts) + "\n"
