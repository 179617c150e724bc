"""When two learnings say the same thing: the documented similarity rule.

Rule (used for merging a re-proposal into an existing learning and for sending it to a
tombstone):
1. normalise: Unicode NFKC, lower case, every run of non-alphanumeric characters becomes one
   space, trimmed. Equal normalised texts are the SAME pattern.
2. otherwise take the set of words from each normalised text (words of three or more
   characters, and every word holding a digit, so "H-12" and "H-13" differ);
   two patterns are NEAR-DUPLICATES when the Jaccard similarity of those sets is >= 0.8 and
   each set has at least 3 words (shorter patterns must match exactly).
"""

from __future__ import annotations

import re
import unicodedata

NEAR_THRESHOLD = 0.8
MIN_WORDS = 3


def normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\W_]+", " ", folded).strip()  # one run of separators, one space: idempotent


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in normalise(text).split() if len(w) >= 3 or any(c.isdigit() for c in w))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def relation(a: str, b: str) -> str | None:
    """'same', 'near' or None."""
    if normalise(a) == normalise(b):
        return "same"
    wa, wb = words(a), words(b)
    if len(wa) >= MIN_WORDS and len(wb) >= MIN_WORDS and jaccard(wa, wb) >= NEAR_THRESHOLD:
        return "near"
    return None
