"""What a `git push` sends, and what a fetch writes: refspecs read as git reads them.

`push_finding` turns a push's arguments into a "push" finding that names its sources: each
refspec's source (`src`, `+src:dst`, `tag v1`), `--all`/`--branches` (every branch), `--tags`,
and, with no refspec, the configured ones (`remote.<name>.push`, `push.default = matching`) or
HEAD. `resolve` (called by decide.py) turns those into commits to check. What cannot be known
(a computed refspec, a glob that matches nothing readable, `--mirror`) is denied with a reason.
A destination under `refs/notes/`, or a pattern that can match one (`refs/*`), is a note write, on a push
and on a fetch. A fetch run by another repository from one of this repo's checkouts is a push of what it takes.
"""

from __future__ import annotations

import os

from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

PUSH_VALUE = frozenset(
    {
        "--repo",
        "--receive-pack",
        "--exec",
        "-o",
        "--push-option",
        "--signed",
        "--force-with-lease",
        "--recurse-submodules",
    }
)
PUSH_FLAGS_NEED_EQ = frozenset({"--signed", "--force-with-lease", "--recurse-submodules"})  # value only with =
ALL_BRANCHES = "\x00branches"
ALL_TAGS = "\x00tags"
MIRROR = "\x00mirror"  # the remote is configured as a mirror: every ref goes


def dest_may_be_notes(dst: str) -> bool:
    """Does a refspec's destination name refs/notes/, or is it a pattern that can match a ref there
    (`refs/*`, `*`, `refs/n*`: `git fetch . 'refs/heads/*:refs/*'` maps refs/heads/notes/x to
    refs/notes/x)?"""
    dst = dst.lstrip("+")
    if dst.startswith(("refs/notes", "notes/")) or "refs/notes/" in dst:
        return True
    if "*" in dst:
        prefix = dst.split("*", 1)[0]
        return "refs/notes/".startswith(prefix) or prefix.startswith("refs/notes")
    return False


class _PushWords:
    """A push's words, read: the sources its options name, its operands (remote, refspecs), --delete."""

    __slots__ = ("deleting", "operands", "sources")

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.operands: list[Word] = []
        self.deleting = False


def push_finding(
    an: Analyzer, sub: str, rest: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], git_dir: str | None
) -> None:
    """Read a push: what it sends (a "push" finding with its sources), or why it is denied outright."""
    label = f"git {sub}"
    if dry_run(rest):  # `--dry-run`/`-n`: git reports what it would send and sends nothing
        transport = next((w.text for w in rest if w.literal and w.text.startswith(("ext::", "fd::"))), None)
        if transport:
            an.add(
                "strict", f"{label} over the {transport.split('::')[0]} transport runs a command", cmd, cwd, always=True
            )
        return
    words = _push_words(an, label, rest, cmd, cwd, git_dir)
    if words is None:
        return
    sources, operands = words.sources, words.operands
    repo = operands[0] if operands else None
    refspecs = operands[1:]
    if repo is not None and not repo.literal:
        an.add(
            "push",
            label,
            cmd,
            cwd,
            revs=None,
            unresolved=f"it pushes to a computed remote {repo.text!r}",
            git_dir=git_dir,
        )
        return
    if repo is not None and repo.text.startswith(("ext::", "fd::")):
        an.add("strict", f"{label} over the {repo.text.split('::')[0]} transport runs a command", cmd, cwd, always=True)
        return
    for spec in refspecs:
        if not spec.literal:
            an.add(
                "push", label, cmd, cwd, revs=None, unresolved=f"the refspec {spec.text!r} is computed", git_dir=git_dir
            )
            return
        text = spec.text
        if text == "tag":
            continue  # `tag <name>`: the next word is refs/tags/<name>
        if text.startswith("^"):
            continue  # a negative refspec sends nothing
        src, colon, dst = text.lstrip("+").partition(":")
        if colon and dest_may_be_notes(dst):
            an.add("note", f"{label} into {dst}", cmd, cwd)
            return
        if (colon and not src) or words.deleting:
            continue  # `:dst` (or --delete) deletes dst: it sends no commit
        previous = refspecs[refspecs.index(spec) - 1].text if refspecs.index(spec) > 0 else ""
        sources.append(f"refs/tags/{src}" if previous == "tag" else src)
    if not refspecs and ALL_BRANCHES not in sources and ALL_TAGS not in sources:
        configured = _configured(an, repo.text if repo else "", cwd, env, git_dir)
        if configured == MIRROR:
            an.add(
                "push",
                f"{label} (to a remote configured as a mirror)",
                cmd,
                cwd,
                revs=None,
                unresolved="remote.<name>.mirror makes it send every ref, the hallmark notes included",
                git_dir=git_dir,
            )
            return
        sources.append(configured)
    an.add("push", label, cmd, cwd, revs=sources, git_dir=git_dir)


def dry_run(rest: list[Word]) -> bool:
    """Does this push only pretend (`--dry-run`, `-n` in a cluster of short options; the last of
    `--dry-run`/`--no-dry-run` wins)? A computed word may be `--no-dry-run`: then it is not."""
    dry = False
    for index, word in enumerate(rest):
        if not word.literal:
            return False
        text = word.text
        if text == "--":
            break
        before = rest[index - 1].text if index else ""
        if before == "-o" or (before in PUSH_VALUE and before not in PUSH_FLAGS_NEED_EQ):
            continue  # the value of the option before it
        if text == "--dry-run":
            dry = True
        elif text == "--no-dry-run":
            dry = False
        elif text.startswith("-") and not text.startswith("--") and len(text) > 1:
            dry = dry or "n" in text[1:].split("o", 1)[0]
    return dry


def _push_words(
    an: Analyzer, label: str, rest: list[Word], cmd: Command, cwd: str | None, git_dir: str | None
) -> _PushWords | None:
    """The push's options and operands; None when an option alone decides it (recorded in an)."""
    words = _PushWords()
    i = 0
    while i < len(rest):
        word = rest[i]
        text = word.text
        if not word.literal:
            words.operands.append(word)
            i += 1
            continue
        if text == "--":
            words.operands += rest[i + 1 :]
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if not _long_option(an, label, words, name, eq, value, cmd, cwd, git_dir):
                return None
            i += 2 if (name in PUSH_VALUE and not eq and name not in PUSH_FLAGS_NEED_EQ) else 1
            continue
        if text.startswith("-") and len(text) > 1:
            letters = text[1:]
            words.deleting = words.deleting or "d" in letters.split("o", 1)[0]
            # -o <option>: its value is the rest of the cluster, or the next word when o ends it
            i += 2 if "o" in letters and letters.endswith("o") else 1
            continue
        words.operands.append(word)
        i += 1
    return words


def _long_option(
    an: Analyzer,
    label: str,
    words: _PushWords,
    name: str,
    eq: str,
    value: str,
    cmd: Command,
    cwd: str | None,
    git_dir: str | None,
) -> bool:
    """One `--option[=value]` of a push; False when it decides the push on its own (recorded in an)."""
    if name == "--delete":
        words.deleting = True
    elif name in ("--all", "--branches"):
        words.sources.append(ALL_BRANCHES)
    elif name == "--tags":
        words.sources.append(ALL_TAGS)
    elif name == "--mirror":
        an.add(
            "push",
            f"{label} --mirror",
            cmd,
            cwd,
            revs=None,
            unresolved="--mirror sends every ref, the hallmark notes included",
            git_dir=git_dir,
        )
        return False
    elif name == "--no-verify":
        an.add("strict", f"{label} --no-verify skips git's pre-push wall", cmd, cwd, always=True)
        return False
    elif name == "--recurse-submodules" and value not in ("", "no", "check"):
        an.add("strict", f"{label} {name}={value} pushes the submodules too", cmd, cwd, always=True)
        return False
    elif name == "--repo" and eq:
        words.operands.insert(0, Word(value))
    return True


def _configured(an: Analyzer, remote: str, cwd: str | None, env: dict[str, str], git_dir: str | None) -> str:
    """What `git push [<remote>]` with no refspec sends: HEAD, unless push.default is matching or the
    remote has push refspecs, when it is (at most) every branch; MIRROR when the remote (any remote,
    when none is named) is configured as a mirror."""
    from .run import capture

    where = cwd or an.ctx.cwd
    base = ["git", "--git-dir", git_dir] if git_dir else ["git", "-C", where]
    try:
        proc = capture(
            [
                *base,
                "config",
                "--get-regexp",
                r"^(push\.default|remote\..*\.(push|mirror)|remote\.pushdefault|branch\..*\.(pushremote|remote))$",
            ],
            env=_probe_env(env),
        )
    except OSError:
        return ALL_BRANCHES
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    # with no remote named, git pushes to a branch's pushRemote, remote.pushDefault, its remote or
    # origin: each of those a branch may use counts
    defaults = {"origin"} | {
        line.partition(" ")[2].strip().lower()
        for line in lines
        if line.lower().startswith(("remote.pushdefault ", "branch.")) and not line.lower().startswith("branch.*")
    }
    wanted = {remote.lower()} if remote else defaults
    for line in lines:
        key, _, value = line.partition(" ")
        name = key[len("remote.") : -len(".mirror")].lower() if key.startswith("remote.") else ""
        if key.endswith(".mirror") and value.strip().lower() not in ("false", "no", "off", "0") and name in wanted:
            return MIRROR
    for line in lines:
        key, _, value = line.partition(" ")
        if key == "push.default" and value.strip() == "matching":
            return ALL_BRANCHES
        if key.endswith(".push") and (not remote or key == f"remote.{remote}.push"):
            return ALL_BRANCHES
    return "HEAD"


def _probe_env(env: dict[str, str]) -> dict[str, str]:
    from .git_hooks import probe_env

    return probe_env(env)


def resolve(where: str, sources: list[str], git_dir: str | None) -> tuple[list[str], str | None]:
    """The commits the sources name: (revs, None), or ([], why they cannot be known)."""
    revs: list[str] = []
    patterns: list[str] = []
    for source in sources:
        if source == ALL_BRANCHES:
            patterns.append("refs/heads/")
        elif source == ALL_TAGS:
            patterns.append("refs/tags/")
        elif "*" in source:
            patterns.append(source if source.startswith("refs/") else f"refs/heads/{source}")
        elif source == UNKNOWN:
            return [], "it sends what the gate cannot see"
        else:
            revs.append(source)
    if patterns:
        from .hallmark import _git

        proc = _git(where, ["for-each-ref", "--format=%(objectname)", "--end-of-options", *patterns], git_dir)
        if proc.returncode != 0:
            return [], f"git cannot list {' '.join(patterns)}"
        revs += proc.stdout.decode().split()
    return revs, None


def _moves_base(an: Analyzer, sub: str, operands: list[Word], cmd: Command, cwd: str | None) -> bool:
    """A fetch whose refspec writes the base branch (`git fetch . work:main`): a "state" finding,
    unless it takes the base from a remote by name (`git fetch origin main:main`)."""
    base = an.ctx.base
    if not base:
        return False
    named_remote = bool(operands) and not any(ch in operands[0].text for ch in "/:.")
    for spec in operands[1:]:
        src, colon, dst = spec.text.lstrip("+").partition(":")
        if colon and dst in (base, f"refs/heads/{base}") and not (named_remote and src in (base, f"refs/heads/{base}")):
            an.add(
                "state",
                f"git {sub} {spec.text} moves the base branch {base} (it moves only when a person merges "
                "hallmarked work); fetch into a branch of your own",
                cmd,
                cwd,
            )
            return True
    return False


def _fetch_operands(an: Analyzer, sub: str, rest: list[Word], cmd: Command, cwd: str | None) -> list[Word] | None:
    """A fetch's operands (the repository, then its refspecs), options and their values left out;
    None when a computed word or a `--refmap` into the notes decides it (recorded in an)."""
    from .git_options import takes_value

    operands: list[Word] = []
    skip = False
    for word in rest:
        if skip:
            skip = False
            continue
        if not word.literal:
            an.add("note", f"git {sub} with a computed refspec (it may write refs/notes)", cmd, cwd)
            return None
        text = word.text
        if text.startswith("--refmap=") and dest_may_be_notes(text.partition(":")[2]):
            an.add("note", f"git {sub} {text}", cmd, cwd)
            return None
        if text in ("-j", "-o", "-s", "-X") or (
            text.startswith("--") and "=" not in text and takes_value(sub, text[2:])
        ):
            skip = True  # the option's value is the next word
            continue
        if not text.startswith("-"):
            operands.append(word)
    return operands


def fetch_into_notes(
    an: Analyzer,
    sub: str,
    rest: list[Word],
    cmd: Command,
    cwd: str | None,
    env: dict[str, str],
    git_dir: str | None = None,
) -> None:
    """A fetch or pull whose refspec (given, `--refmap`, or configured for the remote) writes
    refs/notes/; and one run by another repository from this one's checkouts (fetch_from.py)."""
    from .fetch_from import taken_from_here

    operands = _fetch_operands(an, sub, rest, cmd, cwd)
    if operands is None:
        return
    if taken_from_here(an, sub, operands, cmd, cwd, env, git_dir):
        return
    if _moves_base(an, sub, operands, cmd, cwd):
        return
    for spec in operands[1:]:
        _src, colon, dst = spec.text.lstrip("+").partition(":")
        if colon and dest_may_be_notes(dst):
            an.add("note", f"git {sub} into {dst}", cmd, cwd)
            return
    if len(operands) <= 1:
        from .run import capture

        where = cwd or an.ctx.cwd
        if not os.path.isdir(where):
            return
        try:
            proc = capture(["git", "-C", where, "config", "--get-regexp", r"^remote\..*\.fetch$"], env=_probe_env(env))
        except OSError:
            return
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            _, _, value = line.partition(" ")
            if dest_may_be_notes(value.partition(":")[2]):
                an.add("note", f"git {sub} (a configured fetch refspec writes {value.partition(':')[2]})", cmd, cwd)
                return
