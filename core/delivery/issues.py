"""Ways in from GitHub: an item from an issue (`hall new --issue <n>`).

The issue's title and body become the item's title and request (`gh issue view --json`, GraphQL
`IssueByNumber`), and an `issue_linked` event records it, so the PR the item opens says
`Closes #<n>`. GitHub unreachable is GH_UNAVAILABLE, and no item is made from a guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hallmark.core import items
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo

from . import gh

MAX_BODY = 20_000  # an issue body past this is cut (the request is a prompt, not an archive)


def fetch_issue(cwd: Path | str, number: int) -> dict[str, Any]:
    answer = gh.run(["issue", "view", str(number), "--json", "number,title,body,url,state"], cwd)
    if not answer.ok or not isinstance(answer.data, dict):
        raise HallError(
            "GH_UNAVAILABLE",
            f"GitHub could not be asked about issue #{number}: {answer.why or 'no answer'}.",
            ["gh auth status", f"gh issue view {number}", 'hall new --title "…"'],
        )
    return answer.data


def new_from_issue(repo: Repo, number: int, *, base: str | None = None, actor: str | None = None) -> Any:
    """A new item whose title and request are the issue's; the link is recorded (`issue_linked`)."""
    issue = fetch_issue(repo.root, number)
    title = str(issue.get("title") or "").strip() or f"Issue #{number}"
    body = str(issue.get("body") or "")[:MAX_BODY].strip()
    request = f"{title}\n\n{body}" if body else title
    created = items.new(repo, title=title, request=request, base=base, actor=actor)
    items.record(repo, created.item, "issue_linked", actor=actor, issue=number, url=str(issue.get("url") or ""))
    return created
