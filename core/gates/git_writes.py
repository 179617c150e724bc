"""Files and refs git itself writes for a command: the work tree a checkout fills, the index a
commit will take, and the base branch.

- A command that writes the work tree (`checkout`, `restore`, `reset`, `read-tree -u`,
  `checkout-index` …) writes every path it names under the work tree, and with `--work-tree=<dir>`
  (or GIT_WORK_TREE) under that directory: `git --work-tree=.git/hooks checkout x -- post-commit`
  writes a hook, `git checkout other -- .hallmark.toml` in the main checkout rewrites the gates'
  configuration. Each is checked like any other write (writes.py, protected.py).
- A command that changes the index makes what a later `git commit` in the same line takes unknown
  (a "stage" finding the commit gate reads as "cannot know").
- The base branch moves only through a person's merge of hallmarked work: `update-ref`,
  `symbolic-ref`, `branch -f/-m/-c`, and `reset`/`merge`/`pull`/`rebase`/`cherry-pick`/`revert`/`am`
  in a checkout on the base are "state" findings.
"""

from __future__ import annotations

import os

from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .git_subs import GitCall
    from .push import Analyzer

# subcommands that write files of the work tree
WRITES_TREE = frozenset(
    {
        "checkout",
        "restore",
        "switch",
        "reset",
        "read-tree",
        "checkout-index",
        "merge",
        "pull",
        "stash",
        "cherry-pick",
        "revert",
        "am",
        "apply",
        "rebase",
        "clean",
        "rm",
        "mv",
        "sparse-checkout",
        "bisect",
    }
)
# subcommands whose operands are paths they write (the first may be a tree-ish: checked as a path too)
NAMES_PATHS = frozenset({"checkout", "restore", "checkout-index", "reset"})
# subcommands that change the index without staging files the commit gate can name
CHANGES_INDEX = frozenset(
    {
        "read-tree",
        "update-index",
        "apply",
        "checkout",
        "restore",
        "reset",
        "stash",
        "cherry-pick",
        "revert",
        "merge",
        "am",
    }
)
# subcommands that move the branch checked out where they run
MOVES_HEAD = frozenset({"reset", "merge", "pull", "rebase", "cherry-pick", "revert", "am"})
_SHORT_WITH_VALUE = {"checkout": "bB", "restore": "s", "reset": "", "checkout-index": "", "apply": "pC"}


def _work_tree(call: GitCall) -> str | None:
    """The work tree named for this call (`--work-tree`, GIT_WORK_TREE), as a path; None if none."""
    given = call.env.get("GIT_WORK_TREE")
    if not given or given == UNKNOWN:
        return None
    if os.path.isabs(given):
        return os.path.normpath(given)
    return os.path.normpath(os.path.join(call.cwd, given)) if call.cwd else None


def _paths(call: GitCall) -> list[str]:
    from .git_subs import _operands

    return _operands(call, _SHORT_WITH_VALUE.get(call.sub, ""))


def check(an: Analyzer, call: GitCall) -> None:
    """What this git call writes in the work tree, the index and the base branch."""
    sub = call.sub
    tree = _work_tree(call)
    source = call.cmd.source
    if sub in WRITES_TREE or sub in NAMES_PATHS:
        base = tree or call.cwd
        named = _paths(call) if sub in NAMES_PATHS else []
        for value in call.option_values(("--prefix",), "--prefix="):  # checkout-index --prefix=.git/hooks/
            if sub == "checkout-index":
                an.write(Word(os.path.join(base or "", value.text), value.literal), base, source)
        if base is not None:
            for path in named:
                _pathspec(an, call, base, path)
            if tree is not None and not named:
                from .writes import check as check_write

                check_write(an, Word(tree), call.cwd, source, recursive=True)
    if sub in CHANGES_INDEX:
        an.add("stage", f"git {sub}", call.cmd, call.cwd, args=["-A"])
    _base_moves(an, call)


def _pathspec(an: Analyzer, call: GitCall, root: str, spec: str) -> None:
    """A pathspec whose files the command writes under root: a path is a write to it, a directory
    (`.`) or a pattern (`*.toml`, pathspec magic `:/`) writes every protected file it holds or matches."""
    import fnmatch

    from hallmark.core.item_lookup import within

    from .protected import protected_roots

    whole = spec.startswith(":")  # `:/`, `:(top)…`: read as the whole tree
    pattern = not whole and any(ch in spec for ch in "*?[")
    path = os.path.normpath(os.path.join(root, "." if whole else spec))
    if not pattern:
        an.write(Word(path), root, call.cmd.source)
    if not (whole or pattern or os.path.isdir(path)):
        return
    top = os.path.realpath(root if pattern else path)
    for protected, why in protected_roots(an.ctx.paths):
        if protected == top or not within(protected, top):
            continue
        if pattern and not fnmatch.fnmatchcase(os.path.relpath(protected, top), spec):
            continue
        an.add("state", f"git {call.sub} {spec} writes {protected} ({why})", call.cmd, call.cwd)
        return


def _head_branch(where: str | None, git_dir: str | None) -> str | None:
    """The branch HEAD names where the command runs (refs/heads/x), or None (detached, unknown)."""
    if where is None and git_dir is None:
        return None
    from .git_hooks import probe_env
    from .run import capture

    base = ["git", "--git-dir", git_dir] if git_dir else ["git", "-C", where or "."]
    try:
        proc = capture([*base, "symbolic-ref", "-q", "HEAD"], env=probe_env({}))
    except OSError:
        return None
    return proc.stdout.decode("utf-8", "replace").strip() or None if proc.returncode == 0 else None


def _moves(call: GitCall, base: str) -> bool:
    """Does the command move the branch to something other than the remote's base? A reset that
    names only paths, `git pull` (the remote's base), `git pull origin <base>`, `git merge
    origin/<base>` or `git reset --hard origin/<base>` do not."""
    operands = _paths(call)
    if call.sub == "reset" and "--" in call.lits:
        operands = operands[: len(operands) - len(call.lits[call.lits.index("--") + 1 :])]
    if call.sub == "pull":  # from a remote by name only: a path may be any repository the agent filled
        return (bool(operands) and ("/" in operands[0] or ":" in operands[0] or operands[0] == ".")) or any(
            op.lstrip("+").partition(":")[0] not in _remote_base(base, "") for op in operands[1:]
        )
    if call.sub == "reset":
        where = call.cwd or "."
        operands = [op for op in operands if op != "HEAD" and not os.path.lexists(os.path.join(where, op))]
        return any(not _is_remote_base(op, base) for op in operands)
    if call.sub in ("merge", "rebase"):  # with no operand: the branch's upstream, the remote's base
        return any(not _is_remote_base(op, base) for op in operands)
    return True


def _remote_base(base: str, remote: str) -> set[str]:
    return {base, f"refs/heads/{base}"} if not remote else {f"{remote}/{base}", f"refs/remotes/{remote}/{base}"}


def _is_remote_base(name: str, base: str) -> bool:
    """`origin/main`, `refs/remotes/upstream/main`: the base as a remote has it (what a person trusts)."""
    head, _, tail = name.removeprefix("refs/remotes/").rpartition("/")
    return bool(head) and "/" not in head and tail == base


def _base_moves(an: Analyzer, call: GitCall) -> None:
    base = an.ctx.base
    if not base or an.ctx.paths is None:
        return
    ref = f"refs/heads/{base}"
    sub, positional = call.sub, call.positional
    names: list[str] = []
    if sub in ("update-ref", "symbolic-ref") and "--stdin" not in call.lits:
        if sub == "symbolic-ref" and len(positional) < 2:
            return  # reading (or deleting with -d, which the ref's reflog keeps)
        names = positional[:1]
    elif sub == "branch" and {"-f", "--force", "-m", "-M", "-c", "-C", "--move", "--copy"} & set(call.lits):
        names = positional
    elif sub in ("checkout", "switch", "worktree"):  # -B/-C/--force-create <name>: the branch reset to a commit
        flags = ("-B",) if sub != "switch" else ("-C", "--force-create")
        names = [w.text for w in call.option_values(flags, "--force-create=") if w.literal]
    elif sub in MOVES_HEAD:
        if {"--abort", "--quit"} & set(call.lits) or not _moves(call, base):
            return
        names = ["HEAD"]
    if not names:
        return
    for name in names:
        moved = name in (ref, base)
        if name == "HEAD" and os.path.isdir(call.cwd or ""):
            moved = _head_branch(call.cwd, call.git_dir) == ref
        if moved:
            an.add(
                "state",
                f"git {sub} moves the base branch {base} (it moves only when a person merges "
                "hallmarked work); work on the item's branch in its worktree",
                call.cmd,
                call.cwd,
            )
            return
