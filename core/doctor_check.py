"""One doctor check as the CLI prints it: {check, ok, detail, fix (only when it failed), …}.

The three doctor modules (core/doctor.py for the repo, doctor_claude.py for Claude Code,
doctor_loop.py for the loop's programs) build their rows here so that a row has one shape: a
`Check` (core/setup_results.py)."""

from __future__ import annotations

from typing import Any

from .setup_results import Check


def check(name: str, ok: bool, detail: str, fix: str | None = None, **extra: Any) -> Check:
    """A row; `fix` is shown only for a failed check (a passing one needs none)."""
    return Check(check=name, ok=ok, detail=detail, fix=fix if not ok and fix else None, **extra)
