"""The Assay Office's review: the principal engineer's headless run, the verdict and the hallmark.

The prompt carries the `principal-review` skill and the rules read from the BASE branch (the
`rules` files and the files they list, plus `.hallmark/review.md`), never the item's branch, so a
branch cannot soften its own review. Round 1 reads the whole change; later rounds read only the
diff since the last reviewed commit, plus the findings not yet resolved.

Approval (0 blockers, 0 majors) strikes the hallmark: a note under refs/notes/hallmark on the
approved SHA, written with HALL_ACTOR=assayer, and the `hallmarked` transition. Otherwise the item
goes to fixing, or to escalated at `max_rejects`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from hallmark.core import git, items, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.runner import command, spawn

from . import findings as _findings
from . import verdict as _verdict
from .results import VerdictApplied, VerdictHallmarked, VerdictReturned

ACTOR = "assayer"
NOTES_REF = "refs/notes/hallmark"
DIFF_LIMIT = 200_000  # characters of diff in the prompt; the reviewer reads the rest with git
RULE_LINK = re.compile(r"(?:\]\(|@|`)([\w./-]+\.(?:md|markdown|txt|toml|rst))")


# -- what the reviewer reads ------------------------------------------------------------------


def base_ref(repo: Repo, view: states.ItemView) -> str:
    return view.base or repo.config.base


def rules_ref(repo: Repo, base: str) -> str:
    """Where the reviewer's rules are read: the base as the remote has it (`origin/<base>`, which no
    commit on this machine can move without a push the loop stamped), else the local base branch (a
    repository with no remote)."""
    remote = f"refs/remotes/origin/{base}"
    found = git.run(["rev-parse", "--verify", "-q", f"{remote}^{{commit}}"], repo.root, check=False)
    return remote if found.returncode == 0 else base


def base_rules(repo: Repo, base: str) -> list[tuple[str, str]]:
    """(path, text) of each rule file on the base branch as the remote has it (rules_ref), and of the
    files they list (one level)."""
    base = rules_ref(repo, base)
    names = [*list(repo.config.rules), ".hallmark/review.md"]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    queue = list(names)
    depth = {n: 0 for n in names}
    while queue:
        name = queue.pop(0)
        clean = name.lstrip("./")
        if clean in seen:
            continue
        seen.add(clean)
        text = git.show_file(repo.root, base, clean)
        if text is None:
            continue
        out.append((clean, text))
        if depth.get(name, 0) >= 1:
            continue
        for listed in RULE_LINK.findall(text):
            target = listed.lstrip("./")
            if target not in seen and not target.startswith(("http", "/")):
                depth[target] = depth.get(name, 0) + 1
                queue.append(target)
    return out


def skill_text() -> str:
    path = command.plugin_dir() / "skills" / "principal-review" / "SKILL.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            text = text[end + 4 :]
    return text.strip()


def last_reviewed_sha(repo: Repo, item_id: str) -> str | None:
    for event in reversed(items.item_events(repo, item_id)):
        if event.get("event") == "verdict" and event.get("sha"):
            return str(event["sha"])
        if event.get("event") == "pulled_back":
            return None
    return None


def _diff(repo: Repo, cwd: str | Path, a: str, b: str) -> str:
    text = git.run(["diff", "--no-color", "--no-ext-diff", f"{a}..{b}"], cwd).stdout
    if len(text) > DIFF_LIMIT:
        text = (
            text[:DIFF_LIMIT]
            + f"\n[diff cut at {DIFF_LIMIT} characters: run `git diff {a[:12]}..{b[:12]}` for the rest]\n"
        )
    return text


def _render_finding(f: dict[str, Any]) -> str:
    where = f"{f['file']}:{f['line']}" if f.get("line") is not None else str(f.get("file"))
    extra = ""
    if f["status"] == "fixed":
        extra = f" — the fixer says {str(f.get('fixed_in') or '')[:7]} fixes it"
    elif f["status"] == "disputed":
        extra = f" — the fixer disputes it: {f.get('dispute')}"
    return f"- {f['id']} [{f['severity']}, {f['lens']}] {where}: {f.get('title') or ''} {f.get('scenario')}{extra}"


def build_prompt(repo: Repo, view: states.ItemView) -> str:
    base = base_ref(repo, view)
    sha = view.sha
    since = last_reviewed_sha(repo, view.id)
    cwd = view.worktree if view.worktree and Path(view.worktree).is_dir() else repo.root
    pending = _findings.unresolved(repo, view.id)
    parts = [f"# Review {view.id} round {view.round}: commit {sha[:12]} against {base}", ""]
    parts += [f"Title: {view.title}"]
    if view.summary:
        parts += [f"The author's summary: {view.summary}"]
    parts += [
        "",
        "You are Hallmark's principal engineer. Review the frozen commit with the seven lenses and",
        "answer ONLY with the structured verdict (the JSON schema you were given).",
        "",
    ]
    skill = skill_text()
    if skill:
        parts += ["## How to review (the principal-review skill)", "", skill, ""]
    rules = base_rules(repo, base)
    parts += [f"## Repo rules, read from the base branch `{base}` (not from the item's branch)", ""]
    if rules:
        for path, text in rules:
            parts += [f"### {path} (at {base})", "", text.rstrip(), ""]
    else:
        parts += ["(none of the configured rule files exist on the base branch)", ""]
    briefing = library_briefing(repo, cwd, git.merge_base(cwd, base, sha) or base, sha, view.title)
    if briefing:
        parts += [
            "## Library briefing (accepted learnings; name the ones you use in `learnings_used` and any",
            "this change shows to be wrong in `learnings_contradicted`)",
            "",
            briefing.rstrip(),
            "",
        ]
    if since:
        changed = _diff(repo, cwd, since, sha).rstrip() if since != sha else ""
        parts += [
            f"## What changed since the last reviewed commit {since[:12]}",
            "",
            "Read only this difference; earlier rounds covered the rest.",
            "",
            "```diff",
            changed or "(no new commits: the fixer only disputed findings)",
            "```",
            "",
        ]
        parts += [
            "## Findings not yet resolved",
            "",
            "List in `still_open` the ids of those this commit does not resolve; accept a dispute by",
            "leaving its id out.",
            "",
        ]
        parts += [_render_finding(f) for f in pending] or ["(none)"]
        parts += [""]
    else:
        start = git.merge_base(cwd, base, sha) or base
        parts += [
            f"## The change ({start[:12]}..{sha[:12]})",
            "",
            "```diff",
            _diff(repo, cwd, start, sha).rstrip(),
            "```",
            "",
        ]
    parts += [
        "Approval is decided by Hallmark from your findings: 0 blockers and 0 majors approves.",
        f"Read more of the code with read-only commands in {cwd}.",
    ]
    return "\n".join(parts) + "\n"


# -- the run ----------------------------------------------------------------------------------


def library_briefing(repo: Repo, cwd: str | Path, start: str, sha: str, query: str) -> str:
    """Accepted learnings for the changed paths, within the briefing cap; empty when there are none.

    Fails open: a broken or absent Library never blocks a review.
    """
    try:
        from hallmark.core.memory import briefing

        changed = git.out(["diff", "--name-only", f"{start}..{sha}"], cwd).splitlines()
        return briefing.build(repo.paths, changed=changed, query=query).text
    except Exception:  # noqa: BLE001 - the Library is advice, never a gate
        return ""


def _validate(data: Any) -> str | None:
    try:
        _verdict.parse(data, source="structured_output")
    except HallError as exc:
        return exc.message
    return None


def review(repo: Repo, item_id: str) -> dict[str, Any]:
    """Run the reviewer on an item in review and apply its verdict. Returns what happened."""
    view = items.fold_item(repo, item_id)
    if view.state != states.REVIEW:
        raise items.wrong_state(view, "hallmarked")
    from .bounds import ceiling_reached

    ceiling = ceiling_reached(repo, item_id)
    if ceiling:
        return ceiling
    cwd = Path(view.worktree) if view.worktree and Path(view.worktree).is_dir() else repo.root
    prompt = build_prompt(repo, view)
    spec = spawn.RunSpec(
        role="review",
        prompt=prompt,
        cwd=cwd,
        item_id=item_id,
        json_schema=_verdict.schema(),
        validate=_validate,
        permission_mode="default",
        allowed_tools=[
            "Read",
            "Glob",
            "Grep",
            "Bash(git log:*)",
            "Bash(git diff:*)",
            "Bash(git show:*)",
            "Bash(git status:*)",
        ],
    )
    result = spawn.run(repo, spec)
    if not result.ok:
        return {
            "item": item_id,
            "outcome": "run_failed",
            "failure": result.failure,
            "run": result.name,
            "rate_limited": result.rate_limited,
            "resets_at": result.resets_at,
        }
    verdict = _verdict.parse(result.structured_output, source="structured_output")
    applied = apply_verdict(repo, item_id, verdict, actor=ACTOR, model=result.model, run=result.name)
    return {**applied.to_dict(), "run": result.name}


def apply_verdict(
    repo: Repo, item_id: str, verdict: _verdict.Verdict, *, actor: str, model: str, run: str | None = None
) -> VerdictApplied:
    """Record the verdict and move the item: hallmarked, fixing or escalated."""
    view = items.fold_item(repo, item_id)
    if view.state != states.REVIEW:
        raise items.wrong_state(view, "hallmarked")
    human = actor == "you"
    earlier = _findings.unresolved(repo, item_id)
    known = {f["id"] for f in earlier}
    unknown = [fid for fid in verdict.still_open if fid not in known]
    if unknown:
        raise HallError(
            "INVALID_VERDICT",
            f"still_open names findings that are not open: {', '.join(unknown)}.",
            [f"hall findings {item_id}"],
        )
    ids = _findings.next_ids(repo, item_id, len(verdict.findings))
    new = [dict(f.model_dump(), id=fid) for f, fid in zip(verdict.findings, ids, strict=True)]
    blocking = verdict.blocking(earlier)
    open_ids = [f["id"] for f in new] + list(verdict.still_open)
    decision = "approve" if not blocking else "changes_requested"
    standin = run_was_standin(repo, item_id, run, model)
    items.record(
        repo,
        item_id,
        "verdict",
        actor=actor,
        sha=view.sha,
        round=view.round,
        decision=decision,
        summary=verdict.summary,
        findings=new,
        still_open=list(verdict.still_open),
        learnings_used=list(verdict.learnings_used),
        learnings_contradicted=list(verdict.learnings_contradicted),
        model=model,
        run=run,
        standin=standin,
        human_override=human,
        blocking=blocking,
    )
    record_learnings(repo, item_id, verdict, actor=actor)
    if not blocking:
        note = strike(repo, view, model=model, open_findings=open_ids, actor=actor, run=run, standin=standin)
        view = items.transition(
            repo,
            item_id,
            "hallmarked",
            actor=actor,
            sha=view.sha,
            round=view.round,
            model=model,
            human_override=human,
            open_findings=len(open_ids),
            run=run,
            standin=standin,
        )
        return VerdictHallmarked(
            item=item_id,
            outcome="hallmarked",
            sha=view.sha,
            note=note,
            human_override=human,
            state=view.state,
            view=view,
        )
    outcome: Literal["escalated", "changes_requested"]
    if view.rejects + 1 >= repo.config.max_rejects:
        outcome = "escalated"
        view = items.transition(
            repo,
            item_id,
            outcome,
            actor=actor,
            sha=view.sha,
            round=view.round,
            open_findings=len(open_ids),
            reason=f"{view.rejects + 1} rejected reviews",
        )
    else:
        outcome = "changes_requested"
        view = items.transition(
            repo, item_id, outcome, actor=actor, sha=view.sha, round=view.round, open_findings=len(open_ids)
        )
    return VerdictReturned(
        item=item_id,
        outcome=outcome,
        open_findings=open_ids,
        state=view.state,
        human_override=True if human else None,
        view=view,
    )


def record_learnings(repo: Repo, item_id: str, verdict: _verdict.Verdict, *, actor: str) -> dict[str, Any]:
    """Tell the Library which learnings the verdict used (their last use) and which it contradicted
    (proposed for retirement, for a person to decide). One id at a time, so a bad or unknown id
    costs only itself; what fails is a notice and never changes the verdict."""
    done: dict[str, Any] = {"used": [], "retirement_proposed": [], "failed": []}
    if not verdict.learnings_used and not verdict.learnings_contradicted:
        return done
    try:
        from hallmark.core.memory import api as library
    except ImportError:  # pragma: no cover - the memory store is part of the package
        return done
    work = [(lid, False) for lid in dict.fromkeys(verdict.learnings_used)]
    work += [(lid, True) for lid in dict.fromkeys(verdict.learnings_contradicted)]
    for lid, contradicted in work:
        try:
            if contradicted:
                answer = library.record_usage(repo, [], item=item_id, contradicted=[lid], actor=actor)
                done["retirement_proposed"] += answer.get("retirement_proposed") or []
            else:
                done["used"] += library.record_usage(repo, [lid], item=item_id, actor=actor).get("used") or []
        except Exception as exc:  # noqa: BLE001 - the Library is advice: a verdict stands without it
            why = exc.message if isinstance(exc, HallError) else repr(exc)
            done["failed"].append({"id": lid, "contradicted": contradicted, "why": why})
    if done["failed"]:
        names = ", ".join(f["id"] for f in done["failed"])
        items.record(
            repo,
            item_id,
            "notice",
            actor=actor,
            kind="library",
            text=f"The verdict named learnings the Library could not record ({names}): {done['failed'][0]['why']}",
        )
    return done


# -- the hallmark's provenance (gates/hallmark.py follows it) ------------------------------------
# The verdict event, the `hallmarked` event and the note all name the run the verdict came from and
# whether the stand-in model ran it; the check follows `hallmarked` -> verdict -> `run_started`.


def run_was_standin(repo: Repo, item_id: str, run: str | None, model: str) -> bool:
    """Was this verdict's run the stand-in's? Its reported model, or how the runner recorded the run."""
    from hallmark.core.gates import hallmark as _hallmark

    if model == _hallmark.STANDIN_MODEL:
        return True
    return bool(run) and _hallmark.run_was_standin(items.item_events(repo, item_id), str(run))


def strike(
    repo: Repo,
    view: states.ItemView,
    *,
    model: str,
    open_findings: list[str],
    actor: str,
    run: str | None = None,
    standin: bool = False,
    sha: str | None = None,
    carried_from: str | None = None,
) -> dict[str, Any]:
    """Write the signed hallmark note on the approved SHA (or `sha`: a rebased commit whose checks
    passed, `carried_from` the approved one), as the assayer. Raises SIGNING_UNAVAILABLE when this
    process cannot sign (no key it can read): then no hallmark is struck."""
    from hallmark.core import hallmark_note, signing, stamp_key

    sha = sha or view.sha
    tree = git.run(["rev-parse", "--verify", "-q", f"{sha}^{{tree}}"], repo.root, check=False).stdout.strip()
    try:
        stamp_key.ensure_signer(repo.paths)
        note = hallmark_note.make(
            item=view.id,
            sha=sha,
            tree=tree,
            round=view.round,
            run=run,
            actor=actor,
            model=model,
            standin=standin,
            open_findings=open_findings,
            carried_from=carried_from,
        )
    except signing.SigningError as exc:
        raise HallError(
            "SIGNING_UNAVAILABLE",
            f"No hallmark was struck on {sha[:12]} for {view.id}: {exc}.",
            ["hall setup git", "hall doctor"],
        ) from None
    git.run(
        ["notes", f"--ref={NOTES_REF}", "add", "-f", "-m", hallmark_note.encode(note), sha],
        repo.root,
        env={"HALL_ACTOR": "assayer"},
    )
    return note


def read_note(repo: Repo, sha: str) -> dict[str, Any] | None:
    proc = git.run(["notes", f"--ref={NOTES_REF}", "show", sha], repo.root, check=False)
    if proc.returncode != 0:
        return None
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return None


def person_verdict(repo: Repo, path: Path, item_given: str | None) -> VerdictApplied:
    """`hall verdict --file`: a person's verdict, a human override (`human_override` is true in
    every outcome). Agents are refused."""
    from hallmark.core.repo import actor_is_person, current_actor

    actor = current_actor()
    if not actor_is_person(actor):
        raise HallError(
            "GATE_DENIED",
            f"hall verdict is for a person; {actor} may not record a verdict. "
            "The principal engineer's run records its own.",
            ["hall findings", "hall status"],
        )
    verdict, raw = _verdict.load_file(path)
    item_id = items.resolve(repo, item_given or raw.get("item"))
    view = items.fold_item(repo, item_id)
    if raw.get("sha") and not view.sha.startswith(str(raw["sha"])):
        raise HallError(
            "INVALID_VERDICT",
            f"The verdict is for {raw['sha']}, but {item_id} is frozen at {view.sha[:12]}.",
            [f"hall status {item_id}"],
        )
    from . import leases

    with leases.held(repo, item_id, "assayer", holder=f"you:{item_id}"):
        return apply_verdict(repo, item_id, verdict, actor="you", model="human override")
