"""Another repository taking this one's commits: `git -C <remote> fetch <worktree> +HEAD:main`,
`git -C <remote> pull <checkout>`, `git clone <checkout> <dir>`.

No `git push` runs, yet the commits leave: the remote (or a fresh clone the gate never watches)
pulls them in. Such a fetch or clone is read as a push of what it takes, checked in the checkout it
takes from (decide.py asks each source for its hallmark). Only a source that is one of this
repository's checkouts or its git directory counts, named by path, `file://` URL, or a remote of
the fetching repository whose URL is one of those; a fetch within this repository is a local one
(refspecs.py reads what it writes). Stdlib; one git call only to read another repository's remote.
"""

from __future__ import annotations

import os

from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

ALL_BRANCHES = "\x00branches"  # refspecs.ALL_BRANCHES (not imported: a test checks they agree)


def ours(an: Analyzer, real: str) -> str | None:
    """The checkout (or the git directory) of this repository that holds real, or None."""
    from hallmark.core.item_lookup import checkout_of, within

    paths = an.ctx.paths
    if paths is None:
        return None
    common = os.path.realpath(paths.common_dir)
    if within(real, common):
        return common
    return checkout_of(paths, real)


def _path_of(text: str, where: str) -> str | None:
    """The real path a fetch source names, when it names a local directory."""
    if text.startswith("file://"):
        text = text[len("file://") :]
    elif "://" in text or (":" in text and "/" not in text.split(":", 1)[0] and not text.startswith(".")):
        return None  # another host (`host:path`, `ssh://`): the sandbox's network rules, not ours
    path = os.path.expanduser(text)
    path = path if os.path.isabs(path) else os.path.join(where, path)
    return os.path.realpath(path) if os.path.isdir(path) else None


def _remote_urls(where: str, name: str | None, env: dict[str, str]) -> list[str]:
    """The URLs of the fetching repository's remote `name` (every remote when None)."""
    from .git_hooks import probe_env
    from .run import capture

    pattern = r"^remote\..*\.url$" if name is None else f"^remote\\.{_escape(name)}\\.url$"
    try:
        proc = capture(["git", "-C", where, "config", "--get-regexp", pattern], env=probe_env(env))
    except OSError:
        return []
    return [line.partition(" ")[2] for line in proc.stdout.decode("utf-8", "replace").splitlines()]


def _escape(text: str) -> str:
    return "".join("\\" + ch if not (ch.isalnum() or ch in "_-") else ch for ch in text)


def taken_from_here(
    an: Analyzer,
    sub: str,
    operands: list[Word],
    cmd: Command,
    cwd: str | None,
    env: dict[str, str],
    git_dir: str | None,
) -> bool:
    """A fetch or pull run by a repository that is not this one, from one of this one's checkouts:
    recorded as a push of the refspecs' sources (HEAD, or every branch when a remote's default
    refspecs apply). True when it is one."""
    fetching = git_dir or cwd
    if fetching is None or an.ctx.paths is None:
        return False
    if ours(an, os.path.realpath(fetching)) is not None:
        return False  # a fetch inside this repository: refspecs.py reads where it writes
    source = operands[0] if operands else None
    if source is not None and not source.literal:
        an.add("strict", f"git {sub} from a computed repository", cmd, cwd, always=True)
        return True
    where = cwd or fetching
    found: str | None = None
    by_name = False
    if source is not None:
        real = _path_of(source.text, where)
        found = ours(an, real) if real else None
    if found is None and (source is None or _path_of(source.text, where) is None):
        by_name = True
        name = source.text.lower() if source is not None else None
        added = [
            u for (repo, n), u in an.remote_urls.items() if repo == os.path.realpath(fetching) and n in (name, None)
        ]
        if name is None:
            added = [u for (repo, _), u in an.remote_urls.items() if repo == os.path.realpath(fetching)]
        for url in added + _remote_urls(fetching, source.text if source is not None else None, env):
            real = _path_of(url, fetching)
            found = ours(an, real) if real else None
            if found:
                break
    if found is None:
        return False
    sources: list[str] = []
    for spec in operands[1:]:
        if not spec.literal:
            sources.append("\x00dynamic")
            continue
        src = spec.text.lstrip("+").partition(":")[0]
        if spec.text.startswith("^") or not src or spec.text == "tag":
            continue
        sources.append(src)
    if not sources:
        sources = [ALL_BRANCHES] if by_name else ["HEAD"]
    an.add(
        "push",
        f"git {sub} run by {fetching} from this repository ({found})",
        cmd,
        found,
        revs=sources,
    )
    return True


def cloned_from_here(an: Analyzer, positional: list[str], cmd: Command, cwd: str | None) -> None:
    """`git clone <checkout> <dir>`: the clone takes every branch to a repository the gate does not
    watch (whose pushes it never sees): a push of every branch of this repository."""
    if not positional or cwd is None or an.ctx.paths is None:
        return
    real = _path_of(positional[0], cwd)
    found = ours(an, real) if real else None
    if found:
        an.add("push", f"git clone of this repository ({found})", cmd, found, revs=[ALL_BRANCHES])
