"""Resuming the asking session after an answer: `claude -p --resume <session> "<answer>"`.

When a question asked with a session (`hall ask … --session`) is answered, or goes ahead with its
default after its wait, the daemon resumes that session headless, in the directory the session
ran in, streaming into a run file like every run (role "dev"), and records `resumed`
{qid, session, run} in the question's journal. Exactly once per answer: the daemon claims the
delivery (`resume_started`, under the journal's lock) before it runs, so two daemons never both
deliver, and a delivery that died with its daemon is not repeated. An answer it cannot deliver (no
known directory, a session Claude does not know, a failed run) is `resume_failed` and a "session
waiting" inbox entry keyed by the session, which the next prompt in that session clears.

Where the session ran, first found wins: a headless run of ours that produced the session; the
session's own transcript (its `cwd` lines), named by the session binding under
`<state_dir>/sessions/` or found in Claude's projects folder; the item's worktree (the question's
item, or the one the session is bound to).
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from pathlib import Path
from typing import Any

from hallmark.core import atomic, clock, git, journal
from hallmark.core.errors import HallError
from hallmark.core.ids import session_path, valid_session
from hallmark.core.questions import DELIVERY_EVENTS, answer_counts
from hallmark.core.repo import Repo
from hallmark.core.runner import command, spawn

from . import budget, leases

ACTOR = "dev"
CLAIMS = DELIVERY_EVENTS  # "answer_delivered": a blocking `hall ask` got the answer itself
TRANSCRIPT_LINES = 50  # the first lines of a transcript name its cwd
STALE_AFTER_S = 7 * 86400  # an answer older than this is history (e.g. from before this daemon), not owed


# -- what is owed ----------------------------------------------------------------------------


def _claims(repo: Repo) -> dict[str, dict[str, Any]]:
    """The latest delivery record of each question: qid -> event."""
    latest: dict[str, dict[str, Any]] = {}
    for event in repo.index.events(kinds=list(CLAIMS)):
        if event.get("qid"):
            latest[str(event["qid"])] = event
    return latest


def owed(repo: Repo) -> list[dict[str, Any]]:
    """Answered (or defaulted) questions with a session whose answer was never delivered."""
    claims = _claims(repo)
    now = clock.now()
    out = []
    for q in repo.index.questions():
        if not q.get("session") or not q.get("answered"):
            continue
        if (now - clock.parse_time(q["answered"])).total_seconds() > STALE_AFTER_S:
            continue
        last = claims.get(q["qid"])
        if (last is None or last.get("event") == "resume_released") and answer_counts(repo, q):
            out.append(q)  # an agent's unsigned `answered` resumes nothing (core/person_cap.py)
    return out


def message(q: dict[str, Any]) -> str:
    """What the session is resumed with: the answer, and which question it answers."""
    if q.get("answered_by") == "default":
        return (
            f'No answer to your question {q["qid"]} ("{q["question"]}") came within {q.get("wait") or "its wait"}: '
            f"go ahead with the default, {q['answer']}"
        )
    return f'The answer to your question {q["qid"]} ("{q["question"]}"): {q["answer"]}'


# -- where the session ran -------------------------------------------------------------------


def _binding(repo: Repo, session: str) -> dict[str, Any]:
    path = session_path(repo.state_dir, session)
    data = atomic.read_json(path, {}) if path else {}
    return data if isinstance(data, dict) else {}


def _transcript_cwd(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for _, line in zip(range(TRANSCRIPT_LINES), handle, strict=False):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("cwd"), str) and record["cwd"]:
                    return record["cwd"]
    except OSError:
        return None
    return None


def _claude_projects() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(base) / "projects"


def _our_run_cwd(repo: Repo, session: str) -> str | None:
    """A headless run of ours produced this session: the directory it ran in."""
    ended = [e for e in repo.index.events(kinds=["run_ended"]) if e.get("session") == session]
    if not ended:
        return None
    names = {e.get("run") for e in ended}
    started = [e for e in repo.index.events(kinds=["run_started"]) if e.get("run") in names and e.get("cwd")]
    return str(started[-1]["cwd"]) if started else None


def session_dir(repo: Repo, session: str, item_id: str | None) -> tuple[Path, str] | None:
    """(directory, how it was found), or None when nowhere is known."""
    binding = _binding(repo, session)
    candidates: list[tuple[str | None, str]] = [(_our_run_cwd(repo, session), "the run that started the session")]
    if isinstance(binding.get("cwd"), str):
        candidates.append((binding["cwd"], "the session binding"))
    if isinstance(binding.get("transcript"), str) and binding["transcript"]:
        candidates.append((_transcript_cwd(Path(binding["transcript"])), "the session's transcript"))
    candidates.extend(
        (_transcript_cwd(found), "the session's transcript")
        for found in sorted(_claude_projects().glob(f"*/{session}.jsonl"))[:3]
    )
    bound = binding.get("item") if isinstance(binding.get("item"), str) else None
    for candidate_item in dict.fromkeys(x for x in (item_id, bound) if x):
        view = repo.index.item(candidate_item)
        if view is not None and view.worktree:
            candidates.append((view.worktree, f"{candidate_item}'s worktree"))
    for path, how in candidates:
        if path and Path(path).is_dir():
            return Path(path), how
    return None


# -- delivering ------------------------------------------------------------------------------


def _journal_path(repo: Repo, item_id: str | None) -> Path:
    return repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal


def _claim(repo: Repo, q: dict[str, Any], cwd: Path | None) -> bool:
    """Take the delivery of this answer, once (under the question journal's lock)."""
    path = _journal_path(repo, q["item"])
    with journal.locked(path):
        latest = None
        for event in journal.read(path).events:
            if event.get("qid") == q["qid"] and event.get("event") in CLAIMS:
                latest = event.get("event")
        if latest not in (None, "resume_released"):
            return False
        journal.append_unlocked(
            path,
            journal.make_event(
                "resume_started",
                q["item"],
                "hall",
                {
                    "qid": q["qid"],
                    "session": q["session"],
                    "cwd": str(cwd) if cwd else None,
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                },
            ),
        )
    return True


def _record(repo: Repo, q: dict[str, Any], event: str, **fields: Any) -> None:
    journal.append(
        _journal_path(repo, q["item"]),
        event,
        item=q["item"],
        actor="hall",
        qid=q["qid"],
        session=q["session"],
        **fields,
    )


def undelivered(repo: Repo, q: dict[str, Any], reason: str, cwd: Path | None, run: str | None = None) -> None:
    """`resume_failed`, and a "session waiting" inbox entry the session's next prompt clears."""
    session, item = q["session"], q["item"]
    _record(repo, q, "resume_failed", run=run, reason=reason)
    where = f"cd {cwd} && " if cwd else ""
    text = (
        f"{item + ': ' if item else ''}the answer to {q['qid']} ({q['answer']!r}) could not be delivered to "
        f"session {session}: {reason}"
    )
    nxt = [f"{where}claude --resume {session}"] + ([f"hall trace {item}"] if run and item else [])
    journal.append(
        repo.paths.repo_journal,
        "inbox_entry",
        item=None,
        actor="hall",
        kind="session waiting",
        key=f"waiting:{session}",
        for_item=item,
        qid=q["qid"],
        text=text,
        next=nxt,
    )
    path = session_path(repo.state_dir, session)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with journal.locked(path):  # the hooks' lock on the same file: the next prompt clears the entry
            data = _binding(repo, session)
            data.update(waiting=True, updated=clock.stamp())
            atomic.write_json(path, data)


def recover_interrupted(repo: Repo) -> list[dict[str, Any]]:
    """A delivery whose daemon died mid-run is not repeated: it becomes an undelivered answer."""
    done = []
    questions = {q["qid"]: q for q in repo.index.questions()}
    for qid, event in _claims(repo).items():
        if event.get("event") != "resume_started" or qid not in questions:
            continue
        here = event.get("host") == socket.gethostname()
        if not _overdue(repo, event.get("t")) and (not here or _alive(event.get("pid"))):
            continue
        q = questions[qid]
        path = _journal_path(repo, q["item"])
        with journal.locked(path):
            last = [e for e in journal.read(path).events if e.get("qid") == qid and e.get("event") in CLAIMS]
            if not last or last[-1].get("event") != "resume_started":
                continue
        undelivered(
            repo,
            q,
            "the delivery was interrupted (the daemon stopped mid-run); the session may or may not have the answer",
            Path(event["cwd"]) if event.get("cwd") else None,
        )
        done.append({"item": q["item"], "qid": qid, "outcome": "resume_failed", "step": "resume"})
    return done


def _alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _overdue(repo: Repo, started: str | None) -> bool:
    """Older than the runner's timeout and a margin: no live delivery can be that old (pid reuse)."""
    if not started:
        return True
    age = (clock.now() - clock.parse_time(started)).total_seconds()
    return age > command.default_timeout(repo) + 300


def blocked(repo: Repo) -> budget.Block | None:
    return budget.check_plan(repo) or budget.check_daily(repo) or budget.check_room(repo, "dev")


def resume_answers(repo: Repo, holder: str | None = None) -> list[dict[str, Any]]:
    """Deliver every owed answer to its session; returns the steps taken (never raises for one answer).

    An item's answer is delivered under the item's lease (role "dev"), so a resumed session never
    works the worktree while a fixer does; a claimed item's answer waits for a later pass."""
    done = recover_interrupted(repo)
    holder = holder or leases.default_holder("resume")
    ttl = max(leases.DEFAULT_TTL_S, command.default_timeout(repo) + 300)
    for q in owed(repo):
        if blocked(repo):
            break
        if not q["item"]:
            done.append(deliver(repo, q))
            continue
        try:
            lease = leases.acquire(repo, q["item"], "dev", holder, ttl_s=ttl)
        except HallError as exc:
            if exc.code == "CLAIMED":
                continue
            raise
        try:
            done.append(deliver(repo, q))
        finally:
            leases.release(repo, q["item"], lease["holder"])
    return [d for d in done if d]


def dev_tools(repo: Repo, worktree: Path) -> list[str]:
    """What a resumed session may run without asking (`-p` cannot ask): the fixer's kind of list, for
    the item's worktree (git by `-C <worktree>` too: Claude Code asks about `cd … && git …`), plus
    `hall propose-ready` and `hall ask`. No bare Edit or Write: acceptEdits with the worktree as a
    working folder keeps every edit inside it."""
    wt = shlex.quote(str(worktree))
    git_verbs = ("add", "commit", "status", "diff", "log")
    return [
        "Read",
        "Glob",
        "Grep",
        *(f"Bash(git {verb}:*)" for verb in git_verbs),
        *(f"Bash(git -C {wt} {verb}:*)" for verb in git_verbs),
        "Bash(hall propose-ready:*)",
        "Bash(hall ask:*)",
        "Bash(hall status:*)",
        "Bash(hall findings:*)",
        *(f"Bash({c}:*)" for c in repo.config.gates),
        *(f"Bash({c}:*)" for c in repo.config.dev_commands),
    ]


def resume_spec(repo: Repo, q: dict[str, Any], session: str, cwd: Path) -> spawn.RunSpec:
    """The resumed run: in the session's own folder (where Claude Code keeps it), and, for an item's
    question, able to edit, commit and propose the item ready with the fixer's confinement."""
    spec = spawn.RunSpec(role="dev", prompt=message(q), cwd=cwd, item_id=q["item"], resume=session)
    view = repo.index.item(q["item"]) if q["item"] else None
    if view is None or not view.worktree or not Path(view.worktree).is_dir():
        return spec
    worktree = Path(view.worktree)
    spec.permission_mode = "acceptEdits"
    spec.allowed_tools = dev_tools(repo, worktree)
    spec.write_dirs = [worktree, repo.paths.common_dir]
    if os.path.realpath(worktree) != os.path.realpath(cwd):
        spec.add_dirs = [worktree]  # a session started in the main checkout works in the worktree
    return spec


def _denials(result: dict[str, Any] | None) -> list[str]:
    """The tools the run's result line says were denied (Claude Code's `permission_denials`)."""
    found = (result or {}).get("permission_denials") or []
    names = []
    for entry in found if isinstance(found, list) else []:
        if isinstance(entry, dict):
            tool = str(entry.get("tool_name") or "a tool")
            command = (
                (entry.get("tool_input") or {}).get("command") if isinstance(entry.get("tool_input"), dict) else None
            )
            names.append(f"{tool}({command})" if command else tool)
    return names


def deliver(repo: Repo, q: dict[str, Any]) -> dict[str, Any]:
    session = str(q["session"])
    found = session_dir(repo, session, q["item"]) if valid_session(session) else None
    cwd = found[0] if found else None
    if not _claim(repo, q, cwd):
        return {}
    step = {"item": q["item"], "qid": q["qid"], "session": session, "step": "resume"}
    if not valid_session(session):
        undelivered(repo, q, "the session id is not one Claude Code writes", None)
        return dict(step, outcome="resume_failed")
    if cwd is None:
        undelivered(repo, q, "no directory is known for the session (no worktree, binding or transcript)", None)
        return dict(step, outcome="resume_failed")
    spec = resume_spec(repo, q, session, cwd)
    worktree = spec.add_dirs[0] if spec.add_dirs else (cwd if spec.allowed_tools else None)
    before = git.try_head_sha(worktree) if worktree else None
    try:
        result = spawn.run(repo, spec)
    except Exception as exc:  # noqa: BLE001 - e.g. no `claude` on PATH: this answer waits for a person
        reason = getattr(exc, "message", None) or repr(exc)
        undelivered(repo, q, reason, cwd)
        return dict(step, outcome="resume_failed", error=reason)
    denied = _denials(result.result)
    if result.ok and denied and (worktree is None or git.try_head_sha(worktree) == before):
        reason = f"the resumed session was denied {', '.join(denied[:5])} and committed nothing"
        undelivered(repo, q, reason, cwd, run=result.name)
        return dict(step, outcome="resume_failed", run=result.name, denied=denied)
    if result.ok:
        _record(repo, q, "resumed", run=result.name, cwd=str(cwd), found_by=found[1] if found else None)
        return dict(step, outcome="resumed", run=result.name)
    if result.rate_limited:  # nothing reached the session: try again once the limit resets
        budget.pause_for_plan(repo, result.resets_at)
        _record(repo, q, "resume_released", run=result.name, reason=result.failure)
        return dict(step, outcome="resume_paused", run=result.name)
    undelivered(repo, q, result.failure or "the run failed", cwd, run=result.name)
    return dict(step, outcome="resume_failed", run=result.name)
