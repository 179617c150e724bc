"""Is HEAD hallmarked? Three checks, and a denial that says which one failed.

Anyone with git can write a note, so a note is a hallmark only when:
1. it parses as the hallmark's JSON, version 1;
2. its `sha` is HEAD itself (a note copied from an approved commit does not count);
3. the journal of the item it names records `hallmarked` at HEAD (folded through the table, so
   a later pull-back or reopen takes it away).
"""

from __future__ import annotations

import json
import os
import re

from ..paths import discover
from . import itemstate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..paths import RepoPaths

NOTES_REF = "refs/notes/hallmark"
_ITEM = r"H-\d{1,9}"
_SHA = r"[0-9a-f]{7,64}"


class Verdict:
    __slots__ = ("ok", "reason", "head", "item")

    def __init__(self, ok: bool, reason: str, head: str = "", item: str = "") -> None:
        self.ok = ok
        self.reason = reason
        self.head = head
        self.item = item

    def __repr__(self) -> str:
        return f"Verdict({self.ok}, {self.reason!r})"


def read_head_and_note(where: str, rev: str = "HEAD") -> tuple[str, str | None]:
    """HEAD's (or rev's) sha and its note under refs/notes/hallmark (None when there is none), in one git call."""
    from .run import capture

    env = dict(os.environ)
    for name in ("GIT_NOTES_REF", "GIT_NOTES_DISPLAY_REF", "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(name, None)
    proc = capture(
        ["git", "--no-replace-objects", "-C", where, "log", "-1", "--no-walk", "--no-show-signature",
         "--no-notes", f"--notes={NOTES_REF}", "--format=%H%x00%N", rev, "--"], env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"git log {rev} failed in {where}: {proc.stderr.decode('utf-8', 'replace').strip()[:200]}")
    out = proc.stdout.decode("utf-8", "replace")
    head, _, note = out.partition("\x00")
    head = head.strip()
    note = note.strip()
    return head, (note or None)


def _same(sha: str, head: str) -> bool:
    return bool(sha) and len(sha) >= 7 and head.startswith(sha.lower())


def check(where: str, fallback: RepoPaths, rev: str = "HEAD") -> Verdict:
    """Check HEAD (or rev, for `hall verify`) of the checkout at where; journals come from that repo
    (or fallback's)."""
    head, note = read_head_and_note(where, rev)
    short = head[:7]
    if note is None:
        return Verdict(False, f"HEAD {short} has no hallmark (no note under {NOTES_REF})", head)
    try:
        data = json.loads(note)
    except ValueError:
        return Verdict(False, f"the note on HEAD {short} is not a hallmark: it is not JSON", head)
    if not isinstance(data, dict) or data.get("v") != 1:
        return Verdict(False, f"the note on HEAD {short} is not a version-1 hallmark", head)
    sha = data.get("sha")
    if not isinstance(sha, str) or not re.fullmatch(_SHA, sha.lower()):
        return Verdict(False, f"the note on HEAD {short} names no commit", head)
    if not _same(sha, head):
        return Verdict(False, f"its note is for {sha[:7]}, not {short}", head)
    item = data.get("item")
    if not isinstance(item, str) or not re.fullmatch(_ITEM, item):
        return Verdict(False, f"the note on HEAD {short} names no item", head)
    paths = discover(where, required=False)
    if paths is None or not paths.initialized:
        paths = fallback
    view = itemstate.fold_item(paths, item)
    if view is None:
        return Verdict(False, f"its note names {item}, which has no journal here", head, item)
    if not _same(view["hallmark_sha"], head):
        return Verdict(False, f"the journal of {item} records no hallmarked at {short}"
                       + (f" (it is {view['state']})" if view["state"] != "hallmarked" else ""), head, item)
    return Verdict(True, f"HEAD {short} is hallmarked for {item}", head, item)
