"""What the memory store's other verbs answer: locking decisions, importing and exporting the store,
the librarian's distillation and the project identity (the learnings' own answers are results.py).

A decision, a note and an exported learning stay the dicts they are on disk (their keys vary with
the store's age); an export-import row keeps its `from` key, which no field can be named.
Stdlib only (core/results.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from hallmark.core.results import Result


# -- decisions (`hall library lock`) --------------------------------------------------------------
class DecisionList(Result):
    """`hall library lock --list`: this project's decisions (as they stood then, with --as-of)."""

    decisions: list[dict[str, Any]]
    count: int
    as_of: str | None


class DecisionShown(Result):
    """`hall library lock --show`: one decision, with its record and validity time."""

    decision: dict[str, Any]


class LockDraft(Result):
    """`hall library lock` without --confirm: what would be locked, and what it would supersede."""

    would_lock: dict[str, Any]
    supersedes: str | None
    locked: Literal[False] = False
    message: str = "Nothing was locked yet. This is what would be locked; run again with --confirm."


class Locked(Result):
    """`hall library lock --confirm`: the decision as locked."""

    locked: Literal[True] = True
    decision: dict[str, Any]


# -- import and export ----------------------------------------------------------------------------
class CraftImported(Result):
    """One entry of craft's file, as proposed (or accepted, when craft had written it)."""

    id: str
    kind: str
    status: str
    created: bool
    previously_rejected: bool


class CraftImport(Result):
    """`hall library import --craft`: craft's learnings, proposed here."""

    source: str
    imported: tuple[CraftImported, ...]
    count: int


class StoreImport(Result):
    """`hall library import --from`: an export's learnings (each {id, status, project, from}) and,
    from the same project, the notes, decisions and checkpoint that were missing."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"notes_restored", "decisions_restored", "checkpoint_restored"})

    source: str
    imported: list[dict[str, Any]]
    count: int
    project: str
    notes_restored: list[str] | None = None
    decisions_restored: list[str] | None = None
    checkpoint_restored: bool | None = None


class Export(Result):
    """`hall library export`: the whole store (learnings, decisions, notes, checkpoint) in one value."""

    format: str
    version: int
    project: str
    exported: str
    learnings: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    checkpoint: dict[str, Any] | None


class ExportWritten(Result):
    """`hall library export --out`: where the export was written, and how many learnings it holds."""

    written: str
    learnings: int


# -- the librarian --------------------------------------------------------------------------------
class DistilledLearning(Result):
    """One learning the librarian proposed (or the one, or the tombstone, it repeated)."""

    id: str
    status: str
    created: bool
    merged: bool
    previously_rejected: bool | None


class Distilled(Result):
    """`hall library distill`: the librarian's run on an item, what it proposed and what it skipped
    (each {pattern or retire, code, why}), and why it failed."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"failed"})

    item: str
    run: str
    model: str
    proposed: tuple[DistilledLearning, ...]
    retirement_proposed: list[str]
    skipped: list[dict[str, Any]]
    failed: str | None = None
    message: str


# -- the project identity -------------------------------------------------------------------------
class IdentityShown(Result):
    """`hall library identity`: the identity memory is scoped to, where it comes from, and its file."""

    project: str
    source: str
    file: str


class IdentityWritten(Result):
    """`hall library identity --write` (and `hall init`): the identity file, its value, whether it
    was written now, and the command that commits it."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"commit"})

    file: str
    project: str
    written: bool
    commit: str | None = None
