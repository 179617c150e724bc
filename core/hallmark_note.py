"""The hallmark note: its one format, its signature and its parse (one owner for the record).

A note under `refs/notes/hallmark` on the approved commit, JSON, version 2:

    {"v": 2, "item": "H-0042", "sha": <commit>, "tree": <its tree>, "round": 1, "run": <review run>,
     "actor": "assayer", "model": …, "standin": false, "open_findings": [], ["carried_from": <sha>],
     "signer": <principal>, "sig": "-----BEGIN SSH SIGNATURE-----…"}

`sig` is an OpenSSH signature (namespace `hallmark`, signing.py) over every other field, in one
canonical encoding (sorted keys, no spaces, ASCII): change a byte of the note, or copy it to another
commit or tree, and it no longer verifies. Anyone with git can write a note; only the holder of a key
the base trusts (signers.py) can write one that counts. Version-1 notes (unsigned, before this) count
for nothing until `hall setup git` re-signs those the journal proves the loop struck.

Stdlib only: the push gate and the pre-push hook parse notes.
"""

from __future__ import annotations

import json
import re

from . import signing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .signers import Trusted

NOTES_REF = "refs/notes/hallmark"
VERSION = 2
NOTE_LIMIT = 65_536
_DOMAIN = b"hallmark-note-v2\n"
ITEM = re.compile(r"H-\d{1,9}")
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def payload(note: dict[str, Any]) -> bytes:
    """The bytes the signature covers: every field but `sig`, canonically encoded."""
    body = {key: value for key, value in note.items() if key != "sig"}
    return _DOMAIN + json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def make(
    *,
    item: str,
    sha: str,
    tree: str,
    round: int,
    run: str | None,
    actor: str,
    model: str,
    standin: bool,
    open_findings: list[str],
    carried_from: str | None = None,
) -> dict[str, Any]:
    """A signed note for commit sha (raises signing.SigningError when this process holds no key)."""
    key = signing.read_public()
    if key is None:
        raise signing.SigningError(f"no signing key at {signing.key_path()} (run `hall setup git`)")
    note: dict[str, Any] = {
        "v": VERSION,
        "item": item,
        "sha": sha,
        "tree": tree,
        "round": round,
        "model": model,
        "open_findings": list(open_findings),
        "actor": actor,
        "run": run,
        "standin": standin,
    }
    if carried_from:
        note["carried_from"] = carried_from
    note["signer"] = key.principal
    note["sig"] = signing.sign(payload(note), signing.NOTE_NAMESPACE)
    return note


def encode(note: dict[str, Any]) -> str:
    return json.dumps(note, separators=(",", ":"), ensure_ascii=True)


def parse(text: str | None) -> dict[str, Any] | None:
    """The note as a dict, or None when it is no JSON object (or absurdly large)."""
    if text is None or len(text) > NOTE_LIMIT:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def signature_problem(note: dict[str, Any], trusted: Trusted) -> str | None:
    """None when the note is signed by a key trusted says counts; else why it is not."""
    if not trusted:
        return f"no signer is trusted here ({trusted.source})"
    why = signing.verify(payload(note), note.get("sig"), note.get("signer"), trusted.text, signing.NOTE_NAMESPACE)
    if why is None:
        return None
    return f"{why}; trusted: {trusted.source}"
