"""Install, check and repair Hallmark's git `pre-push` hook (git's own wall against unhallmarked pushes).

`hall init` installs it, `hall doctor` checks it and `hall setup git` repairs it (or removes it with
`--remove`). It goes where git looks for hooks from each checkout (`git rev-parse --git-path
hooks`: `core.hooksPath` honoured, husky's `.husky/_` too), so every worktree is covered. A hook
that was already there is kept and chained: it is renamed `pre-push.hallmark-chained` and runs
after Hallmark lets a push go (hooks/git_pre_push.py). The hook is a tiny `sh` script that runs
`hall-hook git-pre-push` by its absolute path.

A hooks directory inside a checkout (a relative `core.hooksPath`) gets its files excluded from git
(`info/exclude`) so items' worktrees stay clean; a `pre-push` that the repository tracks is never
overwritten: doctor names it and says what to add by hand.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from . import atomic, clock
from .paths import RepoPaths
from .setup_results import GitHooksInstalled, GitHooksRemoved, HookDir, RestoredHook

HOOK = "pre-push"
MARK = "# hallmark-pre-push v1"
CHAINED = HOOK + ".hallmark-chained"


def render(binary: str) -> str:
    quoted = "'" + binary.replace("'", "'\\''") + "'"
    return (
        "#!/bin/sh\n"
        f"{MARK}\n"
        "# Written by `hall init` / `hall setup git`. Refuses to push any commit without a valid hallmark,\n"
        f"# whoever pushes; a hook that was here before runs after it ({CHAINED}).\n"
        "# `git push --no-verify` skips it (Hallmark's hook gate denies that flag to agents).\n"
        f"HALL_HOOK={quoted}\n"
        'if [ ! -x "$HALL_HOOK" ]; then\n'
        '  echo "Hallmark\'s pre-push hook cannot run $HALL_HOOK; it refuses the push. Repair it with: hall setup git" >&2\n'
        "  exit 1\n"
        "fi\n"
        'exec "$HALL_HOOK" git-pre-push "$0" "$@"\n'
    )


def _git_out(cwd: Path, *args: str) -> str | None:
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}
    try:
        proc = subprocess.run(
            ["git", *args], cwd=str(cwd), capture_output=True, text=True, check=False, env=env, timeout=30
        )
    except (OSError, ValueError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def checkouts(paths: RepoPaths) -> list[Path]:
    """The main checkout and every worktree git knows (their real paths)."""
    found = [Path(os.path.realpath(paths.main_checkout))]
    listing = _git_out(paths.main_checkout, "worktree", "list", "--porcelain") or ""
    for line in listing.splitlines():
        if line.startswith("worktree "):
            path = Path(os.path.realpath(line[len("worktree ") :]))
            if path not in found and path.is_dir():
                found.append(path)
    return found


def hooks_dir(checkout: Path) -> Path | None:
    out = _git_out(checkout, "rev-parse", "--git-path", "hooks")
    if not out:
        return None
    return Path(os.path.normpath(os.path.join(checkout, out)))


def hook_dirs(paths: RepoPaths) -> dict[Path, Path]:
    """{hooks dir: the first checkout that uses it}."""
    dirs: dict[Path, Path] = {}
    for checkout in checkouts(paths):
        folder = hooks_dir(checkout)
        if folder is not None and folder not in dirs:
            dirs[folder] = checkout
    return dirs


def binary() -> str:
    from .plugin_install import hook_binary

    return hook_binary()


def _is_ours(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return MARK in handle.read(4096)
    except OSError:
        return False


def _tracked(checkout: Path, path: Path) -> bool:
    try:
        rel = path.relative_to(checkout)
    except ValueError:
        return False
    return _git_out(checkout, "ls-files", "--error-unmatch", "--", str(rel)) is not None


def _inside(checkout: Path, path: Path) -> str | None:
    try:
        return str(path.relative_to(checkout)).replace(os.sep, "/")
    except ValueError:
        return None


def _exclude(paths: RepoPaths, rel_dir: str) -> None:
    """Keep the hook files out of `git status` in every checkout (info/exclude is shared)."""
    exclude = paths.common_dir / "info" / "exclude"
    lines = [f"/{rel_dir}/{HOOK}", f"/{rel_dir}/{CHAINED}"]
    try:
        text = exclude.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    missing = [line for line in lines if line not in text.splitlines()]
    if missing:
        sep = "" if not text or text.endswith("\n") else "\n"
        atomic.write_text(exclude, text + sep + "# Hallmark's pre-push hook\n" + "\n".join(missing) + "\n")


def _state(folder: Path, checkout: Path, want: str) -> dict[str, Any]:
    hook = folder / HOOK
    entry: dict[str, Any] = {"dir": str(folder), "checkout": str(checkout), "hook": str(hook)}
    rel = _inside(checkout, folder)
    if rel is not None and hook.exists() and not _is_ours(hook) and _tracked(checkout, hook):
        entry.update(state="tracked", ok=False)
        return entry
    if not hook.exists():
        entry.update(state="missing", ok=False)
    elif not _is_ours(hook):
        entry.update(state="foreign", ok=False)  # a hook of the user's (or husky's) replaced ours
    elif hook.read_text(encoding="utf-8", errors="replace") != want:
        entry.update(state="stale", ok=False)  # ours, from another install of hall-hook
    elif not os.access(hook, os.X_OK):
        entry.update(state="not_executable", ok=False)
    else:
        entry.update(state="installed", ok=True)
    chained = folder / CHAINED
    if chained.exists():
        entry["chained"] = str(chained)
    return entry


def status(paths: RepoPaths) -> dict[str, Any]:
    """Is the pre-push hook in place for every checkout? (for `hall doctor`)"""
    try:
        want = render(binary())
    except Exception as exc:  # noqa: BLE001 - no hall-hook: nothing can be installed
        return {"ok": False, "detail": f"hall-hook cannot be found ({exc})", "dirs": ()}
    entries = [HookDir(**_state(folder, checkout, want)) for folder, checkout in hook_dirs(paths).items()]
    bad = [e for e in entries if not e.ok]
    if not entries:
        return {"ok": False, "detail": "git did not say where its hooks are", "dirs": ()}
    if not bad:
        where = ", ".join(e.dir for e in entries)
        return {"ok": True, "detail": f"installed in {where}", "dirs": tuple(entries)}
    words = {
        "missing": "missing",
        "foreign": "replaced by another hook",
        "stale": "from another install of hall",
        "not_executable": "not executable",
        "tracked": "the repository tracks its own pre-push there",
    }
    detail = "; ".join(f"{e.dir}: {words[e.state]}" for e in bad)
    return {"ok": False, "detail": detail, "dirs": tuple(entries)}


def install(paths: RepoPaths, *, dry_run: bool = False) -> GitHooksInstalled:
    """Put the hook in every hooks dir, chaining what was there; idempotent."""
    want = render(binary())
    done: list[dict[str, Any]] = []
    for folder, checkout in hook_dirs(paths).items():
        entry = _state(folder, checkout, want)
        action = {
            "installed": "unchanged",
            "missing": "install",
            "foreign": "chain and install",
            "stale": "update",
            "not_executable": "update",
            "tracked": "skipped",
        }[entry["state"]]
        entry["action"] = action
        done.append(entry)
        if dry_run or action in ("unchanged", "skipped"):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        hook = folder / HOOK
        if entry["state"] == "foreign":
            _chain(hook)
        rel = _inside(checkout, folder)
        if rel is not None:
            _exclude(paths, rel)
        atomic.write_text(hook, want)
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        entry.update(state="installed", ok=True)
    tracked = [e for e in done if e["state"] == "tracked"]
    detail = None
    if tracked:
        detail = (
            f"{tracked[0]['hook']} is the repository's own tracked hook; add this line at its top: "
            f'{binary()} git-pre-push "$0" "$@" (with the same stdin) to keep Hallmark\'s wall'
        )
    return GitHooksInstalled(ok=not tracked, dirs=tuple(HookDir(**e) for e in done), dry_run=dry_run, detail=detail)


def _chain(hook: Path) -> None:
    chained = hook.with_name(CHAINED)
    if chained.exists():
        if chained.read_bytes() == hook.read_bytes():
            hook.unlink()
            return
        chained.rename(chained.with_name(f"{CHAINED}.{clock.stamp().replace(':', '')}"))
    hook.rename(chained)


def remove(paths: RepoPaths, *, dry_run: bool = False) -> GitHooksRemoved:
    """Take Hallmark's hook out and put back the one it chained."""
    done = []
    for folder in hook_dirs(paths):
        hook, chained = folder / HOOK, folder / CHAINED
        if not hook.exists() or not _is_ours(hook):
            continue
        done.append(RestoredHook(dir=str(folder), restored=str(hook) if chained.exists() else None))
        if dry_run:
            continue
        hook.unlink()
        if chained.exists():
            chained.rename(hook)
    return GitHooksRemoved(removed=tuple(done), dry_run=dry_run)


def cover(paths: RepoPaths, checkout: Path) -> None:
    """A new worktree under a relative `core.hooksPath` resolves its own hooks dir: put the hook there
    too, when the repo has it elsewhere. Never raises: `hall doctor` reports what is missing."""
    try:
        folder = hooks_dir(checkout)
        if folder is None or ((folder / HOOK).exists() and _is_ours(folder / HOOK)):
            return
        if not any(_is_ours(Path(d) / HOOK) for d in hook_dirs(paths)):
            return  # the repo has no hook of ours at all: someone removed it on purpose
        install(paths)
    except Exception:  # noqa: BLE001 - a worktree is made either way
        pass
