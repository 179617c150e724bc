"""The SessionStart hook's two reads that may fail without failing the session: the inbox count
(core/waiting's one count) and the memory store's context. Each failure is logged, never raised:
the session starts anyway. What a session is told otherwise comes from core/orientation.py."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hallmark.core.paths import RepoPaths


def inbox_count(paths: RepoPaths) -> int | None:
    """What waits for the person: core.waiting's one count, the same number the app's footer, the
    inbox and `hall inbox` show (dismissals applied). None when it cannot be read now."""
    from hallmark.core import waiting
    from hallmark.core.repo import Repo

    try:
        return waiting.waiting_for_you(Repo(paths, paths.main_checkout)).count
    except Exception as exc:  # noqa: BLE001 - the count is news, not a gate: the session starts anyway
        from hallmark.hooks.common import log

        log(paths, "session-start", f"inbox count failed: {type(exc).__name__}: {exc}")
        return None


def memory_context(paths: RepoPaths) -> str:
    """The memory store's session context (accepted learnings only); never fails the hook."""
    try:
        from hallmark.core.memory.inject import session_context

        text = session_context(paths)
    except Exception as exc:  # noqa: BLE001
        from hallmark.hooks.common import log

        log(paths, "session-start", f"memory context failed: {type(exc).__name__}: {exc}")
        return ""
    return text if isinstance(text, str) else ""
