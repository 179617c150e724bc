"""The memory store's verbs, in one namespace: what the CLI, the terminal app's reflect drain and
the librarian call.

    from hallmark.core.memory import api as library

The verbs live by group: reading.py (get, list, pending, preview, history, as-of), proposing.py,
deciding.py (accept, skip, reject, retire, reopen, undo: a person's decisions), usage.py
(verdicts, retirement candidates, drains) and reconcile.py (files and store made to agree).
Pending learnings (proposed, skipped) are never injected anywhere. Stdlib only.
"""

from __future__ import annotations

from .access import PERSON, library_config, paths_of, project_of, store_of
from .deciding import (
    accept,
    automation_confirmation,
    propose_retirement,
    reject,
    reopen,
    retire,
    skip,
    undo,
)
from .proposing import propose
from .reading import (
    audit_log,
    believed,
    get,
    history,
    list_learnings,
    pending,
    preview,
    tombstone_for,
    verify_audit,
)
from .reconcile import reconcile, repair
from .usage import DRAIN_GAP, last_drain_summary, last_used, propose_retirements, record_usage

_paths = paths_of  # older callers (transfer) use these names
_config = library_config

__all__ = [
    "DRAIN_GAP",
    "PERSON",
    "accept",
    "audit_log",
    "automation_confirmation",
    "believed",
    "get",
    "history",
    "last_drain_summary",
    "last_used",
    "list_learnings",
    "pending",
    "preview",
    "project_of",
    "propose",
    "propose_retirement",
    "propose_retirements",
    "reconcile",
    "record_usage",
    "reject",
    "reopen",
    "repair",
    "retire",
    "skip",
    "store_of",
    "tombstone_for",
    "undo",
    "verify_audit",
]
