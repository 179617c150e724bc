"""Find the repository, its git common dir, the main checkout and Hallmark's state dir.

Pure stdlib and no subprocess on the common path: hooks call this on every tool call.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import HallError

STATE_DIR_NAME = "hallmark"


class RepoPaths:
    """Where things are for one repository, seen from one checkout (main or a worktree).

    A plain frozen value class rather than a dataclass: the hook path imports this module on
    every tool call, and `dataclasses` pulls in `inspect` (~9 ms).
    """

    __slots__ = ("common_dir", "git_dir", "main_checkout", "toplevel")
    _FIELDS = ("toplevel", "git_dir", "common_dir", "main_checkout")

    toplevel: Path  # the checkout we are in (a worktree or the main checkout)
    git_dir: Path  # that checkout's own git dir
    common_dir: Path  # the shared .git directory
    main_checkout: Path  # the main working tree (where .hallmark.toml is read)

    def __init__(self, toplevel: Path, git_dir: Path, common_dir: Path, main_checkout: Path) -> None:
        for name, value in zip(self._FIELDS, (toplevel, git_dir, common_dir, main_checkout), strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"RepoPaths is frozen; cannot set {name}")

    def _key(self) -> tuple[Path, Path, Path, Path]:
        return (self.toplevel, self.git_dir, self.common_dir, self.main_checkout)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RepoPaths) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._FIELDS)
        return f"RepoPaths({inner})"

    @property
    def state_dir(self) -> Path:
        return self.common_dir / STATE_DIR_NAME

    @property
    def initialized(self) -> bool:
        return self.state_dir.is_dir()

    @property
    def items_dir(self) -> Path:
        return self.state_dir / "items"

    def item_dir(self, item_id: str) -> Path:
        return self.items_dir / item_id

    def item_journal(self, item_id: str) -> Path:
        return self.items_dir / item_id / "events.jsonl"

    @property
    def repo_journal(self) -> Path:
        return self.state_dir / "events.jsonl"

    def require_initialized(self) -> RepoPaths:
        if not self.initialized:
            raise HallError(
                "NOT_INITIALIZED",
                f"Hallmark is not set up in {self.main_checkout}.",
                ["hall init"],
            )
        return self


def _read_gitfile(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    if not target.is_absolute():
        target = dotgit.parent / target
    return Path(os.path.realpath(target))


def _common_dir_of(git_dir: Path) -> Path:
    commondir = git_dir / "commondir"
    try:
        rel = commondir.read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    target = Path(rel)
    if not target.is_absolute():
        target = git_dir / target
    return Path(os.path.realpath(target))


def _fast_discover(start: Path) -> RepoPaths | None:
    """Walk up from start looking for .git; understands worktrees' gitdir files."""
    current = Path(os.path.realpath(start))
    for directory in (current, *current.parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            git_dir = dotgit
        elif dotgit.is_file():
            found = _read_gitfile(dotgit)
            if found is None:
                return None
            git_dir = found
        else:
            continue
        if not (git_dir / "HEAD").exists():
            return None
        common = _common_dir_of(git_dir)
        main = common.parent if git_dir != common and common.name == ".git" else directory
        return RepoPaths(directory, Path(os.path.realpath(git_dir)), common, Path(os.path.realpath(main)))
    return None


def _git_discover(start: Path) -> RepoPaths | None:
    """The slow, always-right path: ask git."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir"],
            cwd=start,
            capture_output=True,
            text=True,
            check=False,
        )
    except (OSError, ValueError):
        return None
    if out.returncode != 0:
        return None
    lines = out.stdout.splitlines()
    if len(lines) < 3:
        return None
    top = Path(os.path.realpath(lines[0]))
    git_dir = Path(os.path.realpath(Path(start) / lines[1]))
    common = Path(os.path.realpath(Path(start) / lines[2]))
    main = common.parent if common.name == ".git" else top
    return RepoPaths(top, git_dir, common, Path(os.path.realpath(main)))


def discover(start: str | os.PathLike[str] | None = None, *, required: bool = True) -> RepoPaths | None:
    """Find the repository containing start (default: the current directory)."""
    where = Path(start) if start is not None else Path.cwd()
    found = _fast_discover(where) or _git_discover(where)
    if found is None and required:
        raise HallError("NOT_A_REPO", f"{where} is not inside a git repository.", ["git init", "cd <your repo>"])
    return found


def hallmark_above(start: str | os.PathLike[str]) -> RepoPaths | None:
    """The nearest repository at or above start where `hall init` ran, walking past repositories
    that are not (a nested clone, a submodule, a vendored repo inside a worktree). Reads only the
    file system, no git process: the hooks ask this on every tool call that finds no Hallmark."""
    current = Path(os.path.realpath(start))
    while not current.exists() and current != current.parent:
        current = current.parent  # a file about to be written: its nearest existing directory
    for _ in range(64):
        found = _fast_discover(current)
        if found is None:
            return None
        if found.initialized:
            return found
        if found.toplevel == found.toplevel.parent:
            return None
        current = found.toplevel.parent
    return None


def user_data_dir() -> Path:
    """Per-user data (registered repos, seen marks, user config). HALLMARK_DATA_DIR overrides it."""
    override = os.environ.get("HALLMARK_DATA_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_dir as _udd

    return Path(_udd("hallmark", appauthor=False))


def is_within(path: Path, root: Path) -> bool:
    """Component-wise containment of real paths (never a string prefix test)."""
    try:
        Path(path).relative_to(root)
    except ValueError:
        return False
    return True
