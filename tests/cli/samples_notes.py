"""Samples of the checkpoint and note results (core/notes_results.py), for tests/cli/test_results.py:
one of each type, every optional key left out."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import notes_results, results

FIELDS = {"Phase": "review", "Active work": "H-0001", "Next step": "merge"}
NOTE = {"slug": "vpn", "facet": "infrastructure", "fact": "Staging needs the VPN", "file": "/s/notes/vpn.md"}
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    notes_results.CheckpointShown: lambda: notes_results.CheckpointShown(project="p", checkpoint=None, text=None),
    notes_results.CheckpointWritten: lambda: notes_results.CheckpointWritten(
        project="p", checkpoint=FIELDS, text="Phase: review\n", characters=14, replaced=False
    ),
    notes_results.CheckpointVersion: lambda: notes_results.CheckpointVersion(file="x.md", checkpoint=FIELDS),
    notes_results.CheckpointHistory: lambda: notes_results.CheckpointHistory(
        versions=(notes_results.CheckpointVersion(file="x.md", checkpoint=FIELDS),), count=1
    ),
    notes_results.NoteReply: lambda: notes_results.NoteReply(note=NOTE),
    notes_results.NoteListing: lambda: notes_results.NoteListing(
        notes=[NOTE], index=["- Staging needs the VPN (infrastructure, as of 2026-11-02) — notes/vpn.md"], count=1
    ),
}
