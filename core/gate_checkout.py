"""Where the gates run: a clean checkout of the frozen commit, one per item, beside its worktree.

Gates write things. `make test` leaves binaries, `ruff check --fix` and pre-commit rewrite files, a
build leaves its outputs. Run in the item's worktree, those by-products looked like the agent's
uncommitted work (`hall ready` refused, the shipper held, a good fixer run was judged failed) and a
`git add -A` committed them. So the gates run in a detached `git worktree` of the frozen commit that
only Hallmark uses, `.hallmark-checks-<the worktree's name>` beside the worktree. It is made on
the item's first checks and reset before every later run (`checkout -f --detach <sha>`, then
`clean -ffd`: untracked files go, git-ignored ones such as node_modules or build caches stay, as in
any checkout). A gate always sees exactly the frozen commit, and nothing it leaves is ever in the
item's worktree. A gate that rewrites tracked files is reset before the next gate runs
(`after_gate`), and the checks report what it changed.

Not under the state dir (`.git/hallmark`): tools skip every path with `/.git/` in it (jest's haste
map, prettier), so a checkout there would find no tests. Beside the worktree, at its depth, the
checkout has the worktree's parents: whatever a gate reaches above the repository (`../shared-lib`,
a config file further up) is the same. Removing the item's worktree (drop, sweep) removes its gate
checkout too: the daemon's next pass removes every gate checkout whose worktree is gone (`prune`),
and `remove` does it at once.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import git
from .errors import HallError
from .paths import is_within

PREFIX = ".hallmark-checks-"
COPY_CAP = 16 * 1024 * 1024  # a `[worktree] copy` file larger than this is not copied into the checkout
DIFF_CAP = 6000  # characters of a rewriting gate's diff kept for the fixer (the stat line lists every file)


@dataclass
class GateCheckout:
    """A gate checkout ready at sha: where it is, whether this run made it, what the last run left."""

    path: Path
    sha: str
    created: bool
    cleaned: list[str] = field(default_factory=list)  # what earlier gates had left there, removed now
    prepare_ms: int = 0
    copied: list[str] = field(default_factory=list)  # `[worktree] copy` files put there (not the gates')

    def to_worktree(self, text: str, worktree: Path | str) -> str:
        """Gate output with the checkout's paths written as the worktree's, for the fixer who edits there."""
        return text.replace(str(self.path) + os.sep, str(worktree).rstrip(os.sep) + os.sep)


@dataclass
class Leftovers:
    """What one gate changed in the checkout: tracked files it rewrote (and the diff), files it wrote."""

    rewrote: list[str] = field(default_factory=list)
    wrote: list[str] = field(default_factory=list)
    diff: str = ""

    def report(self, command: str) -> str:
        """What the fixer reads about a gate that rewrote the commit's files."""
        if not self.rewrote:
            return ""
        shown = ", ".join(self.rewrote[:10]) + (f" and {len(self.rewrote) - 10} more" if len(self.rewrote) > 10 else "")
        diff = self.diff if len(self.diff) <= DIFF_CAP else self.diff[:DIFF_CAP].rsplit("\n", 1)[0] + "\n… (diff cut)"
        return (
            f"hall: `{command}` changed {len(self.rewrote)} tracked file(s) of the commit: {shown}. The commit is "
            "not what this gate accepts; make these changes (or run the gate's fix) in the worktree and commit "
            f"them. Its changes:\n{diff.rstrip()}\n"
        )


def location(worktree: Path | str) -> Path:
    """The gate checkout of the item whose worktree this is (one per worktree, beside it)."""
    real = Path(os.path.realpath(worktree))
    return real.parent / (PREFIX + real.name)


def _registered(repo: Any, path: Path) -> bool:
    return str(path) in {os.path.realpath(entry["path"]) for entry in git.worktrees(repo.root)}


def _is_ours(repo: Any, path: Path) -> bool:
    """Is path a live checkout of this repository? Its `.git` file names a folder under our
    `worktrees/` (read, not asked of git: this runs before every checks run)."""
    try:
        text = (path / ".git").read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return False
    if not text.startswith("gitdir:"):
        return False
    gitdir = Path(os.path.realpath(text[len("gitdir:") :].strip()))
    common = Path(os.path.realpath(repo.paths.common_dir))
    return gitdir.parent == common / "worktrees" and (gitdir / "HEAD").is_file()


def _lock(repo: Any) -> Any:
    from .items import worktree_lock

    return worktree_lock(repo)


def prepare(
    repo: Any, worktree: Path | str, sha: str, *, item_id: str | None = None, timeout_s: float | None = None
) -> GateCheckout:
    """The item's gate checkout at exactly sha: made the first time, reset (and cleaned) after, and
    set up (`[worktree] setup`, when its manifests changed). Raises SetupFailed when the set-up fails."""
    started = time.monotonic()
    path = location(worktree)
    created = False
    cleaned: list[str] = []
    if _is_ours(repo, path):
        git.run(["checkout", "-q", "-f", "--detach", sha], path)
        proc = git.run(["clean", "-ffd"], path)  # not -x: ignored files (node_modules, caches) are the env
        cleaned = [line[len("Removing ") :] for line in proc.stdout.splitlines() if line.startswith("Removing ")]
    else:
        if path.exists():  # a stale folder no checkout owns any more (location() names only ours)
            shutil.rmtree(path, ignore_errors=True)
        with _lock(repo):  # -f: the path may still be registered to a checkout someone deleted by hand
            proc = git.run(["worktree", "add", "-f", "-q", "--detach", str(path), sha], repo.root, check=False)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise HallError(
                "COMMAND_FAILED",
                f"Could not make the clean checkout the gates run in ({path}): "
                f"{detail[-1] if detail else proc.returncode}.",
                ["git worktree prune", "hall doctor"],
            )
        created = True
    copied = _copy_files(repo, worktree, path)
    from .worktree_setup import ensure

    ensure(repo, item_id, path, timeout_s)
    return GateCheckout(path, sha, created, cleaned, int((time.monotonic() - started) * 1000), copied)


def _copy_files(repo: Any, worktree: Path | str, path: Path) -> list[str]:
    """`[worktree] copy` files (e.g. `.env`) as the item's worktree has them now (else as the main
    checkout has them): the gates see what the item's own runs see. Only inside the checkout."""
    placed = []
    for rel in repo.config.worktree_copy:
        dest = path / rel
        source = next((s for s in (Path(worktree) / rel, Path(repo.root) / rel) if s.is_file()), None)
        if (
            source is None
            or source.stat().st_size > COPY_CAP
            or not is_within(Path(os.path.realpath(dest.parent)), path)
        ):
            continue
        placed.append(rel)
        data = source.read_bytes()
        try:
            if dest.read_bytes() == data:
                continue
        except OSError:
            pass
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return placed


def after_gate(checkout: GateCheckout) -> Leftovers:
    """What the gate just left in the checkout; tracked files it rewrote are put back, so the next
    gate sees the frozen commit too (files it wrote stay for the next gate, a build's outputs)."""
    from .worktree_copy import status_entries

    found = Leftovers()
    for code, rel in status_entries(checkout.path, every_file=False):
        if code == "??" and rel in checkout.copied:
            continue
        (found.wrote if code == "??" else found.rewrote).append(rel)
    if found.rewrote:
        stat = git.run(["diff", "--stat", "HEAD"], checkout.path, check=False).stdout
        patch = git.run(["diff", "HEAD"], checkout.path, check=False).stdout
        found.diff = stat + "\n" + patch
        git.run(["reset", "-q", "--hard"], checkout.path)
    return found


def remove(repo: Any, worktree: Path | str) -> bool:
    """Remove the gate checkout of this worktree (the item's worktree is going); True when one was there.
    Only ever a `.hallmark-checks-` folder: it holds nothing but the commit and what the gates made."""
    path = location(worktree)
    registered = _registered(repo, path)
    if not path.exists() and not registered:
        return False
    if registered:
        with _lock(repo):
            proc = git.run(["worktree", "remove", "--force", "--force", str(path)], repo.root, check=False)
        if proc.returncode != 0 and not path.exists():
            git.run(["worktree", "prune"], repo.root, check=False)  # its folder was deleted by hand
    if path.exists() and path.name.startswith(PREFIX):
        shutil.rmtree(path, ignore_errors=True)
    return True


def prune(repo: Any) -> list[str]:
    """Remove the gate checkouts whose item worktree is gone (dropped, swept, deleted by hand): the
    daemon does this on every pass. Returns the checkouts removed."""
    removed = []
    for entry in git.worktrees(repo.root):
        path = Path(entry.get("path", ""))
        if not path.name.startswith(PREFIX):
            continue
        worktree = path.parent / path.name[len(PREFIX) :]
        if worktree.exists():
            continue
        if remove(repo, worktree):
            removed.append(str(path))
    return removed
