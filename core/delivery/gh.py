"""Asking GitHub through the `gh` CLI: one bounded subprocess per question, a typed answer.

"Could not ask" (no gh, a timeout, a network or server error, unreadable output) is its own answer
(`GhAnswer.ok` False with `why`), never an empty success: the Delivery Office shows it as
GH_UNAVAILABLE, and nothing built on it is ever shown green. Tested with Debian's gh 2.23, so only
what 2.23 has is used (`gh pr view --json statusCheckRollup`, not `gh pr checks --json`).

Every GitHub endpoint Hallmark calls goes through here (or through a person's ship / update /
review_comment templates, which also run gh).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIN_GH = "2.23.0"  # the oldest gh the delivery tests ran (Debian's package)
TIMEOUT_S = 60
MAX_OUTPUT = 8_000_000  # a PR view is kilobytes; more than this is not an answer we read

PR_FIELDS = "number,url,state,mergeable,mergeStateStatus,reviewDecision,headRefOid,headRefName,statusCheckRollup"

THREADS_QUERY = """
query HallmarkReviewThreads($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes {
          id isResolved isOutdated path line
          comments(first: 20) { nodes { body url author { login } } }
        }
      }
    }
  }
}
"""

RESOLVE_MUTATION = """
mutation HallmarkResolveThread($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } }
}
"""


@dataclass(frozen=True, slots=True)
class GhAnswer:
    """One gh call: ok with its output (JSON parsed when asked), or why it could not be asked."""

    ok: bool
    data: Any = None
    text: str = ""
    why: str = ""
    code: int | None = None


def run(args: list[str], cwd: Path | str, *, parse: bool = True, stdin: str | None = None) -> GhAnswer:
    """`gh <args>` in `cwd`, bounded; JSON-parsed stdout when `parse`."""
    if shutil.which("gh") is None:
        return GhAnswer(ok=False, why="the gh CLI is not installed")
    try:
        proc = subprocess.run(
            ["gh", *args],
            cwd=str(cwd),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return GhAnswer(ok=False, why=f"gh {args[0]} timed out after {TIMEOUT_S}s")
    except OSError as exc:
        return GhAnswer(ok=False, why=f"gh could not run: {exc}")
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        return GhAnswer(
            ok=False, why=(detail[-1] if detail else f"gh exited {proc.returncode}")[:300], code=proc.returncode
        )
    if len(proc.stdout) > MAX_OUTPUT:
        return GhAnswer(ok=False, why=f"gh answered more than {MAX_OUTPUT} bytes")
    if not parse:
        return GhAnswer(ok=True, text=proc.stdout)
    try:
        return GhAnswer(ok=True, data=json.loads(proc.stdout or "null"), text=proc.stdout)
    except ValueError:
        return GhAnswer(ok=False, why="gh's answer is not JSON")


def pr_view(cwd: Path | str, pr: str, fields: str = PR_FIELDS) -> GhAnswer:
    """GraphQL `PullRequestByNumber` (repository.pullRequest) through `gh pr view --json`."""
    answer = run(["pr", "view", pr, "--json", fields], cwd)
    if answer.ok and not isinstance(answer.data, dict):
        return GhAnswer(ok=False, why="gh pr view did not answer an object")
    return answer


def graphql(cwd: Path | str, query: str, **variables: str | int) -> GhAnswer:
    """POST /api/graphql through `gh api graphql` (-f strings, -F numbers)."""
    args = ["api", "graphql", "-f", f"query={query}"]
    for name, value in variables.items():
        args += ["-F" if isinstance(value, int) else "-f", f"{name}={value}"]
    answer = run(args, cwd)
    if answer.ok and isinstance(answer.data, dict) and answer.data.get("errors"):
        first = answer.data["errors"][0]
        return GhAnswer(ok=False, why=str(first.get("message", "a GraphQL error"))[:300])
    return answer


def review_threads(cwd: Path | str, owner: str, name: str, number: int) -> GhAnswer:
    """The PR's review threads (GraphQL `reviewThreads`), as a list of dicts in `data`."""
    answer = graphql(cwd, THREADS_QUERY, owner=owner, name=name, number=number)
    if not answer.ok:
        return answer
    try:
        nodes = answer.data["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
    except (KeyError, TypeError):
        return GhAnswer(ok=False, why="the reviewThreads answer has no nodes")
    return GhAnswer(ok=True, data=list(nodes or []), text=answer.text)


def resolve_thread(cwd: Path | str, thread_id: str) -> GhAnswer:
    """GraphQL `resolveReviewThread`."""
    return graphql(cwd, RESOLVE_MUTATION, threadId=thread_id)


def _parse_version(text: str) -> tuple[int, ...] | None:
    import re

    found = re.search(r"gh version (\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(p) for p in found.groups()) if found else None


def doctor_check() -> tuple[bool, str]:
    """(ok, detail) for `hall doctor`: gh is there, and no older than the oldest gh the tests ran."""
    path = shutil.which("gh")
    if path is None:
        return False, f"not on PATH (needed for pull requests and the Delivery Office; tested with gh {MIN_GH}+)"
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"{path} does not run: {exc}"
    found = _parse_version(proc.stdout)
    minimum = tuple(int(p) for p in MIN_GH.split("."))
    if found is None:
        return False, f"{path}: cannot read its version (tested with gh {MIN_GH}+)"
    shown = ".".join(map(str, found))
    if found < minimum:
        return False, f"gh {shown} at {path} is older than {MIN_GH}, the oldest Hallmark was tested with"
    return True, f"gh {shown} at {path} (Hallmark is tested with gh {MIN_GH} and newer)"
