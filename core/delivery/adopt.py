"""Ways in from GitHub: `hall adopt --pr <n>` takes any open PR (Hallmark's or not) as an item.

The PR's branch is fetched and checked out into a new worktree beside the repo, the item is
adopted there (core/items.adopt), and `pr_adopted` records the PR, its URL and the head it had:
the item's ship then runs `update` on that PR (never a second PR), with the push leased at that
head, so a push someone made since is never overwritten. A PR from a fork is refused (Hallmark
pushes to origin only), and so is one that is not open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hallmark.core import git, items
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo, open_repo

from . import gh

FIELDS = "number,url,title,headRefName,headRefOid,baseRefName,state,isCrossRepository"


def adopt_pr(repo: Repo, number: int, *, actor: str | None = None) -> Any:
    answer = gh.pr_view(repo.root, str(number), FIELDS)
    if not answer.ok:
        raise HallError(
            "GH_UNAVAILABLE",
            f"GitHub could not be asked about PR #{number}: {answer.why}.",
            ["gh auth status", f"gh pr view {number}"],
        )
    pr = answer.data
    if str(pr.get("state")) != "OPEN":
        raise HallError(
            "WRONG_STATE", f"PR #{number} is {str(pr.get('state')).lower()}, not open.", [f"gh pr view {number}"]
        )
    if pr.get("isCrossRepository"):
        raise HallError(
            "WRONG_STATE",
            f"PR #{number} comes from a fork; Hallmark pushes to origin only.",
            [f"gh pr checkout {number}", "hall adopt"],
        )
    head, base = str(pr["headRefName"]), str(pr.get("baseRefName") or repo.config.base)
    for view in repo.index.items(include_terminal=False):
        if view.branch == head:
            return _existing(view)
    fetched = git.run(
        ["fetch", "-q", "origin", f"+refs/heads/{head}:refs/remotes/origin/{head}"], repo.root, check=False
    )
    if fetched.returncode != 0:
        raise HallError(
            "COMMAND_FAILED", f"git fetch of {head} failed: {fetched.stderr.strip()[-300:]}", ["git fetch origin"]
        )
    where = Path(repo.root).parent / f"{repo.root.name}-pr-{number}"
    if where.exists():
        raise HallError("WRONG_STATE", f"{where} exists already.", [f"ls {where}"])
    args = ["worktree", "add", str(where)]
    args += [head] if git.branch_exists(repo.root, head) else ["-b", head, "--track", f"origin/{head}"]
    added = git.run(args, repo.root, check=False)
    if added.returncode != 0:
        raise HallError(
            "COMMAND_FAILED", f"git worktree add failed: {added.stderr.strip()[-300:]}", ["git worktree list"]
        )
    there = open_repo(where)
    adopted = items.adopt(there, title=str(pr.get("title") or head), base=base, actor=actor)
    items.record(
        repo,
        adopted.item,
        "pr_adopted",
        actor=actor,
        pr=str(pr["url"]),
        number=int(pr["number"]),
        head=str(pr.get("headRefOid") or ""),
    )
    return adopted


def _existing(view: Any) -> Any:
    from hallmark.core.item_results import Adopted

    return Adopted.adopting(view, False)
