"""One doctor check as the CLI prints it: {check, ok, detail, fix (only when it failed), …}.

The three doctor modules (core/doctor.py for the repo, doctor_claude.py for Claude Code,
doctor_loop.py for the loop's programs) build their rows here so that a row has one shape."""

from __future__ import annotations

from typing import Any


def check(name: str, ok: bool, detail: str, fix: str | None = None, **extra: Any) -> dict[str, Any]:
    """A row; `fix` is shown only for a failed check (a passing one needs none)."""
    data: dict[str, Any] = {"check": name, "ok": ok, "detail": detail}
    if not ok and fix:
        data["fix"] = fix
    data.update(extra)
    return data
