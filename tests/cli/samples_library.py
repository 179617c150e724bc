"""Samples of the memory store's results (`hall library …`), for tests/cli/test_results.py: one of
each type, built from a real Learning record (every optional key left out)."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results
from hallmark.core.memory import move_results as moves
from hallmark.core.memory import results as lib
from hallmark.core.memory.store import Learning

LEARNING = Learning(id="L-0001", kind="rule", pattern="Money is integer cents", created="2026-12-01T00:00:00Z")
PREVIEW = lib.Preview(target="claude_md", where="CLAUDE.md", path="CLAUDE.md", text="- Money", problem=None)
DRAIN = lib.DrainSummary.never(0)
ROW = lib.LearningRow.of(LEARNING)
LINE = lib.BriefingLine(id="L-0001", kind="rule", pattern="p", paths=[], why="general", tokens=5)

SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    lib.Tombstone: lambda: lib.Tombstone.of(LEARNING),
    lib.Preview: lambda: PREVIEW,
    lib.LearningRow: lambda: ROW,
    lib.HeldRow: lambda: lib.HeldRow(**lib.LearningRow.fields_of(LEARNING), held_then=False),
    lib.PendingRow: lambda: lib.PendingRow(
        **lib.LearningRow.fields_of(LEARNING), rationale="", evidence=[], where=PREVIEW, retire_reason=None
    ),
    lib.DrainSummary: lambda: DRAIN,
    lib.LearningReply: lambda: lib.LearningReply.of(LEARNING),
    lib.Accepted: lambda: lib.Accepted.of(LEARNING, promoted_to=None),
    lib.Skipped: lambda: lib.Skipped.of(LEARNING, skip_count=1),
    lib.Retired: lambda: lib.Retired.of(LEARNING),
    lib.LearningShown: lambda: lib.LearningShown.of(LEARNING, preview=PREVIEW, tombstone=None, versions=1),
    lib.LearningThen: lambda: lib.LearningThen.of(LEARNING, as_of="2026-12-01T23:59:59.999Z", held_then=False),
    lib.Proposed: lambda: lib.Proposed(id="L-0001", status="proposed", created=True, merged=False, occurrences=1),
    lib.LearningList: lambda: lib.LearningList(learnings=(ROW,), count=1, project="local/x"),
    lib.LearningListThen: lambda: lib.LearningListThen(learnings=(), count=0, project="local/x", as_of="2026-12-01"),
    lib.PendingQueue: lambda: lib.PendingQueue(pending=(), count=0, last_drain=DRAIN),
    lib.Found: lambda: lib.Found(query="cents", learnings=(ROW,), count=1, searched="accepted learnings only"),
    lib.History: lambda: lib.History(id="L-0001", versions=[LEARNING.to_dict()], audit=[]),
    lib.AuditReport: lambda: lib.AuditReport(audit=[], count=0),
    lib.RetirementsProposed: lambda: lib.RetirementsProposed(retirement_proposed=[], count=0),
    lib.BriefingLine: lambda: LINE,
    lib.Briefing: lambda: lib.Briefing(
        project="local/x",
        effort="high",
        cap_tokens=6000,
        limit_tokens=6000,
        as_of=None,
        tokens=5,
        token_estimate="estimated",
        learnings=(LINE,),
        omitted=0,
        text="- p\n",
    ),
    lib.DegradedBriefing: lambda: lib.DegradedBriefing(degraded="unreadable", text="not restored"),
    lib.Drift: lambda: lib.Drift(
        id="L-0001", state="deleted", path="CLAUDE.md", pattern="p", current=None, offers=["retire", "restore"]
    ),
    lib.Applied: lambda: lib.Applied(id="L-0001", did="updated"),
    lib.Reconciled: lambda: lib.Reconciled(drift=(), applied=(), repaired={}),
    moves.DecisionList: lambda: moves.DecisionList(decisions=[], count=0, as_of=None),
    moves.DecisionShown: lambda: moves.DecisionShown(decision={"id": "D-0001"}),
    moves.LockDraft: lambda: moves.LockDraft(would_lock={"title": "t"}, supersedes=None),
    moves.Locked: lambda: moves.Locked(decision={"id": "D-0001"}),
    moves.CraftImported: lambda: moves.CraftImported(
        id="L-0001", kind="rule", status="proposed", created=True, previously_rejected=False
    ),
    moves.CraftImport: lambda: moves.CraftImport(source="craft.yaml", imported=(), count=0),
    moves.StoreImport: lambda: moves.StoreImport(source="x.json", imported=[], count=0, project="local/x"),
    moves.Export: lambda: moves.Export(
        format="hallmark-library",
        version=1,
        project="local/x",
        exported="2026-12-01T00:00:00Z",
        learnings=[],
        decisions=[],
        notes=[],
        checkpoint=None,
    ),
    moves.ExportWritten: lambda: moves.ExportWritten(written="/tmp/x.json", learnings=0),
    moves.DistilledLearning: lambda: moves.DistilledLearning(
        id="L-0001", status="proposed", created=True, merged=False, previously_rejected=None
    ),
    moves.Distilled: lambda: moves.Distilled(
        item="H-0001", run="r.jsonl", model="m", proposed=(), retirement_proposed=[], skipped=[], message="none"
    ),
    moves.IdentityShown: lambda: moves.IdentityShown(project="local/x", source="file", file="/r/.agentmemory-project"),
    moves.IdentityWritten: lambda: moves.IdentityWritten(
        file="/r/.agentmemory-project", project="local/x", written=False
    ),
}
