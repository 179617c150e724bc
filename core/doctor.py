"""`hall doctor`: every check names its fix."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import journal
from .doctor_check import check as _check
from .errors import HallError
from .paths import RepoPaths, discover
from .setup_results import Check, DoctorReport, LostWorktree, Reindexed

if TYPE_CHECKING:
    from .repo import Repo


def journal_health(state_dir: Path) -> list[dict[str, Any]]:
    """Every bad line in every journal, with file and line number."""
    bad: list[dict[str, Any]] = []
    files = [state_dir / "events.jsonl", *sorted((state_dir / "items").glob("*/events.jsonl"))]
    for path in files:
        if path.exists():
            bad.extend(b.to_dict() for b in journal.read(path).bad)
    return bad


def _journal_check(bad: list[dict[str, Any]]) -> Check:
    """Bad lines are skipped on read; a journal refused whole (line 0: a directory, a FIFO, too big)
    damages its own item only, and its fix is to move it aside."""
    detail = "all lines parse" if not bad else "; ".join(_where(b) + f": {b['reason']}" for b in bad[:20])
    whole = [b for b in bad if b["line"] == 0]
    fix = (
        f"move {whole[0]['path']} aside and restore it from a backup; every other item keeps working"
        if whole
        else "the bad lines are skipped on read; nothing was lost after them. Leave them or move the journal aside"
    )
    return _check("journal", not bad, detail, fix, bad_lines=bad)


def _where(bad: dict[str, Any]) -> str:
    return f"{bad['path']}:{bad['line']}" if bad["line"] else str(bad["path"])


def hooks_status(root: Path) -> dict[str, Any]:
    """Without our plugin: is `hall-hook` wired by hand into any settings or plugin hooks file?"""
    from .plugin_install import claude_config_dir

    config = claude_config_dir()
    candidates = [
        config / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
    ]
    plugins = config / "plugins"
    if plugins.is_dir():
        candidates += sorted(plugins.glob("**/hooks/hooks.json"))[:200]
    for path in candidates:
        try:
            if "hall-hook" in path.read_text(encoding="utf-8", errors="replace"):
                return {"ok": True, "detail": f"hall-hook is wired in {path}"}
        except OSError:
            continue
    return {"ok": False, "detail": f"no Claude Code settings or plugin under {config} runs hall-hook"}


def _index_check(path: Path) -> Check:
    """The index is derived: missing is fine (the next read builds it); corrupt needs a reindex."""
    if not path.exists():
        return _check("index", True, "not built yet; the next read builds it")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            verdict = db.execute("PRAGMA quick_check").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        return _check("index", False, f"{path}: {exc}", "hall reindex")
    ok = bool(verdict) and verdict[0] == "ok"
    return _check(
        "index", ok, "readable" if ok else f"{path}: {verdict[0] if verdict else 'no answer'}", "hall reindex"
    )


def _items_check(paths: RepoPaths) -> Check:
    """Every item folder has a journal with its creation event (a deleted or emptied one is damage)."""
    from .damaged import damaged_items

    damaged = damaged_items(paths)
    if not damaged:
        return _check("items", True, "every item has a journal with its creation event")
    shown = "; ".join(
        f"{d['item']}{' (' + d['title'] + ')' if d['title'] else ''}: {d['problem']}" for d in damaged[:10]
    )
    return _check("items", False, f"damaged journals: {shown}", damaged[0]["fix"], damaged=damaged)


def _library_check(paths: RepoPaths) -> Check:
    """The memory store and the files it promoted into agree; Hallmark's own crash leftovers are
    repaired here (a decision killed half-way, an orphan block it wrote, a temp file)."""
    from .errors import HallError as _Error
    from .memory import reconcile

    try:
        repaired = reconcile.repair(paths)
        drift = reconcile.drift(paths, actor="hall")
    except _Error as exc:
        return _check("library", False, exc.message, (exc.next or ["hall library reconcile"])[0])
    except OSError as exc:
        return _check("library", False, f"the memory store could not be read: {exc}", "hall library reconcile")
    did = [f"settled an interrupted '{s.get('op')}' of {s['id']}" for s in repaired["settled"]]
    did += [f"removed {r['id']}'s block from {r['path']} ({r['status']})" for r in repaired["removed"]]
    did += [f"removed temp file {t}" for t in repaired["temp_removed"]]
    left = [f"{o['id']} in {o['path']}: {o['state']}" for o in repaired["orphans"]]
    left += [f"{d.id} {d.state} by hand in {d.path}" for d in drift]
    detail = "; ".join(did + left) or "store and promoted files agree"
    return _check(
        "library",
        not left,
        ("repaired: " if did and not left else "") + detail,
        "hall library reconcile",
        repaired=did,
        mismatches=left,
    )


def _worktrees_check(paths: RepoPaths) -> Check:
    """Every unfinished item still has its worktree (someone may have deleted the folder by hand)."""
    from . import states

    missing: list[LostWorktree] = []
    for journal_path in sorted(paths.items_dir.glob("*/events.jsonl")):
        view = states.fold(journal_path.parent.name, journal.read(journal_path).events)
        if view.created and not view.terminal and view.worktree and not Path(view.worktree).is_dir():
            missing.append(LostWorktree(item=view.id, worktree=view.worktree))
    if not missing:
        return _check("worktrees", True, "every unfinished item has its worktree")
    shown = ", ".join(f"{m.item} ({m.worktree})" for m in missing[:10])
    first = missing[0].item
    return _check(
        "worktrees",
        False,
        f"missing worktrees: {shown}",
        f'git worktree prune, then hall drop {first} --reason "worktree lost" (or recreate it with git worktree add)',
        missing=tuple(missing),
    )


def _git_checks(paths: RepoPaths) -> list[Check]:
    """What a killed `hall new` or a renamed base leaves in git (core/doctor_leftovers.py); skipped
    while the config is invalid (its own check says so)."""
    from .doctor_leftovers import bases_check, leftovers_check
    from .repo import Repo

    repo = Repo(paths, paths.main_checkout)
    try:
        repo.config  # noqa: B018 - loads it, or raises what the config check reports
    except HallError:
        return []
    return [leftovers_check(repo), bases_check(repo)]


def ship_remotes(command: str) -> list[str]:
    """The remotes a ship command pushes to: the first plain word after each `git … push`."""
    import shlex

    try:
        words = shlex.split(command.replace("&&", " ; ").replace("||", " ; "))
    except ValueError:
        return []
    found: list[str] = []
    for index, word in enumerate(words):
        if word != "push" or "git" not in words[max(0, index - 3) : index]:
            continue
        for arg in words[index + 1 :]:
            if arg in (";", "|") or arg.startswith("{"):
                break
            if not arg.startswith("-"):
                found.append(arg)
                break
    return found


def _ship_check(paths: RepoPaths) -> Check | None:
    """The ship command pushes to a remote this repo has (else every hallmarked item is held at ship)."""
    from . import git
    from .config import load

    try:
        command = load(paths.main_checkout).ship
    except HallError:
        return None  # the config check already names the problem
    wanted = ship_remotes(command)
    if not wanted:
        return None
    have = set(git.out(["remote"], paths.main_checkout).split())
    missing = [name for name in wanted if name not in have]
    if not missing:
        return _check("ship", True, f"pushes to {', '.join(wanted)}")
    return _check(
        "ship",
        False,
        f"the ship command pushes to {', '.join(missing)}, which this repo does not have; "
        "items get their hallmark but are held at shipping",
        f"git remote add {missing[0]} <url>, or set ship in .hallmark.toml",
        optional=True,
    )


def _pre_push_check(paths: RepoPaths) -> Check:
    """Git's own wall: the pre-push hook in every hooks dir the checkouts use (core/githooks.py)."""
    from . import githooks

    state = githooks.status(paths)
    return _check("pre-push", state["ok"], state["detail"], "hall setup git", dirs=state["dirs"])


def _sandbox_check() -> Check:
    """The sandbox wall for interactive sessions: can it run here, and is Hallmark's profile installed?

    (`sandbox`, from doctor_claude, is the headless runs' side: does Claude Code's sandbox start.)"""
    from . import sandbox_profile

    state = sandbox_profile.status()
    available = state["available"]
    detail = available["detail"] + (
        "; Hallmark's profile is in your Claude Code settings"
        if state["installed"]
        else "; Hallmark's profile is not installed"
    )
    fix = available.get("fix") if not available["ok"] else "hall setup claude --sandbox"
    return _check(
        "sandbox profile",
        available["ok"] and state["installed"],
        detail,
        fix,
        optional=True,
        available=available["ok"],
        installed=state["installed"],
    )


def run(start: Path) -> DoctorReport:
    checks: list[Check] = []
    git_path = shutil.which("git")
    checks.append(_check("git", git_path is not None, git_path or "git not found", "install git"))
    paths = discover(start, required=False)
    if paths is None:
        checks.append(_check("repo", False, f"{start} is not in a git repository", "cd into your repository"))
        return _finish(checks)
    checks.append(_check("repo", True, str(paths.main_checkout)))
    checks.append(_check("state", paths.initialized, str(paths.state_dir), "hall init"))
    try:
        from .config import load

        load(paths.main_checkout)
        checks.append(_check("config", True, "valid"))
    except HallError as exc:
        named = [step for step in exc.next if step != "hall doctor"]
        checks.append(
            _check("config", False, exc.message, named[0] if named else "fix the key it names in .hallmark.toml")
        )
    if paths.initialized:
        bad = journal_health(paths.state_dir)
        checks.append(_journal_check(bad))
        checks.append(_items_check(paths))
        from .person_report import doctor_check as decisions_check

        checks.append(decisions_check(paths))  # unsigned person decisions: an agent's attempts
        checks.append(_index_check(paths.state_dir / "index.sqlite"))
        checks.append(_library_check(paths))
        checks.append(_worktrees_check(paths))
        checks.extend(_git_checks(paths))
        ship = _ship_check(paths)
        if ship is not None:
            checks.append(ship)
        checks.append(_pre_push_check(paths))
        from .stamp_key import doctor_check as signing_check

        checks.append(signing_check(paths))
        from .doctor_loop import loop_checks

        checks.extend(loop_checks(paths.main_checkout))
        from .notify.probe import doctor_check as notify_check

        checks.append(notify_check(paths.state_dir, paths.main_checkout))
    from .plugin_install import installed_status

    status = installed_status()
    if not status["ok"]:  # wired by hand (settings.json hooks) counts too; the plugin's problem is kept
        manual = hooks_status(paths.main_checkout)
        if manual["ok"]:
            status = {"ok": True, "detail": f"{manual['detail']} (not through the plugin: {status['detail']})"}
    checks.append(_check("hooks", status["ok"], status["detail"], "hall setup claude"))
    checks.append(_bytecode_check())
    from .doctor_claude import checks as claude_checks

    checks += claude_checks(_sandbox_mode(paths))
    checks.append(_sandbox_check())
    from .delivery.gh import MIN_GH, doctor_check

    gh_ok, gh_detail = doctor_check()
    checks.append(_check("gh", gh_ok, gh_detail, f"install gh {MIN_GH} or newer", optional=True))
    return _finish(checks)


def _bytecode_check() -> Check:
    """The package's bytecode (core/bytecode.py): without it, hooks under PYTHONDONTWRITEBYTECODE compile it every call."""
    from .bytecode import doctor_row

    ok, detail = doctor_row()
    return _check("bytecode", ok, detail, "hall setup claude (it compiles the package)", optional=True)


def _sandbox_mode(paths: RepoPaths) -> str:
    try:
        from .config import load

        return load(paths.main_checkout).runner.sandbox
    except HallError:
        return "auto"


def _finish(checks: list[Check]) -> DoctorReport:
    return DoctorReport(ok=not any(c.failed for c in checks), checks=tuple(checks))


def reindex(repo: Repo) -> Reindexed:
    """`hall reindex` (the fix the index check names): rebuild the derived index from the journals."""
    events = repo.index.rebuild()
    return Reindexed(events=events, items=len(repo.index.items()))
