"""The item's pull request: its description (What / Why / How), its identity, its review comments.

- The description is built from the item's record only: the title and summary, the request, the
  reviewer's last verdict summary, the findings that were fixed, and the hallmark (the commit and
  the git note that carries it), so a reader on GitHub can check the claim.
- Each review (a `verdict` event) of an item that has a PR is posted through `review_comment` and
  then read back from the PR (`gh pr view --json comments`): only a comment GitHub shows counts.
  A post that exits 0 but left no comment is a failure (`review_comment_failed`, said once per
  review), and the next pass tries it again. `review_posted` records the comment's URL.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from hallmark.core import items, states
from hallmark.core.repo import Repo

from . import gh
from .prid import number_of, slug_of  # noqa: F401 - re-exported: callers ask pr for a PR's identity

ACTOR = "shipper"
MARK = "hallmark-review"


def _fixed(repo: Repo, item_id: str) -> list[dict[str, Any]]:
    from hallmark.core.loop import findings

    events = [e for e in items.item_events(repo, item_id) if e.get("event") in ("verdict", "fixed", "disputed")]
    return [f for f in findings.fold(events) if f["status"] == "fixed"]


def body_text(repo: Repo, view: states.ItemView) -> str:
    """What / Why / How from the item's record, and the hallmark it carries."""
    events = items.item_events(repo, view.id)
    verdicts = [e for e in events if e.get("event") == "verdict"]
    last = verdicts[-1] if verdicts else {}
    override = " (a human override)" if last.get("human_override") else ""
    what = view.title + (f"\n\n{view.summary}" if view.summary and view.summary != view.title else "")
    why = view.request or view.title
    issue = next((e.get("issue") for e in events if e.get("event") == "issue_linked" and e.get("issue")), None)
    if issue:
        why += f"\n\nCloses #{issue}"
    fixed = _fixed(repo, view.id)
    how = [f"The reviewer's verdict{override} after {view.round} round(s): {last.get('summary', '') or '(none)'}"]
    if fixed:
        how.append("\nFindings fixed on the way:")
        how += [f"- {f['id']} [{f['severity']}] {f['file']}{_line(f)}: {f['title']}" for f in fixed]
    sha = view.hallmark_sha
    lines = [
        f"## What\n\n{what}\n",
        f"## Why\n\n{why}\n",
        "## How\n\n" + "\n".join(how) + "\n",
        f"---\nHallmark: {sha} (item {view.id}) — the approval is the git note on that commit: "
        f"`git fetch origin refs/notes/hallmark:refs/notes/hallmark && git notes --ref=hallmark show {sha[:12]}`",
    ]
    return "\n".join(lines) + "\n"


def _line(finding: dict[str, Any]) -> str:
    return f":{finding['line']}" if finding.get("line") else ""


# -- review comments ---------------------------------------------------------------------------


def review_text(item_id: str, number: int, verdict: dict[str, Any]) -> str:
    """One review as a PR comment, with a marker the read-back looks for."""
    decision = str(verdict.get("decision") or "review")
    who = (
        "a person (human override)"
        if verdict.get("human_override")
        else f"the reviewer ({verdict.get('model') or 'model'})"
    )
    lines = [
        f"### Hallmark review {number} of {item_id}: {decision.replace('_', ' ')}",
        "",
        f"By {who} on {str(verdict.get('sha', ''))[:12]}, round {verdict.get('round', '?')}.",
        "",
        str(verdict.get("summary") or ""),
    ]
    found = verdict.get("findings") or []
    if found:
        lines += ["", "Findings:"]
        lines += [
            f"- {f.get('id', '')} [{f.get('severity', '')}] {f.get('file', '')}{_line(f)}: {f.get('title', '')}"
            for f in found
        ]
    lines += ["", f"<!-- {MARK} {item_id} {number} -->"]
    return "\n".join(lines) + "\n"


def _comment_url(repo: Repo, cwd: Path, pr: str, marker: str) -> tuple[bool, str]:
    """(could ask, the URL of the PR comment holding `marker` or "")."""
    answer = gh.pr_view(cwd, pr, "comments")
    if not answer.ok:
        return False, answer.why
    for comment in answer.data.get("comments") or []:
        if marker in str(comment.get("body", "")):
            return True, str(comment.get("url", "")) or pr
    return True, ""


def post_reviews(repo: Repo, item_id: str) -> list[dict[str, Any]]:
    """Post every review of the item not yet on its PR; each result says posted or failed, and why."""
    template = repo.config.review_comment.strip()
    view = items.fold_item(repo, item_id)
    if not template or not view.pr:
        return []
    events = items.item_events(repo, item_id)
    verdicts = [e for e in events if e.get("event") == "verdict"]
    posted = {int(e.get("review", 0)) for e in events if e.get("event") == "review_posted"}
    failed = {
        int(e.get("review", 0))
        for e in events
        if e.get("event") == "notice" and e.get("kind") == "review_comment_failed"
    }
    cwd = Path(view.worktree) if view.worktree and Path(view.worktree).is_dir() else repo.root
    done: list[dict[str, Any]] = []
    for number, verdict in enumerate(verdicts, start=1):
        if number in posted:
            continue
        result = _post_one(repo, view, cwd, number, verdict, template)
        if result["ok"]:
            items.record(repo, item_id, "review_posted", actor=ACTOR, review=number, pr=view.pr, url=result["url"])
        elif number not in failed:
            items.record(
                repo,
                item_id,
                "notice",
                actor=ACTOR,
                kind="review_comment_failed",
                review=number,
                text=f"{item_id}: review {number} could not be posted on {view.pr}: {result['why']}",
            )
        done.append({"review": number, **result})
    return done


def _post_one(
    repo: Repo, view: states.ItemView, cwd: Path, number: int, verdict: dict[str, Any], template: str
) -> dict[str, Any]:
    from hallmark.core.runner.command import launch_environment

    marker = f"<!-- {MARK} {view.id} {number} -->"
    could, url = _comment_url(repo, cwd, view.pr, marker)
    if could and url:  # posted before, its record lost (a crash between the post and the event)
        return {"ok": True, "url": url}
    path = repo.paths.item_dir(view.id) / f"review-{number}.md"
    path.write_text(review_text(view.id, number, verdict), encoding="utf-8")
    values = {"pr": view.pr, "review_file": str(path), "id": view.id, "branch": view.branch, "repo": repo.root.name}
    command = items._template(template, values)
    try:
        proc = subprocess.run(
            ["sh", "-c", command],
            cwd=str(cwd),
            env=launch_environment(repo, view.id, ACTOR),
            capture_output=True,
            text=True,
            timeout=gh.TIMEOUT_S * 2,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "why": f"review_comment timed out: {command}"}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-300:]
        return {"ok": False, "why": f"review_comment exited {proc.returncode}: {tail}"}
    could, url = _comment_url(repo, cwd, view.pr, marker)
    if not could:
        return {"ok": False, "why": f"the comment could not be read back ({url})"}
    if not url:
        return {"ok": False, "why": f"review_comment exited 0 but {view.pr} shows no such comment"}
    return {"ok": True, "url": url}
