"""The verbs on items: new, adopt, ready, propose-ready, pull-back, drop, retry (ask and answer: questions.py).

Each verb takes plain values, does one step under the item's lock (fold, check the transition,
append), and returns a typed result (core/item_results.py); the faces add `next`. Errors are HallError.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from . import atomic, clock, git, ids, item_lookup, item_results, journal, person_items, states
from .errors import HallError
from .next_steps import next_for
from .paths import is_within
from .repo import Repo, current_actor
from .secrets import redact

# -- reading ----------------------------------------------------------------------------


def item_events(repo: Repo, item_id: str) -> list[dict[str, Any]]:
    return journal.read(repo.paths.item_journal(item_id)).events


def fold_item(repo: Repo, item_id: str) -> states.ItemView:
    path = repo.paths.item_journal(item_id)
    if not path.exists():
        raise HallError("ITEM_NOT_FOUND", f"There is no item {item_id}.", ["hall status --all", 'hall new --title "…"'])
    found = journal.read(path)
    view = states.fold(item_id, found.events)
    if not view.created:
        whole = [b.reason for b in found.bad if b.line == 0]  # refused whole: a directory, a FIFO, too big
        why = f"{path}: {whole[0]}" if whole else f"{item_id} has no creation event in its journal"
        raise HallError("ITEM_NOT_FOUND", f"{why}.", ["hall doctor", "hall status --all"])
    return view


def write_cache(repo: Repo, view: states.ItemView) -> None:
    """item.json is only a cache: derived, rewritten whole, never read for decisions."""
    with contextlib.suppress(OSError):
        atomic.write_json(repo.paths.item_dir(view.id) / "item.json", view.to_dict())


def item_for_path(repo: Repo, where: Path) -> str | None:
    """The active item whose worktree holds `where` (core/item_lookup.py: the one lookup)."""
    view = item_lookup.item_for_path(repo.paths, where)
    return view.id if view else None


def resolve(repo: Repo, given: str | None) -> str:
    """An explicit ID, or the item whose worktree we are standing in."""
    if given:
        item_id = ids.parse_item_id(given)
        if not repo.paths.item_journal(item_id).exists():
            raise HallError("ITEM_NOT_FOUND", f"There is no item {item_id}.", ["hall status --all"])
        return item_id
    found = item_for_path(repo, repo.cwd)
    if found is None:
        raise HallError(
            "NO_ITEM",
            "No item given, and this directory is not an item's worktree.",
            ["hall status --all", "hall status <id>", 'hall new --title "…"'],
        )
    return found


VERB_OF_ACTION = {v: k for k, v in states.ACTION_OF_VERB.items()}


def wrong_state(view: states.ItemView, action: str) -> HallError:
    would = [a for a in states.allowed_actions(view.state) if a in VERB_OF_ACTION]
    verbs = ", ".join(VERB_OF_ACTION[a] for a in would) or "nothing (it is finished)"
    verb = VERB_OF_ACTION.get(action, action)
    return HallError(
        "WRONG_STATE",
        f"{view.id} is {view.state}; '{verb}' does not apply there. From {view.state} you can: {verbs}.",
        next_for(view),
    )


def describe(view: states.ItemView) -> item_results.ItemResult:
    """The item as a verb leaves it (the faces add `next`)."""
    return item_results.ItemResult.of(view)


# -- the one step ----------------------------------------------------------------------


def transition(
    repo: Repo,
    item_id: str,
    action: str,
    *,
    actor: str | None = None,
    extra_events: list[tuple[str, dict[str, Any]]] | None = None,
    **fields: Any,
) -> states.ItemView:
    """Fold, check the transition, append — as one step under the item's lock."""
    path = repo.paths.item_journal(item_id)
    who = actor or current_actor()
    with journal.locked(path):
        view = person_items.view_for(repo, fold_item(repo, item_id), action, who, fields)
        if not person_items.allowed(view, action):
            raise wrong_state(view, action)
        record = journal.append_unlocked(path, person_items.line(repo, action, item_id, who, fields))
        states.apply(view, record)
        for name, more in extra_events or []:
            rec = journal.append_unlocked(path, person_items.line(repo, name, item_id, who, more))
            states.apply(view, rec)
        write_cache(repo, view)  # under the lock, so the cache never goes back in time
    return view


def record(repo: Repo, item_id: str | None, event: str, *, actor: str | None = None, **fields: Any) -> dict[str, Any]:
    """Append a non-transition event to an item's journal, or the repo journal when item is None."""
    path = repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal
    if item_id and event in states.TRANSITIONS:
        raise ValueError(f"{event} is a transition; use transition()")
    return person_items.append(repo, path, event, item_id, actor or current_actor(), fields)  # a person's: signed


# -- verbs ------------------------------------------------------------------------------


def fill(text: str, values: dict[str, str]) -> str:
    """Fill {placeholders} without quoting (branch names); unknown ones stay as written."""
    out = text
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out


def worktree_lock(repo: Repo) -> AbstractContextManager[None]:
    """Git's own `worktree add`/`remove` race when run at once (one reads the metadata another is
    still writing), so Hallmark adds and removes worktrees one at a time per repository."""
    return journal.locked(repo.state_dir / "worktrees", timeout=300)


def _template(text: str, values: dict[str, str]) -> str:
    """Fill {placeholders}, shell-quoting each value (templates run through sh -c)."""
    out = text
    for key, value in values.items():
        out = out.replace("{" + key + "}", shlex.quote(value))
    return out


def _copy_untracked(repo: Repo, worktree: Path, paths: list[str]) -> dict[str, str]:
    from .worktree_copy import copy_into

    return copy_into(repo.root, worktree, paths)


def new(
    repo: Repo,
    *,
    title: str | None = None,
    request: str | None = None,
    branch: str | None = None,
    base: str | None = None,
    actor: str | None = None,
) -> item_results.ItemResult:
    title = redact((title or request or "").strip())  # a title names a branch: never a secret in it
    if not title:
        raise HallError("USAGE", "An item needs a title or a request.", ['hall new --title "…"'])
    from .config_raw import known_valid_new_settings

    # a file that passed its full check before is read without the pydantic model (80 ms of `hall new`)
    cfg = known_valid_new_settings(repo.paths.main_checkout, repo.state_dir) or repo.config
    base = base or cfg.base
    if git.try_head_sha(repo.root) is None:
        raise HallError(
            "COMMAND_FAILED",
            "The repository has no commits yet; an item's branch needs one.",
            ['git commit --allow-empty -m "start"'],
        )
    number = ids.allocate(repo.state_dir, "item")
    item_id = ids.item_id(number)
    slug = ids.slugify(title)
    values = {"repo": repo.root.name, "id": item_id, "slug": slug, "title": title, "base": base}
    branch = branch or fill(cfg.branch, values)
    values["branch"] = branch
    if git.branch_exists(repo.root, branch):
        raise HallError("WRONG_STATE", f"Branch {branch} already exists.", ["hall adopt", f"git branch -D {branch}"])
    base_ok = git.run(["rev-parse", "--verify", "-q", f"{base}^{{commit}}"], repo.root, check=False).returncode == 0
    if not base_ok:  # an item on a base that does not exist could never be reviewed or shipped
        raise HallError(
            "WRONG_STATE",
            f"The base branch {base!r} does not exist (renamed?); an item needs a base to be reviewed against.",
            ["set base in .hallmark.toml", 'hall new --base <branch> --title "…"', "hall doctor"],
        )
    command = _template(cfg.worktree, values)
    if base_ok and "-b {branch}" in cfg.worktree and "{base}" not in cfg.worktree:
        command += " " + shlex.quote(base)
    with worktree_lock(repo):
        proc = subprocess.run(["sh", "-c", command], cwd=str(repo.root), capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            _forget_new_branch(repo, branch)
            raise HallError(
                "COMMAND_FAILED",
                f"The worktree command failed: {command}: {proc.stderr.strip()[-400:]}",
                ["hall doctor", "edit worktree in .hallmark.toml"],
            )
        worktree = git.worktree_for_branch(repo.root, branch)
    if worktree is None:
        raise HallError(
            "COMMAND_FAILED", f"The worktree command ran but no worktree has branch {branch}.", ["git worktree list"]
        )
    copied = _copy_untracked(repo, Path(worktree), cfg.worktree_copy)
    from . import githooks

    githooks.cover(repo.paths, Path(worktree))  # git's pre-push wall in a worktree with its own hooks dir
    path = repo.paths.item_journal(item_id)
    fields: dict[str, Any] = {"title": title, "branch": branch, "worktree": worktree, "base": base}
    if request:
        fields["request"] = request
    if copied:
        fields["copied"] = sorted(copied)
        fields["copied_sha256"] = copied  # unchanged copies are Hallmark's own, never the work (worktree_copy.py)
    with journal.locked(path):
        rec = journal.append_unlocked(path, journal.make_event("created", item_id, actor or current_actor(), fields))
    view = states.fold(item_id, [rec])
    write_cache(repo, view)
    return item_results.ItemResult.of(view)


def _forget_new_branch(repo: Repo, branch: str) -> None:
    """A worktree command that failed half-way may leave the branch it created: with no worktree
    on it and no commit of its own, it holds nothing, so it goes, and a retry starts clean."""
    if not git.branch_exists(repo.root, branch) or git.worktree_for_branch(repo.root, branch) is not None:
        return
    tip = git.run(["rev-parse", f"refs/heads/{branch}"], repo.root, check=False).stdout.strip()
    others = git.run(
        ["for-each-ref", "--format=%(objectname)", "--points-at", tip, "refs/heads/"], repo.root, check=False
    ).stdout.split()
    if len(others) > 1:  # another branch holds the same commit: nothing of its own would be lost
        git.run(["branch", "-D", branch], repo.root, check=False)


def adopt(
    repo: Repo, *, title: str | None = None, base: str | None = None, actor: str | None = None
) -> item_results.Adopted:
    branch = git.current_branch(repo.cwd)
    if branch is None:
        raise HallError("WRONG_STATE", "HEAD is detached; adopt needs a branch.", ["git switch -c <branch>"])
    base = base or repo.config.base
    if branch == base:
        raise HallError(
            "WRONG_STATE",
            f"{branch} is the base branch; adopt a work branch instead.",
            ["git switch -c <branch>", 'hall new --title "…"'],
        )
    for view in repo.index.items():
        if view.branch == branch and not view.terminal:
            return item_results.Adopted.adopting(view, False)
    worktree = str(repo.paths.toplevel)
    number = ids.allocate(repo.state_dir, "item")
    item_id = ids.item_id(number)
    path = repo.paths.item_journal(item_id)
    fields = {"title": title or branch, "branch": branch, "worktree": worktree, "base": base}
    with journal.locked(path):
        rec = journal.append_unlocked(path, journal.make_event("adopted", item_id, actor or current_actor(), fields))
    view = states.fold(item_id, [rec])
    write_cache(repo, view)
    return item_results.Adopted.adopting(view, True)


def _require_clean(repo: Repo, view: states.ItemView) -> str:
    """HEAD of a clean worktree. Files Hallmark copied in and that are unchanged are not dirt."""
    from .worktree_copy import dirty_advice, split_dirt

    if not view.worktree or not Path(view.worktree).is_dir():
        raise HallError(
            "WRONG_STATE", f"{view.id} has no worktree at {view.worktree or '(none)'}.", [f"hall status {view.id}"]
        )
    dirty, _own, edited = split_dirt(repo, view)
    if dirty:
        shown = ", ".join(line[3:] for line in dirty[:5])
        raise HallError(
            "DIRTY_WORKTREE",
            f"{view.id}'s worktree has uncommitted changes: {shown}.",
            dirty_advice(view, dirty, edited),
        )
    return git.head_sha(view.worktree)


def _queue(repo: Repo, view: states.ItemView) -> None:
    atomic.write_json(
        repo.state_dir / "queue" / f"{view.id}.json",
        {"item": view.id, "sha": view.sha, "round": view.round, "t": clock.stamp()},
    )


LOOP_STATES = frozenset({states.CHECKS, states.REVIEW, states.FIXING, states.ESCALATED, states.HALLMARKED})


def _ready_again(view: states.ItemView, sha: str) -> item_results.AlreadyReady:
    """`ready` on an item already in the loop: the current result at the same SHA, else ITEM_IN_REVIEW."""
    if sha and (view.sha == sha or view.hallmark_sha == sha):
        return item_results.AlreadyReady.again(view)
    raise HallError(
        "ITEM_IN_REVIEW",
        f"{view.id} is in {view.state}, round {view.round}, at {view.sha[:7] or '?'}; HEAD is {sha[:7]}.",
        [f"hall pull-back {view.id}", f"hall log {view.id} --kind verdict"],
    )


def _require_rebased(repo: Repo, view: states.ItemView, sha: str) -> None:
    """An item held because its rebase at shipping conflicted is ready again only once its branch
    is on that base: `ready` before would review the same commit and conflict again."""
    if view.hold != "conflict":
        return
    held = [e for e in item_events(repo, view.id) if e.get("event") == "held" and e.get("kind") == "conflict"]
    onto = str(held[-1].get("onto") or "") if held else ""
    if not onto:
        return
    if git.run(["merge-base", "--is-ancestor", onto, sha], view.worktree, check=False).returncode != 0:
        files = ", ".join(held[-1].get("files") or []) or "the conflicting files"
        raise HallError(
            "WRONG_STATE",
            f"{view.id}'s branch is not on {onto} yet: the rebase at shipping conflicted "
            f"in {files}. Rebase it by hand, resolve, then run ready again.",
            list(view.hold_next) or [f"git -C {shlex.quote(view.worktree)} rebase {onto}", f"hall ready {view.id}"],
        )


def ready(repo: Repo, item_id: str, *, note: str | None = None, actor: str | None = None) -> item_results.ItemResult:
    """Freeze HEAD and queue the item; on an item already in the loop at this commit, AlreadyReady."""
    view = fold_item(repo, item_id)
    if view.terminal:
        raise wrong_state(view, "ready")
    sha = _require_clean(repo, view)
    _require_rebased(repo, view, sha)
    if view.state in LOOP_STATES:
        view = person_items.fair_view(repo, view)  # in the loop on an agent's unsigned `ready`: the person's counts
    if view.state in LOOP_STATES:
        return _ready_again(view, sha)
    fields: dict[str, Any] = {"sha": sha, "round": view.round + 1}
    if note:
        fields["note"] = note
    try:
        view = transition(repo, item_id, "ready", actor=actor, **fields)
    except HallError as exc:
        if exc.code != "WRONG_STATE":
            raise
        again = fold_item(repo, item_id)  # another `ready` won the race: answer like a repeat
        if again.state not in LOOP_STATES:
            raise
        return _ready_again(again, sha)
    _queue(repo, view)
    return item_results.ItemResult.of(view)


def propose_ready(
    repo: Repo,
    item_id: str,
    *,
    summary: str,
    why: str | None = None,
    how: str | None = None,
    ask: bool = False,
    actor: str | None = None,
) -> item_results.ItemResult:
    if not summary or not summary.strip():
        raise HallError("USAGE", "propose-ready needs --summary.", [f'hall propose-ready {item_id} --summary "…"'])
    view = fold_item(repo, item_id)
    if view.state != states.DEVELOPMENT:
        raise wrong_state(view, "proposed_ready")
    sha = _require_clean(repo, view)
    fields = {"summary": summary, "why": why, "how": how, "ask": ask, "sha": sha}
    auto = repo.config.auto_ready and not ask and not view.open_questions
    extra = [("ready", {"sha": sha, "round": view.round + 1, "auto": True})] if auto else None
    view = transition(
        repo,
        item_id,
        "proposed_ready",
        actor=actor,
        extra_events=extra,
        **{k: v for k, v in fields.items() if v is not None},
    )
    if auto:
        _queue(repo, view)
    return describe(view)


def pull_back(
    repo: Repo, item_id: str, *, reason: str | None = None, actor: str | None = None
) -> item_results.ItemResult:
    view = transition(repo, item_id, "pulled_back", actor=actor, reason=reason or "")
    with contextlib.suppress(FileNotFoundError):
        (repo.state_dir / "queue" / f"{item_id}.json").unlink()
    return describe(view)


def drop(
    repo: Repo,
    item_id: str,
    *,
    reason: str,
    keep_worktree: bool = False,
    delete_ignored: bool = False,
    actor: str | None = None,
) -> item_results.Dropped:
    """Drop the item and remove its worktree unless something in it is the person's (uncommitted
    work, or git-ignored files Hallmark did not put there); `delete_ignored` deletes the latter."""
    if not reason or not reason.strip():
        raise HallError("USAGE", "drop needs --reason.", [f'hall drop {item_id} --reason "…"'])
    view = transition(repo, item_id, "dropped", actor=actor, reason=reason)
    with contextlib.suppress(FileNotFoundError):
        (repo.state_dir / "queue" / f"{item_id}.json").unlink()
    from .worktree_remove import Removal, remove_worktree

    removal = Removal(False, "asked to keep it" if keep_worktree else "")
    if not keep_worktree and view.worktree and Path(view.worktree).is_dir():
        removal = remove_worktree(repo, view, actor=actor, delete_ignored=delete_ignored)
    removed = removal.removed
    stood_in = removed and is_within(Path(os.path.realpath(repo.cwd)), Path(os.path.realpath(view.worktree)))
    return item_results.Dropped.dropping(view, removed, removal.why, stood_in, removal.deleted)


def retry(
    repo: Repo, item_id: str, *, reason: str, tokens: int | None = None, actor: str | None = None
) -> item_results.ItemResult:
    if not reason or not reason.strip():
        raise HallError("USAGE", "retry needs --reason.", [f'hall retry {item_id} --reason "…"'])
    held = fold_item(repo, item_id)
    if held.hold == "conflict" and held.worktree and Path(held.worktree).is_dir():
        # retry would release the hold with the branch still off its base: nothing rebased, the
        # steps gone from the inbox, and the next ship conflicting again
        _require_rebased(repo, held, git.head_sha(held.worktree))
    fields: dict[str, Any] = {"reason": reason}
    if tokens:
        fields["tokens"] = tokens
    view = transition(repo, item_id, "retried", actor=actor, **fields)
    return describe(view)


def status_all(repo: Repo, *, include_terminal: bool = True) -> item_results.StatusAll:
    views = [v for v in repo.index.items(include_terminal=include_terminal) if v.created]
    by_state: dict[str, list[str]] = {}
    for state in states.STATES:  # in the table's order: development first, dropped last
        found = [v.id for v in views if v.state == state]
        if found:
            by_state[state] = found
    from .damaged import damaged_items

    every = views if include_terminal else repo.index.items(include_terminal=True)
    damaged = damaged_items(repo.paths, known={v.id for v in every if v.created})
    counts = {state: len(found) for state, found in by_state.items()}
    from .person_report import stalled  # an agent's unsigned `ready`, shown as what it is

    attempts = stalled(repo.paths, views, repo.index)
    if not damaged:
        items_ = tuple(item_results.ItemResult.of(v) for v in views)
        return item_results.StatusAll(items=items_, counts=counts, by_state=by_state, warnings=attempts or None)
    counts["damaged"] = len(damaged)  # shown, never hidden: the journal is the truth and these have lost theirs
    warning = (
        f"{len(damaged)} item(s) have a damaged journal: {', '.join(d['item'] for d in damaged[:10])} (hall doctor)"
    )
    return item_results.StatusAll(
        items=tuple(item_results.ItemResult.of(v) for v in views),
        counts=counts,
        by_state=by_state,
        damaged=damaged,
        warnings=[warning, *attempts],
    )


def status_one(repo: Repo, item_id: str) -> item_results.ItemDetail:
    return item_results.ItemDetail.detail(fold_item(repo, item_id))


def log(
    repo: Repo, item_id: str | None, *, kinds: list[str] | None = None, limit: int | None = None
) -> item_results.ItemLog:
    if item_id:
        fold_item(repo, item_id)
        events = item_events(repo, item_id)
    else:
        events = journal.read(repo.paths.repo_journal).events
    if kinds:
        wanted = set(kinds)
        events = [
            e
            for e in events
            if e.get("event") in wanted
            or (e.get("event") in ("changes_requested", "hallmarked", "escalated") and "verdict" in wanted)
        ]
    if limit is not None and limit >= 0:
        events = events[-limit:] if limit else []
    return item_results.ItemLog(item=item_id, events=events)
