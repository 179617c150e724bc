"""`hall verify <ref>`: does this commit carry a valid hallmark? The check a CI job or a reviewer runs.

It resolves the ref to one commit and calls the one validity check, core/gates/hallmark.py: the
note is a version-2 hallmark for this very commit and tree, signed by a key the base trusts
(`.hallmark/allowed_signers` on origin/<base>), and, where the loop ran, the journal of the item it
names still records `hallmarked` there. A CI clone has the notes and the base (fetched from the
remote) but not the journal, which is private to the machine that ran the loop: there the signature
alone decides, and the answer says so (`journal: "unavailable"`); `--strict` requires the journal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from . import git
from .errors import HallError
from .paths import discover
from .results import Result

NOTES_REF = "refs/notes/hallmark"
FETCH_NOTES = f"git fetch origin '+{NOTES_REF}:{NOTES_REF}'"
FETCH_BASE = "git fetch origin main  (the base, whose .hallmark/allowed_signers says whom to trust)"


def _resolve(where: Path, ref: str) -> str:
    if not ref or ref.startswith("-"):
        raise HallError("USAGE", f"{ref!r} is not a commit to verify.", ["hall verify HEAD"])
    proc = git.run(["rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}"], where, check=False)
    sha = proc.stdout.strip()
    if proc.returncode != 0 or not sha:
        raise HallError("USAGE", f"{ref} is not a commit in this repository.", ["git fetch", "hall verify HEAD"])
    return sha


def _note(where: Path, sha: str) -> dict[str, Any] | None:
    proc = git.run(["notes", f"--ref={NOTES_REF}", "show", sha], where, check=False)
    try:
        data = json.loads(proc.stdout) if proc.returncode == 0 else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


class Verified(Result):
    """`hall verify`: the commit carries a valid hallmark. journal is "checked" where the loop ran,
    "unavailable" in a clone without its journal (the note alone was checked)."""

    ref: str
    sha: str
    item: str | None
    actor: str | None
    round: int | None
    carried_from: str | None
    reason: str
    ok: bool
    journal: Literal["checked", "unavailable"]


def verify(start: Path, ref: str = "HEAD", *, strict: bool = False) -> Verified:
    from .gates import hallmark

    paths = discover(start)
    assert paths is not None
    where = Path(paths.toplevel)
    sha = _resolve(where, ref)
    verdict = hallmark.check_revs(str(where), [sha], paths)
    note = _note(where, sha) or {}
    answer: dict[str, Any] = {
        "ref": ref,
        "sha": sha,
        "item": verdict.item or note.get("item"),
        "actor": note.get("actor"),
        "round": note.get("round"),
        "carried_from": note.get("carried_from"),
    }
    if verdict.ok and verdict.journal == "checked":
        return Verified(**answer, reason=verdict.reason, ok=True, journal="checked")
    if verdict.ok and not strict:
        return Verified(**answer, reason=verdict.reason + " (--strict requires it)", ok=True, journal="unavailable")
    if verdict.ok:
        raise HallError(
            "GATE_DENIED",
            f"{ref} ({sha[:12]}) carries a signed hallmark, but --strict requires the loop's journal, which "
            "is not in this clone.",
            [f"hall verify {ref}  (without --strict)"],
        )
    hint = (
        [FETCH_NOTES, f"hall verify {ref}"]
        if "no note" in verdict.reason
        else [FETCH_BASE, f"hall verify {ref}"]
        if "no signer is trusted" in verdict.reason
        else ["hall setup git"]
        if "version-1" in verdict.reason
        else [f"hall log {verdict.item}"]
        if verdict.item and paths.initialized
        else ["hall status --all"]
    )
    raise HallError("GATE_DENIED", f"{ref} ({sha[:12]}) carries no valid hallmark: {verdict.reason}.", hint)
