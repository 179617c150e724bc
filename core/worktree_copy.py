"""Files Hallmark copies into a new worktree (`[worktree] copy`, e.g. `.env`) are Hallmark's own.

`hall new` copies them and records each one's sha256 in the `created` event. While a copy is
unchanged it is not the person's work: every dirtiness check (ready, fixing, shipping, the sweep,
drop) leaves it out, nothing ever suggests committing it, and removing the worktree deletes it
first (git would otherwise refuse to remove a worktree with an untracked file). A copy that was
edited since is reported, named as a copy, with advice that never says "commit".
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
from pathlib import Path
from typing import Any

from . import git
from .bounded_read import COPY_LIMIT, read_bytes
from .paths import is_within
from .sandbox_placeholders import sandbox_placeholder


def sha256_of(path: Path) -> str | None:
    """None when there is no regular file of a copy's size there (a FIFO there never blocks us)."""
    try:
        return hashlib.sha256(read_bytes(path, COPY_LIMIT)).hexdigest()
    except OSError:
        return None


def copy_into(main: Path, worktree: Path, wanted: list[str]) -> dict[str, str]:
    """Copy each listed file that exists in the main checkout and not yet in the worktree;
    returns {path: sha256} of what was copied."""
    copied: dict[str, str] = {}
    for rel in wanted:
        source = main / rel
        dest = worktree / rel
        if source.is_file() and not dest.exists() and is_within(dest.resolve(), worktree.resolve()):
            try:
                data = read_bytes(source, COPY_LIMIT)
            except OSError:
                continue  # not a regular file of a copy's size: not copied (doctor names copies)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            copied[rel] = hashlib.sha256(data).hexdigest()
    return copied


def recorded_copies(events: list[dict[str, Any]]) -> dict[str, str | None]:
    """{path: sha256 at copy time} from the item's creation event (None: copied before hashes)."""
    for event in events:
        if event.get("event") in ("created", "adopted"):
            hashes = event.get("copied_sha256") or {}
            return {str(rel): hashes.get(rel) for rel in event.get("copied") or []}
    return {}


def _copies(repo: Any, item_id: str) -> dict[str, str | None]:
    from .items import item_events

    try:
        return recorded_copies(item_events(repo, item_id))
    except Exception:  # noqa: BLE001 - no journal, no copies
        return {}


def status_entries(worktree: Path | str, *, every_file: bool, ignored: bool = False) -> list[tuple[str, str]]:
    """(XY, path) for every uncommitted change, ignored files left out unless asked for (then `!!`,
    an ignored directory as one `dir/` entry); `-z` so no path is quoted."""
    mode = "all" if every_file else "normal"
    args = ["status", "--porcelain", "-z", f"--untracked-files={mode}"]
    if ignored:
        args.append("--ignored=traditional")
    raw = git.run(args, worktree).stdout
    out: list[tuple[str, str]] = []
    parts = raw.split("\0")
    i = 0
    while i < len(parts):
        entry = parts[i]
        i += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":  # a rename carries its source as the next field
            i += 1
        if code == "??" and sandbox_placeholder(Path(worktree), path):
            continue  # the sandbox's mount point while a sandboxed command runs, not the work
        out.append((code, path))
    return [(code, path) for code, path in out if code != "??" or not sandbox_device(Path(worktree) / path)]


def sandbox_device(path: Path, budget: int = 200) -> bool:
    """Is this untracked entry one of the placeholders Claude Code's sandbox mounts over protected
    dotfiles (`.bashrc`, `.gitconfig`, `.mcp.json`, `.claude/` …)? They are character devices (or
    folders holding only such), which git cannot even add: never anyone's work, never dirt."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    if stat.S_ISCHR(mode):
        return True
    if not stat.S_ISDIR(mode):
        return False
    seen = 0
    for folder, _dirs, names in os.walk(path):
        for name in names:
            seen += 1
            if seen > budget or not sandbox_device(Path(folder) / name, 0):
                return False
    return seen > 0


def unchanged_copies(repo: Any, view: Any) -> list[str]:
    """The copies still exactly as Hallmark wrote them (or, for old items, as the main checkout has them)."""
    found = []
    worktree = Path(view.worktree)
    for rel, digest in _copies(repo, view.id).items():
        now = sha256_of(worktree / rel)
        if now is None:
            continue
        expected = digest if digest is not None else sha256_of(Path(repo.root) / rel)
        if now == expected:
            found.append(rel)
    return found


def split_dirt(repo: Any, view: Any) -> tuple[list[str], list[str], list[str]]:
    """(the work's porcelain lines, Hallmark's unchanged copies, copies edited since) of the item's worktree."""
    copies = _copies(repo, view.id)
    entries = status_entries(view.worktree, every_file=bool(copies))
    if not copies:
        return [f"{code} {path}" for code, path in entries], [], []
    own = set(unchanged_copies(repo, view))
    work, edited = [], []
    for code, path in entries:
        if code == "??" and path in own:
            continue
        if code == "??" and path in copies:
            edited.append(path)
        work.append(f"{code} {path}")
    return work, sorted(own), edited


def person_dirt(repo: Any, view: Any) -> list[str]:
    """Porcelain lines of the worktree's uncommitted changes, Hallmark's unchanged copies left out."""
    return split_dirt(repo, view)[0]


def _only_own(folder: Path, prefix: str, own: set[str]) -> bool:
    """Whether every file under an ignored folder is one of Hallmark's unchanged copies (the walk
    stops at the first that is not, so a large build folder costs one step)."""
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            rel = prefix + os.path.relpath(os.path.join(top, name), folder)
            if rel.replace(os.sep, "/") not in own:
                return False
    return True


def persons_ignored(repo: Any, view: Any) -> list[str]:
    """The git-ignored files in the worktree that are the person's: every ignored file or folder
    Hallmark did not copy in, and each copy edited since. `git status` never shows them, and
    `git worktree remove` deletes them without asking, so removing the worktree would lose them."""
    worktree = Path(view.worktree)
    copies = _copies(repo, view.id)
    own = set(unchanged_copies(repo, view)) if copies else set()
    found = []
    for code, path in status_entries(worktree, every_file=False, ignored=True):
        if code != "!!":
            continue
        if path.endswith("/") and _only_own(worktree / path, path, own):
            continue
        if path in own:
            continue
        found.append(f"{path} (copied in by Hallmark, edited since)" if path in copies else path)
    return found


def dirty_advice(view: Any, dirty: list[str], edited: list[str]) -> list[str]:
    """What to do about a dirty worktree. A copied file is never to be committed: when it is the
    only change, nothing suggests committing anything."""
    where = shlex.quote(str(view.worktree))
    advice = [f"git -C {where} status"]
    if edited:
        names = " ".join(shlex.quote(p) for p in edited)
        advice.append(
            f"{', '.join(edited)}: copied in by Hallmark ([worktree] copy) and edited since; it is not "
            f"part of the work: restore it from the main checkout or delete it (rm {names}), and "
            "git-ignore it"
        )
    others = [line for line in dirty if line[3:] not in edited]
    if others:
        advice.append("commit or stash " + ("your other changes" if edited else "them") + ", then run ready again")
    return advice


def remove_own_copies(repo: Any, view: Any) -> list[str]:
    """Delete the unchanged copies (before `git worktree remove`, which refuses untracked files)."""
    removed = []
    for rel in unchanged_copies(repo, view):
        path = Path(view.worktree) / rel
        try:
            path.unlink()
            removed.append(rel)
        except OSError:
            continue
        parent = path.parent
        while parent != Path(view.worktree) and is_within(parent, Path(view.worktree)):
            try:
                parent.rmdir()  # only when empty
            except OSError:
                break
            parent = parent.parent
    return removed


def not_ignored(main: Path, wanted: list[str]) -> list[str]:
    """The `[worktree] copy` paths git would not ignore: each copy would show as the person's work
    (or be committed by accident) if Hallmark did not leave it out."""
    if not wanted:
        return []
    proc = git.run(["check-ignore", "--no-index", "--stdin", "-z"], main, check=False, input="\0".join(wanted) + "\0")
    ignored = {p for p in proc.stdout.split("\0") if p}
    return [p for p in wanted if p not in ignored]
