"""The Delivery Office: the daemon worker that watches each shipped PR until it merges or closes.

Every `[delivery] interval` (per item), for each closed item with a PR not yet delivered:
- `gh pr view <pr> --json state,mergeable,mergeStateStatus,reviewDecision,headRefOid,statusCheckRollup`
  and its unresolved review threads (`gh api graphql`, `reviewThreads`);
- what changed since the last answer is a `pr_status` event (the whole snapshot, and `changed`);
  nothing changed, nothing recorded. "Could not ask" is a `gh_unavailable` event, once per outage
  (the view then says GH_UNAVAILABLE, never green);
- GitHub says MERGED or CLOSED (its state, not ancestry: squash merges break ancestry): `delivered`,
  and the sweeper removes the worktree through core/sweep.py (`git worktree remove`, never --force).
  A worktree the sweep keeps (dirty, and whatever else sweep.py keeps) is said once (`worktree_kept`)
  and tried again on later passes, so it goes once a person has cleaned it up.
When each item was last asked lives in `state/delivery.json` (a cache: losing it costs one ask).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hallmark.core import atomic, items, states
from hallmark.core.clock import parse_duration
from hallmark.core.repo import Repo

from . import gh, reopen, view
from . import pr as _pr

ACTOR = "delivery"
SNAPSHOT_KEYS = ("state", "mergeable", "merge_state", "review_decision", "head", "ci", "failing", "threads")


def _asked_path(repo: Repo) -> Path:
    return repo.state_dir / "delivery.json"


def _asked(repo: Repo) -> dict[str, float]:
    try:
        raw = _asked_path(repo).read_bytes()
        data = json.loads(raw[:1_000_000]) if len(raw) <= 1_000_000 else {}
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)} if isinstance(data, dict) else {}


def _threads(nodes: list[dict[str, Any]], bot: set[str]) -> list[dict[str, Any]]:
    """Unresolved threads, each with its first comment's author, body, path and line."""
    found = []
    for node in nodes:
        if node.get("isResolved"):
            continue
        comments = ((node.get("comments") or {}).get("nodes")) or [{}]
        first = comments[0] or {}
        found.append(
            {
                "id": str(node.get("id", "")),
                "path": node.get("path"),
                "line": node.get("line"),
                "author": str((first.get("author") or {}).get("login", "")),
                "body": str(first.get("body", ""))[:4000],
                "outdated": bool(node.get("isOutdated")),
                "by_hallmark": str((first.get("author") or {}).get("login", "")) in bot,
            }
        )
    return found


def ask(cwd: Path, pr: str) -> dict[str, Any]:
    """One look at the PR: {"ok": True, snapshot…} or {"ok": False, "why": …}."""
    answer = gh.pr_view(cwd, pr)
    if not answer.ok:
        return {"ok": False, "why": answer.why}
    data = answer.data
    ci, failing = view.ci_of(list(data.get("statusCheckRollup") or []))
    snapshot: dict[str, Any] = {
        "ok": True,
        "state": str(data.get("state") or "UNKNOWN").upper(),
        "mergeable": str(data.get("mergeable") or "UNKNOWN").upper(),
        "merge_state": str(data.get("mergeStateStatus") or "").upper(),
        "review_decision": str(data.get("reviewDecision") or ""),
        "head": str(data.get("headRefOid") or ""),
        "ci": ci,
        "failing": failing,
        "threads": [],
        "checks": [
            {
                "name": str(c.get("name") or c.get("context") or "?"),
                "conclusion": c.get("conclusion"),
                "url": c.get("detailsUrl"),
            }
            for c in data.get("statusCheckRollup") or []
        ],
    }
    slug, number = _pr.slug_of(str(data.get("url") or pr)), _pr.number_of(str(data.get("url") or pr))
    if slug is None or number is None:
        return {"ok": False, "why": f"cannot tell the repository and number of {pr}"}
    threads = gh.review_threads(cwd, slug[0], slug[1], number)
    if not threads.ok:
        return {"ok": False, "why": f"review threads: {threads.why}"}
    snapshot["threads"] = _threads(threads.data, set())
    return snapshot


def _last(events: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    found = [e for e in events if e.get("event") == name]
    return found[-1] if found else None


def _changed(before: dict[str, Any] | None, now: dict[str, Any]) -> list[str]:
    if before is None:
        return list(SNAPSHOT_KEYS)
    return [k for k in SNAPSHOT_KEYS if before.get(k) != now.get(k)]


def watch_one(repo: Repo, item: states.ItemView) -> dict[str, Any]:
    """Ask GitHub about one item's PR and record what changed; a merged or closed PR is delivered."""
    events = items.item_events(repo, item.id)
    cwd = Path(item.worktree) if item.worktree and Path(item.worktree).is_dir() else repo.root
    seen = ask(cwd, item.pr)
    if not seen["ok"]:
        last = [e for e in events if e.get("event") in ("pr_status", "gh_unavailable")]
        if not last or last[-1].get("event") != "gh_unavailable":  # once per outage
            items.record(repo, item.id, "gh_unavailable", actor=ACTOR, pr=item.pr, why=seen["why"])
        return {"item": item.id, "outcome": view.GH_UNAVAILABLE, "why": seen["why"]}
    del seen["ok"]
    before = _last(events, "pr_status")
    last_word = [e for e in events if e.get("event") in ("pr_status", "gh_unavailable")]
    changed = _changed(before, seen)
    back = bool(last_word) and last_word[-1].get("event") == "gh_unavailable"
    if changed or back:
        items.record(repo, item.id, "pr_status", actor=ACTOR, pr=item.pr, changed=changed, **seen)
    result: dict[str, Any] = {"item": item.id, "outcome": "pr_status", "changed": changed, "state": seen["state"]}
    acted = reopen.judge(repo, item, seen, events, cwd) or reopen.restore(repo, item, seen, events)
    if acted:
        result.update(acted, outcome="reopened" if acted.get("reopened") else "restored")
    if seen["state"] in ("MERGED", "CLOSED"):
        items.record(repo, item.id, "delivered", actor=ACTOR, pr=item.pr, state=seen["state"], head=seen["head"])
        result["outcome"] = "delivered"
        result.update(sweep_one(repo, item.id))
    return result


def sweep_one(repo: Repo, item_id: str) -> dict[str, Any]:
    """The delivered item's worktree through core/sweep.py's removal; a kept one is said once."""
    from hallmark.core import sweep

    done = sweep.sweep(repo, actor="sweeper", item_ids=[item_id])
    if getattr(done, "removed", ()):
        return {"worktree_removed": True}
    kept = [k.why for k in getattr(done, "kept", ()) if k.item == item_id]
    if kept:
        said = [
            e
            for e in items.item_events(repo, item_id)
            if e.get("event") == "notice" and e.get("kind") == "worktree_kept"
        ]
        if not said or said[-1].get("why") != kept[0]:
            fresh = items.fold_item(repo, item_id)
            items.record(
                repo,
                item_id,
                "notice",
                actor="sweeper",
                kind="worktree_kept",
                why=kept[0],
                text=f"{item_id}: its PR is done, but its worktree {fresh.worktree} is kept: {kept[0]}",
            )
        return {"worktree_removed": False, "worktree_kept": kept[0]}
    return {"worktree_removed": False}


def due(repo: Repo, now: float | None = None) -> list[states.ItemView]:
    """Closed items with an open PR (not delivered), and those reopened for red CI (a re-run may
    pass: `restored`), whose interval has passed."""
    interval = parse_duration(repo.config.delivery.interval)
    asked = _asked(repo)
    now = time.time() if now is None else now
    found = []
    for item in repo.index.items(include_terminal=True):
        watched = item.state == states.CLOSED or (item.state == states.DEVELOPMENT and item.hold == "ci_failed")
        if not watched or not item.pr or _pr.number_of(item.pr) is None:
            continue
        if any(e.get("event") == "delivered" for e in items.item_events(repo, item.id)):
            continue
        if now - asked.get(item.id, 0.0) >= interval:
            found.append(item)
    return found


def _kept_delivered(repo: Repo) -> list[str]:
    """Delivered items whose worktree is still there (kept before): the sweeper tries again."""
    found = []
    for item in repo.index.items(include_terminal=True):
        if item.state == states.CLOSED and item.worktree and Path(item.worktree).is_dir():
            events = items.item_events(repo, item.id)
            if any(e.get("event") == "delivered" for e in events):
                found.append(item.id)
    return found


def watch(repo: Repo, now: float | None = None) -> list[dict[str, Any]]:
    """One Delivery Office pass over the repo (the daemon calls this beside the item steps)."""
    if not repo.config.delivery.watch:
        return []
    done: list[dict[str, Any]] = []
    asked = _asked(repo)
    for item in due(repo, now):
        posted = _pr.post_reviews(repo, item.id)  # a review whose post failed before is tried again
        done.append(watch_one(repo, item))
        if posted:
            done[-1]["reviews"] = posted
        asked[item.id] = time.time() if now is None else now
    handled = {step["item"] for step in done}
    for item_id in _kept_delivered(repo):
        if item_id in handled:
            continue
        done.append({"item": item_id, "outcome": "swept", **sweep_one(repo, item_id)})
    if done:
        atomic.write_text(_asked_path(repo), json.dumps(asked))
    return done
