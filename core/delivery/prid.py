"""A PR's number and repository from its URL (stdlib only: the hook path's status reads the view)."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"/pull/(\d+)\b")
_SLUG = re.compile(r"^https?://[^/]+/([^/]+)/([^/]+)/pull/\d+")


def number_of(pr: str) -> int | None:
    """The PR number in a PR URL (or a bare number)."""
    if pr.strip().isdigit():
        return int(pr.strip())
    found = _NUMBER.search(pr)
    return int(found.group(1)) if found else None


def slug_of(pr: str) -> tuple[str, str] | None:
    """(owner, name) from a PR URL."""
    found = _SLUG.match(pr.strip())
    return (found.group(1), found.group(2)) if found else None
