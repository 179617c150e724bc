"""The edit gate: work inside the repo happens in an active item's worktree.

Paths are compared as real paths, component by component (symlinks, `..`, relative paths against
the payload's cwd, `/repo` versus `/repo-other`). `[capture] free` globs need no item (never for
`.hallmark/` and the `rules` files); files
outside the repository are never gated; git's own directory (Hallmark's state lives there) is
never edited by hand, whatever the mode.
"""

from __future__ import annotations

import fnmatch
import os

from hallmark.core import item_lookup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

NEXT = ['hall new --title "…"', "hall adopt", "hall status --all"]


class Gate:
    """A gate's answer: 'deny' or 'ask' with a reason; None means fall through."""

    __slots__ = ("code", "decision", "message", "next")

    def __init__(self, decision: str, message: str, next: list[str] | None = None, code: str = "GATE_DENIED"):
        self.decision = decision
        self.message = message
        self.next = list(next or [])
        self.code = code

    def reason(self) -> str:
        """Hallmark's error body, which Claude reads and acts on (it names what to run)."""
        from hallmark.core.errors import HallError

        return HallError(self.code, self.message, self.next).to_json()

    def __repr__(self) -> str:
        return f"Gate({self.decision!r}, {self.message!r})"


def tool_paths(tool_name: str, tool_input: dict[str, Any]) -> list[str]:
    keys = ("notebook_path",) if tool_name == "NotebookEdit" else ("file_path",)
    found = []
    for key in (*keys, "file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value and value not in found:
            found.append(value)
        if found:
            break
    return found


class Unresolvable(ValueError):
    """A path that means something else in the tool's process than in this hook's (/proc/self/fd/3)."""


def real(path: str, cwd: str) -> str:
    """The real path the tool would write, resolved for the payload's cwd (never the hook's own):
    `/proc/self/cwd/x` is x in the session's directory."""
    if path.startswith("~"):
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if "/proc/" in path or "/dev/" in path:  # before any normpath: `/dev/fd/..` is /proc/self, not /dev
        from .self_paths import UNKNOWN_PROCESS, resolve

        resolved = resolve(path, cwd)
        if resolved is None or resolved == UNKNOWN_PROCESS:
            raise Unresolvable(path)
        path = resolved
    return os.path.realpath(path)


def is_free(rel: str, patterns: list[str]) -> bool:
    """gitignore-like: `docs/` is a directory anywhere (or anchored if it has an inner slash),
    `*.md` matches a name at any depth, `a/*.txt` is anchored at the checkout root."""
    rel = rel.replace(os.sep, "/").lstrip("/")
    parts = rel.split("/")
    for pattern in patterns:
        pat = pattern.strip()
        if not pat:
            continue
        directory = pat.endswith("/")
        core = pat.strip("/")
        anchored = pattern.startswith("/") or "/" in core
        if directory:
            dirs = parts[:-1]  # a directory pattern matches the file's directories
            if anchored:
                depth = core.count("/") + 1
                if len(dirs) >= depth and fnmatch.fnmatchcase("/".join(dirs[:depth]), core):
                    return True
            elif any(fnmatch.fnmatchcase(d, core) for d in dirs):
                return True
            continue
        if anchored:
            if fnmatch.fnmatchcase(rel, core) or any(
                fnmatch.fnmatchcase("/".join(parts[:k]), core) for k in range(1, len(parts))
            ):
                return True
        elif fnmatch.fnmatchcase(parts[-1], core):  # a file pattern matches the file's own name, never
            return True  # a directory's: `*.md` does not free everything inside a folder named x.md
    return False


RULES_DEFAULT = (".hallmark/", "CLAUDE.md", "AGENTS.md")  # settings.never_free of the default config


def free_path(rel: str, capture: dict[str, Any]) -> bool:
    """Is this path (relative to its checkout) free of the item rule? Never for `.hallmark/` and the
    configured rules files (settings.never_free), whatever `[capture] free` says: `*.md` must not
    free the reviewer's rubric `.hallmark/review.md` or CLAUDE.md."""
    rel = rel.replace(os.sep, "/").lstrip("/")
    for fixed in capture.get("never_free", RULES_DEFAULT):
        anchored = fixed.replace(os.sep, "/").strip("/")
        if anchored and (rel == anchored or rel.startswith(anchored + "/")):
            return False
    return is_free(rel, capture["free"])


def _outside(paths: RepoPaths, target: str) -> tuple[str | None, str | None]:
    """(checkout holding target, relative path) or (None, None) when target is outside the repo."""
    root = item_lookup.checkout_of(paths, target)
    if root is None:
        return None, None
    return root, os.path.relpath(target, root)


def _git_internal(paths: RepoPaths, target: str) -> bool:
    return item_lookup.within(target, os.path.realpath(paths.common_dir))


def _hard_links(target: str, paths: RepoPaths) -> int:
    """How many names the file has, when it has more than one on the repository's file system."""
    try:
        st = os.stat(target)
        repo = os.stat(paths.main_checkout)
    except OSError:
        return 0
    import stat

    return st.st_nlink if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and st.st_dev == repo.st_dev else 0


def file_gate(paths: RepoPaths, capture: dict[str, Any], cwd: str, file_paths: list[str]) -> Gate | None:
    for given in file_paths:
        try:
            target = real(given, cwd)
        except Unresolvable:
            return Gate(
                "deny",
                f"{given} names a file through this process's own descriptors; the edit gate "
                "cannot tell which file that is. Use the file's own path.",
                ["hall status"],
            )
        if _git_internal(paths, target):
            return Gate(
                "deny",
                f"{given} is inside git's own directory, where Hallmark keeps its state; it is never edited by hand.",
                ["hall doctor", "hall status"],
            )
        from .protected import protected_reason

        why = protected_reason(paths, target)
        if why:
            return Gate(
                "deny",
                f"{given} is {why}; only hall writes it (a person edits it in their own editor).",
                ["hall doctor", "hall status"],
            )
        links = _hard_links(target, paths)
        if links:
            return Gate(
                "deny",
                f"{given} has {links} hard links: an edit changes every one of them, and one may "
                "be a file of the repository outside the item's worktree. Copy it instead.",
                NEXT,
            )
        root, rel = _outside(paths, target)
        if root is None or rel is None:
            continue
        if capture["mode"] == "off":
            continue
        if item_lookup.item_for_path(paths, target) is not None:
            continue
        if free_path(rel, capture):
            continue
        message = (
            f"{given} is in the repository but not in an active item's worktree. Start an item "
            f'(hall new --title "…", or hall adopt on a work branch) and edit in its worktree.'
        )
        return Gate("ask" if capture["mode"] == "ask" else "deny", message, NEXT)
    return None


COMMIT_WITH_VALUE = frozenset(
    {
        "-m",
        "--message",
        "-F",
        "--file",
        "-C",
        "--reuse-message",
        "-c",
        "--reedit-message",
        "--author",
        "--date",
        "-t",
        "--template",
        "--fixup",
        "--squash",
        "--trailer",
        "--cleanup",
        "--pathspec-from-file",
        "-S",
        "--gpg-sign",
    }
)


def commit_pathspecs(args: list[str]) -> tuple[list[str], bool, bool]:
    """(pathspecs, --all given, pathspec-from-file given)."""
    specs: list[str] = []
    all_ = False
    from_file = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            specs += args[i + 1 :]
            break
        if arg in COMMIT_WITH_VALUE:
            from_file = from_file or arg == "--pathspec-from-file"
            i += 2
            continue
        if arg.startswith("--"):
            all_ = all_ or arg == "--all"
            from_file = from_file or arg.startswith("--pathspec-from-file")
        elif arg.startswith("-"):
            cluster = arg[1:]
            all_ = all_ or "a" in cluster.split("m")[0].split("F")[0].split("C")[0]
            if cluster and cluster[-1] in "mFCct" and cluster[-1] not in ("",):
                i += 2
                continue
        else:
            specs.append(arg)
        i += 1
    return specs, all_, from_file


def _git_lines(where: str, *args: str) -> list[str] | None:
    import subprocess

    proc = subprocess.run(["git", "-C", where, *args], capture_output=True, text=True, timeout=10, check=False)
    if proc.returncode != 0:
        return None
    return [line for line in proc.stdout.splitlines() if line]


def commit_gate(
    paths: RepoPaths,
    capture: dict[str, Any],
    where: str | None,
    payload_cwd: str,
    args: list[str],
    staged_in_command: list[str] | None,
) -> Gate | None:
    """A git commit outside an active item's worktree, unless it commits only free paths."""
    if capture["mode"] == "off":
        return None
    directory = os.path.realpath(where or payload_cwd)
    root, _ = _outside(paths, directory)
    if root is None:
        return None
    if item_lookup.item_for_path(paths, directory) is not None:
        return None
    specs, all_, from_file = commit_pathspecs(args)
    files: list[str] | None
    if from_file or staged_in_command is None:
        files = None
    elif specs:
        files = [os.path.relpath(real(s, directory), root) for s in specs]
    else:
        staged = _git_lines(directory, "diff", "--cached", "--name-only")
        files = staged
        if files is not None and all_:
            tracked = _git_lines(directory, "diff", "--name-only")
            files = None if tracked is None else files + tracked
    if files is not None:
        files = files + list(staged_in_command or [])
        if all(free_path(f, capture) for f in files):
            return None
    message = (
        f"git commit in {directory} is outside an active item's worktree. Start an item "
        f'(hall new --title "…", or hall adopt on a work branch) and commit there.'
    )
    return Gate("ask" if capture["mode"] == "ask" else "deny", message, NEXT)
