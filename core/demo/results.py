"""What `hall demo` answers: the scripted run's journal summary (`DemoRun`: each story's outcome,
what the memory store did with each proposal, the stand-in's usage), or, after the interactive
demo, whether its workspace was kept (`DemoKept`) or removed (`DemoRemoved`).

Typed like every verb's answer (core/results.py); tui/cli/app.py adds `next`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from hallmark.core.results import Result


class DemoPlace(Result):
    """Where the demo ran (a throwaway folder), how long it took, and that no model ran."""

    base: str
    repo: str
    data_dir: str
    seconds: float
    standin: str
    model: str
    kept: bool


class DemoStory(Result):
    """One item's story: the outcome the scripted part was to reach, the one it reached, and where
    the item stands after the daemon (its journal in figures)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"hallmark_sha"})

    item: str
    story: str
    title: str
    what: str
    expected: str
    outcome: str
    state: str
    round: int
    rejects: int
    hold: str | None
    events: int
    actors: list[str]
    runs: list[Any]
    open_questions: list[str]
    hallmark_sha: str | None = None


class DemoLearning(Result):
    """A learning the librarian proposed, as the memory store holds it now."""

    id: str
    kind: str
    pattern: str
    status: str
    occurrences: int


class DemoTombstone(DemoLearning):
    """A proposal that landed on an earlier rejection: the tombstone it met and why it was rejected."""

    landed_on_tombstone: str | None
    rejected_because: str | None
    reproposed: int | None


class DemoMerged(Result):
    """A proposal the store merged into an existing learning (one more occurrence)."""

    merged_into: str
    pattern: str
    occurrences: int


class DemoRefused(Result):
    """A proposal the store refused (a secret in it), with the store's reason."""

    code: str | None
    why: str | None


class DemoPending(Result):
    """A learning waiting for the person's drain."""

    id: str
    kind: str
    pattern: str
    occurrences: int


class DemoLearnings(Result):
    """What the memory store did with the librarian's two runs (`rejected_earlier`: the person's
    rejections between them; `librarian_runs`: the runs' names)."""

    proposed: tuple[DemoLearning, ...]
    merged: tuple[DemoMerged, ...]
    refused: tuple[DemoRefused, ...]
    tombstone: tuple[DemoTombstone, ...]
    rejected_earlier: list[dict[str, Any]]
    pending: tuple[DemoPending, ...]
    librarian_runs: list[Any]


class DemoModelUsage(Result):
    """One model's runs and cost (the stand-in's: every run, no cost)."""

    model: str
    runs: int
    standin_runs: int
    cost_usd: float


class DemoUsage(Result):
    """The demo's usage: every run was the stand-in's, so it cost nothing."""

    runs: int
    tokens: int
    cost_usd: float
    by_model: tuple[DemoModelUsage, ...]


class DemoRun(Result):
    """`hall demo --script`: the journal summary; ok when every story reached its outcome and the
    memory store refused, merged and met a tombstone as the scenario means it to."""

    demo: DemoPlace
    ok: bool
    items: tuple[DemoStory, ...]
    learnings: DemoLearnings
    usage: DemoUsage
    journal_lines: int


class DemoKept(Result):
    """`hall demo --keep` after the app closed: the workspace stays, for a look around."""

    demo: str
    repo: str
    kept: Literal[True] = True


class DemoRemoved(Result):
    """`hall demo` after the app closed: the throwaway workspace is gone."""

    demo: str
    kept: Literal[False] = False
    removed: Literal[True] = True
