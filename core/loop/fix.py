"""The Repair Shop: the fixer's headless run in the item's worktree, and `hall fixed`.

The fixer reads the open findings and the failing checks, commits, and records what each commit
fixes with `hall fixed <ids> [--dispute <id> --reason …]`, which resubmits the item to checks. It can
dispute but never approve. If its run commits without calling `hall fixed`, the loop resubmits the
new HEAD itself; a run that neither commits nor disputes is a failed run.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hallmark.core import git, items, runs, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.runner import lifecycle, spawn
from hallmark.core.runner.command import default_timeout, launch_environment

from . import bounds
from . import findings as _findings
from .results import FixRecorded

ACTOR = "fixer"


def build_prompt(repo: Repo, view: states.ItemView) -> str:
    found = [f for f in _findings.unresolved(repo, view.id) if f["status"] == "open"]
    failing = _findings.failing_checks(repo, view.id)
    parts = [
        f"# Fix {view.id} round {view.round}: {view.title}",
        "",
        f"You are Hallmark's fixer, working in {view.worktree} on branch {view.branch}.",
        "Address the findings and the failing checks below. Commit your changes, then record what the",
        "commits fix with `hall fixed <finding ids>`; dispute a finding you believe is wrong with",
        '`hall fixed --dispute <id> --reason "…"`. You can never approve, push or ship.',
        "Stage the files of the fix by name (`git add <file> …`), never `git add -A`: build and test",
        "outputs and the sandbox's placeholder files are not part of a fix. The checks run on the commit alone.",
        "",
    ]
    if failing:
        parts += ["## Failing checks (condensed; the full log is named in each footer)", ""]
        for check in failing:
            parts += [
                f"### `{check.command}` exited {check.exit_code}",
                "",
                "```",
                str(check.output or "").rstrip(),
                "```",
                "",
            ]
    if found:
        parts += ["## Open findings", ""]
        for f in found:
            where = f"{f['file']}:{f['line']}" if f.get("line") is not None else str(f.get("file"))
            parts.append(
                f"- {f['id']} [{f['severity']}, {f['lens']}] {where}: {f.get('title') or ''} {f['scenario']}"
                + (f" Suggestion: {f['suggestion']}" if f.get("suggestion") else "")
            )
        parts.append("")
    if not found and not failing:
        parts += ["Nothing is recorded as open; check `hall findings` and resubmit with `hall fixed`.", ""]
    return "\n".join(parts)


def run_fixer(repo: Repo, item_id: str) -> dict[str, Any]:
    """One fixer pass on an item in fixing (not held).

    Each run ends with one `run_ended`: a run that went well but made no commit, disputed
    nothing, left edits uncommitted or committed nothing new is a failed run of the item, so
    `max_run_failures` of them hold it (bounds.py). The round's run ceiling is checked first.
    """
    view = items.fold_item(repo, item_id)
    if view.state != states.FIXING:
        raise items.wrong_state(view, "fix_submitted")
    if view.hold:
        raise HallError(
            "WRONG_STATE",
            f"{item_id} is held ({view.hold}); a person releases it.",
            [f'hall retry {item_id} --reason "…"'],
        )
    worktree = Path(view.worktree)
    if not worktree.is_dir():
        raise HallError("WRONG_STATE", f"{item_id} has no worktree at {view.worktree}.", [f"hall status {item_id}"])
    ceiling = bounds.ceiling_reached(repo, item_id)
    if ceiling:
        return ceiling
    from hallmark.core import worktree_setup

    try:  # the fixer runs the project's tests too: its worktree needs the project's set-up
        worktree_setup.ensure(repo, item_id, worktree, default_timeout(repo))
    except worktree_setup.SetupFailed as failed:
        return worktree_setup.hold(repo, item_id, failed, actor=ACTOR)
    before = git.head_sha(worktree)

    def effect() -> str | None:
        return judge_effect(repo, item_id, before)

    engine = (repo.config.fixer or "claude -p").strip()
    if engine in ("claude -p", "claude"):
        spec = spawn.RunSpec(
            role="fix",
            prompt=build_prompt(repo, view),
            cwd=worktree,
            item_id=item_id,
            permission_mode="acceptEdits",
            write_dirs=[repo.paths.common_dir],
            allowed_tools=[
                "Read",
                "Edit",
                "Write",
                "Glob",
                "Grep",
                "Bash(git add:*)",
                "Bash(git commit:*)",
                "Bash(git status:*)",
                "Bash(git diff:*)",
                "Bash(git log:*)",
                "Bash(hall findings:*)",
                "Bash(hall fixed:*)",
                *(f"Bash({c}:*)" for c in repo.config.gates),
                *(f"Bash({c}:*)" for c in repo.config.dev_commands),
            ],
            extra_env=worktree_env(repo, worktree),
            judge_effect=effect,
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
        run_name: str | None = result.name
    else:
        failure, run_name = _external(repo, view, engine, effect)
        if failure:
            return {"item": item_id, "outcome": "run_failed", "failure": failure, "run": run_name}
    return settle(repo, item_id, before, run_name)


def worktree_env(repo: Repo, worktree: Path) -> dict[str, str]:
    """The environment that makes the worktree's own code the code a run imports (see
    core/worktree_env.py); empty when nothing needs changing."""
    try:
        from hallmark.core.worktree_env import gate_environment

        return gate_environment(repo, worktree).extra
    except Exception:  # noqa: BLE001 - advice for the run; never a reason not to run
        return {}


def _external(
    repo: Repo, view: states.ItemView, engine: str, effect: Callable[[], str | None]
) -> tuple[str | None, str]:
    """A non-claude fixer engine (`fixer = "…"`): run through the shell in the worktree, unconfined,
    under the guard, with the runner's timeout. Its output goes to `runs/<stamp>-fix-engine.log`.
    Returns (failure or None, the log's name)."""
    prompt_path = repo.paths.item_dir(view.id) / "fix-prompt.md"
    prompt_path.write_text(build_prompt(repo, view), encoding="utf-8")
    values = {"id": view.id, "branch": view.branch, "prompt_file": str(prompt_path), "worktree": view.worktree}
    command = engine
    for key, value in values.items():
        command = command.replace("{" + key + "}", shlex.quote(value))
    env = launch_environment(repo, view.id, ACTOR)
    env.update(worktree_env(repo, Path(view.worktree)))
    folder = runs.runs_dir(repo.paths, view.id)
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / f"{runs.stamp_now()}-fix-engine.log"
    timeout = default_timeout(repo)
    items.record(
        repo,
        view.id,
        "run_started",
        actor=ACTOR,
        run=None,
        role="fix",
        engine=engine,
        log=str(log_path),
        cwd=view.worktree,
    )
    started = time.monotonic()
    with open(log_path, "wb") as out:
        code, timed_out = lifecycle.run_guarded(
            ["sh", "-c", command], cwd=view.worktree, env=env, timeout_s=timeout, stdout=out, stderr=subprocess.STDOUT
        )
    if timed_out:
        failure: str | None = f"the fixer engine timed out after {timeout:g} s"
    elif code != 0:
        failure = f"the fixer engine exited {code}"
    else:
        failure = effect()
    items.record(
        repo,
        view.id,
        "run_ended",
        actor=ACTOR,
        run=None,
        role="fix",
        exit_code=code,
        duration_ms=int((time.monotonic() - started) * 1000),
        failed=failure,
        engine=engine,
        log=str(log_path),
        **({"judged": True} if failure and code == 0 and not timed_out else {}),
    )
    return failure, log_path.name


def tree_of(cwd: Path | str, rev: str) -> str:
    return git.run(["rev-parse", "--verify", "-q", f"{rev}^{{tree}}"], cwd, check=False).stdout.strip()


def judge_effect(repo: Repo, item_id: str, before: str) -> str | None:
    """What a fixer run that ended well failed to do, or None: it resubmitted itself (`hall fixed`),
    or it left a new commit that changes the tree. A new commit is judged on the commit: files the
    run left uncommitted beside it (a build the fixer ran itself) are named when the loop resubmits,
    and the checks never see them (they run on the commit, in a clean checkout)."""
    view = items.fold_item(repo, item_id)
    if view.state != states.FIXING:
        return None
    worktree = Path(view.worktree)
    head = git.head_sha(worktree)
    if head != before and tree_of(worktree, head) != tree_of(worktree, before):
        return None
    dirty = item_dirt(repo, view)
    if dirty:
        return f"the fixer left uncommitted changes ({', '.join(d[3:] for d in dirty[:3])})"
    if head == before:
        return "the fixer made no commit and disputed nothing"
    return "the fixer's commit changes nothing (its tree is the one it started from)"


def item_dirt(repo: Repo, view: states.ItemView) -> list[str]:
    """The worktree's uncommitted changes that are the work's, not Hallmark's own copied files."""
    from hallmark.core.worktree_copy import person_dirt

    return person_dirt(repo, view)


def settle(repo: Repo, item_id: str, before: str, run_name: str | None) -> dict[str, Any]:
    """After a fixer run judged good: it resubmitted itself, or we resubmit its commits (naming
    what it left uncommitted: not part of the commit, so never checked, reviewed or shipped)."""
    view = items.fold_item(repo, item_id)
    if view.state != states.FIXING:
        return {"item": item_id, "outcome": "resubmitted", "state": view.state, "sha": view.sha, "run": run_name}
    head = git.head_sha(Path(view.worktree))
    left = [line[3:] for line in item_dirt(repo, view)]
    extra: dict[str, Any] = {"left_uncommitted": left[:20]} if left else {}
    view = items.transition(
        repo, item_id, "fix_submitted", actor=ACTOR, sha=head, round=view.round + 1, by="loop", claims=[], **extra
    )
    return {"item": item_id, "outcome": "resubmitted", "state": view.state, "sha": head, "run": run_name, **extra}


def mark_fixed(
    repo: Repo,
    item_id: str,
    finding_ids: list[str],
    disputes: list[tuple[str, str]],
    *,
    submit: bool = True,
    actor: str | None = None,
) -> FixRecorded:
    """`hall fixed`: record which findings HEAD fixes and which are disputed, then resubmit."""
    from hallmark.core.repo import current_actor

    who = actor or current_actor()
    view = items.fold_item(repo, item_id)
    if view.state != states.FIXING:
        raise items.wrong_state(view, "fix_submitted")
    if view.hold:
        raise HallError(
            "WRONG_STATE",
            f"{item_id} is held ({view.hold}: {view.hold_reason}); a person releases it.",
            [f'hall retry {item_id} --reason "…"'],
        )
    known = {f["id"]: f for f in _findings.unresolved(repo, item_id)}
    wanted = [fid.strip().upper() for fid in finding_ids if fid.strip()]
    wanted = [fid if fid.startswith("F-") else f"F-{fid}" for fid in wanted]
    disputes = [((fid if fid.upper().startswith("F-") else f"F-{fid}").upper(), reason) for fid, reason in disputes]
    missing = [fid for fid in wanted + [d[0] for d in disputes] if fid not in known]
    if missing:
        raise HallError(
            "USAGE", f"{', '.join(missing)}: not an unresolved finding of {item_id}.", [f"hall findings {item_id}"]
        )
    for fid, reason in disputes:
        if not reason.strip():
            raise HallError("USAGE", f"--dispute {fid} needs --reason.", [f'hall fixed --dispute {fid} --reason "…"'])
    if not wanted and not disputes and not submit:
        raise HallError("USAGE", "Name the findings this commit fixes, or dispute one.", ["hall findings"])
    worktree = Path(view.worktree)
    dirty = item_dirt(repo, view)
    if dirty:
        raise HallError(
            "DIRTY_WORKTREE",
            f"{item_id}'s worktree has uncommitted changes ({', '.join(d[3:] for d in dirty[:5])}); commit the "
            "ones that are part of the fix first.",
            dirty_steps(worktree, dirty),
        )
    head = git.head_sha(worktree)
    if submit and head == view.sha and not disputes:
        raise HallError(
            "WRONG_STATE",
            f"HEAD is still {head[:12]}, the commit that was reviewed; commit a fix or dispute a finding first.",
            [f"hall findings {item_id}"],
        )
    if submit and not disputes and tree_of(worktree, head) == tree_of(worktree, view.sha):
        raise HallError(
            "WRONG_STATE",
            f"HEAD {head[:12]} changes nothing: its tree is the one that was reviewed "
            f"({view.sha[:12]}); commit a real fix or dispute a finding.",
            [f"hall findings {item_id}"],
        )
    if wanted:
        items.record(repo, item_id, "fixed", actor=who, findings=wanted, sha=head)
    for fid, reason in disputes:
        items.record(repo, item_id, "disputed", actor=who, finding=fid, reason=reason, sha=head)
    disputed = [d[0] for d in disputes]
    if submit:
        view = items.transition(
            repo,
            item_id,
            "fix_submitted",
            actor=who,
            sha=head,
            round=view.round + 1,
            claims=wanted,
            disputes=disputed,
        )
    return FixRecorded(item=item_id, fixed=wanted, disputed=disputed, sha=head, state=view.state, submitted=submit)


def dirty_steps(worktree: Path, dirty: list[str]) -> list[str]:
    """What to do about uncommitted files before `hall fixed`: commit the fix's own files; a build's
    or a test run's outputs are deleted, never committed (Hallmark's checks run on the commit alone)."""
    where = shlex.quote(str(worktree))
    steps = [f"git -C {where} status"]
    untracked = [line[3:] for line in dirty if line.startswith("??")]
    if len(untracked) < len(dirty):
        steps.append(f'git -C {where} commit -am "…" (the edits that are part of the fix)')
    if untracked:
        names = " ".join(shlex.quote(p) for p in untracked[:5])
        steps.append(
            f"untracked: {', '.join(untracked[:5])}: git add and commit the ones the fix needs; delete what a build "
            f"or a test run made (git -C {where} clean -n lists them; rm {names}); never commit build outputs"
        )
    return steps


def findings_report(repo: Repo, item_id: str) -> _findings.FindingsReport:
    """`hall findings`: open findings and failing checks."""
    view = items.fold_item(repo, item_id)
    found = _findings.list_findings(repo, item_id)  # every round's, each with its status
    failing = _findings.failing_checks(repo, item_id)
    return _findings.FindingsReport(
        item=item_id,
        state=view.state,
        round=view.round,
        findings=tuple(found),
        open=sum(1 for f in found if f.status == "open"),
        failing_checks=tuple(failing),
        view=view,
    )


def findings_next(report: _findings.FindingsReport) -> list[str]:
    """What to run after `hall findings`: fix or dispute the open ones while the item is being fixed."""
    view = report.view
    nxt = []
    if view.state == states.FIXING and not view.hold:
        open_ids = [f.id for f in report.findings if f.status == "open"]
        nxt = [f"hall fixed {' '.join(open_ids[:3]) or '<ids>'}", 'hall fixed --dispute <id> --reason "…"']
    nxt.append(f"hall status {report.item}")
    return nxt
