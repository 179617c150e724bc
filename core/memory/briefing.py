"""The reviewer's briefing: accepted learnings for the changed paths, within a token cap.

Order: learnings whose path globs match the changed paths come first (most seen first), then
a full-text (FTS5) search of the rest on the words of the paths and the query, then general
learnings with no path scope (with no changed paths given, every accepted learning, most seen
first). The cap follows the review's effort: low 2k tokens, medium 4k,
high `briefing_limit` (default 6k), and never more than briefing_limit. Tokens are ESTIMATED
as UTF-8 bytes / 4 (rounded up); no tokenizer is run. Only accepted (or promoted) learnings of
this project are ever read here. Stdlib only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths

from . import identity
from .search_index import SearchIndex
from .store import Learning, Store

if TYPE_CHECKING:
    from .results import Briefing, BriefingLine, DegradedBriefing

EFFORT_CAPS = {"low": 2000, "medium": 4000}
RAISED = frozenset({"NOT_A_REPO", "USAGE"})  # a caller's mistake, not a store that cannot be read
TOKEN_METHOD = "estimated as UTF-8 bytes / 4, rounded up"
MIN_LINE_TOKENS = 8  # the shortest possible line; below this the cap is full
MAX_MISSES = 20  # this many candidates in a row too long for what is left: the cap is full


def parse_tokens(value: Any, default: int = 6000) -> int:
    """'6k' -> 6000, '1.5k' -> 1500, 4000 -> 4000."""
    if isinstance(value, int | float):
        return int(value)
    text = str(value or "").strip().lower()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([km]?)", text)
    if not match:
        return default
    number = float(match.group(1)) * {"": 1, "k": 1000, "m": 1_000_000}[match.group(2)]
    return int(number)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


def cap_for(effort: str | None, limit: int) -> int:
    return min(EFFORT_CAPS.get(effort or "high", limit), limit)


def line(learning: Learning) -> str:
    text = f"- [{learning.id} · {learning.kind}] {learning.pattern.strip()}"
    if learning.rationale:
        text += f" (why: {learning.rationale.strip()})"
    if learning.paths:
        text += " [paths: " + ", ".join(learning.paths) + "]"
    return text


HEADER = (
    "Library briefing: learnings a person accepted for this repository. Authority order when sources "
    "disagree: current git and approved specs, then docs and ADRs, then the workflow checkpoint, then "
    "these learnings, then raw observations. Token cap {cap} ({method})."
)


def build(
    paths: RepoPaths,
    *,
    changed: list[str] | None = None,
    effort: str | None = None,
    query: str = "",
    limit: int | None = None,
    as_of: str | None = None,
) -> Briefing:
    """The briefing now (only learnings valid now), or as it would have been on `as_of`."""
    # imported here: the SessionStart hook loads this module, not this verb, and stays light
    from hallmark.core import clock
    from hallmark.core.config_raw import load_raw

    from .results import Briefing, BriefingLine

    if limit is None:
        try:
            limit = parse_tokens((load_raw(paths.main_checkout).get("library") or {}).get("briefing_limit", "6k"))
        except Exception:  # noqa: BLE001 - a broken config falls back to the default cap
            limit = 6000
    cap = cap_for(effort, limit)
    changed = [c.strip() for c in changed or [] if c.strip()]
    project = identity.current(paths).value
    index = SearchIndex(Store(paths))
    index.catch_up()
    seen: set[str] = set()
    moment = clock.stamp()
    if as_of:
        from .reading import as_of_stamp, believed

        moment = as_of_stamp(as_of) or moment
        then = believed(paths, as_of)

    from . import person_audit  # only a briefing reads the signed audit (session start never builds one)

    signed = person_audit.signed_acceptances(paths, _auto_kinds(paths))
    header = HEADER.format(cap=cap, method=TOKEN_METHOD)
    used = estimate_tokens(header + "\n")
    included: list[BriefingLine] = []
    omitted, misses = 0, 0
    lines = [header]
    # candidates are read a page at a time, only until the cap is full
    for learning, why in _stages_then(then, changed) if as_of else _stages(index, project, changed, query):
        if learning.id in seen or learning.status not in ("accepted", "promoted") or learning.project != project:
            continue
        if not person_audit.person_accepted(learning, signed):  # a file says accepted; no person signed it
            continue
        if not learning.valid_at(moment):  # retired, superseded, expired or not yet in force
            continue
        seen.add(learning.id)
        if cap - used < MIN_LINE_TOKENS or misses >= MAX_MISSES:
            omitted += 1
            break  # the cap is full: stop reading (omitted is then a lower bound)
        text = line(learning)
        cost = estimate_tokens(text + "\n")
        if used + cost > cap:
            omitted += 1
            misses += 1
            continue
        misses = 0
        used += cost
        lines.append(text)
        included.append(
            BriefingLine(
                id=learning.id, kind=learning.kind, pattern=learning.pattern, paths=learning.paths, why=why, tokens=cost
            )
        )
    text = "\n".join(lines) + "\n" if included else ""
    # the per-line sum of rounded-up estimates bounds the whole, so the cap holds for the text
    return Briefing(
        project=project,
        effort=effort or "high",
        cap_tokens=cap,
        limit_tokens=limit,
        as_of=moment if as_of else None,
        tokens=estimate_tokens(text),
        token_estimate=TOKEN_METHOD,
        learnings=tuple(included),
        omitted=omitted,
        text=text,
    )


# -- degraded mode (plan-build: an explicit, reported degraded mode when the store cannot be read) --


def _auto_kinds(paths: RepoPaths) -> frozenset[str]:
    from hallmark.core.config_raw import load_raw

    try:
        kinds = (load_raw(paths.main_checkout).get("library") or {}).get("auto_accept") or []
    except Exception:  # noqa: BLE001 - a broken config accepts nothing automatically
        return frozenset()
    return frozenset(str(k) for k in kinds) if isinstance(kinds, list) else frozenset()


def _stages_then(then: list[Learning], changed: list[str]) -> Iterator[tuple[Learning, str]]:
    """The candidates as they stood on a past day: scoped to the changed paths, then the rest."""
    from .globs import any_match

    ranked = sorted(then, key=lambda x: (-x.occurrences, x.id))
    if changed:
        for learning in ranked:
            if learning.paths and any_match(changed, learning.paths):
                yield learning, "scoped to the changed paths"
    for learning in ranked:
        if not learning.paths or not changed:
            yield learning, "general" if not learning.paths else "any path (no changed paths given)"


def _stages(
    index: SearchIndex, project: str, changed: list[str], query: str, page: int = 50
) -> Iterator[tuple[Learning, str]]:
    """The candidates now, read lazily a page at a time: scoped to the changed paths, matched by
    search on their words and the query, then general ones."""
    if changed:
        nums = index.scoped_ids(project, changed)
        for start in range(0, len(nums), page):
            for learning in index.records(nums[start : start + page]):
                yield learning, "scoped to the changed paths"
    words = " ".join(re.split(r"[/._\-\s*]+", " ".join(changed))) + " " + (query or "")
    if words.strip():
        for learning in index.iter_search(project, words):
            yield learning, "matched by search"
    if changed:
        for learning in index.iter_general(project):
            yield learning, "general (no path scope)"
    else:  # no changed paths: nothing to scope by, every accepted learning may serve
        for learning in index.iter_general(project, scoped_too=True):
            yield learning, "general" if not learning.paths else "any path (no changed paths given)"


def degraded_text(reason: str) -> str:
    """What a session or a briefing says instead of memory it could not load."""
    return (
        "Hallmark memory was NOT restored for this session: " + reason.strip().rstrip(".") + ". "
        "No checkpoint, notes or learnings were loaded; work only from current git and the repository's "
        "documents, and do not claim that earlier context was restored."
    )


def degraded(reason: str, fixes: list[str] | None = None) -> DegradedBriefing:
    """The briefing reply when the store cannot be read: no learnings, the reason, and what fixes it."""
    from .results import DegradedBriefing

    return DegradedBriefing(degraded=reason, text=degraded_text(reason), fixes=tuple(fixes or ()))


def build_or_degraded(make: Callable[[], Briefing]) -> Briefing | DegradedBriefing:
    """`make()` (a build, with the repository it opens), or the degraded reply when the store or the
    repository's Hallmark state cannot be read. A usage error or a missing repository still raises."""
    import sqlite3

    try:
        return make()
    except HallError as exc:
        if exc.code in RAISED:
            raise
        return degraded(exc.message, exc.next)
    except (OSError, sqlite3.Error, ValueError) as exc:  # the store cannot be read: say so, plainly
        return degraded(f"the memory store could not be read ({type(exc).__name__}: {exc})")
