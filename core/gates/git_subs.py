"""What one git subcommand does that the push gate cares about, once run_git (git_cmds.py) has read
git's global options and aliases: the hooks it may run, whether it moves refs, what it pushes,
which notes refs it writes, which paths it writes and which shell code it runs. One handler per
subcommand, looked up in a table; a subcommand with no handler only runs its hooks. Each handler
decides what a computed word means for it. Its long options are first written out in full as git's
parse-options reads them (`--al` is `--all`: git_options.py), and `--help` among them runs nothing;
what a subcommand writes in the work tree, the index and the base branch is git_writes.py's."""

from __future__ import annotations

import os
from collections.abc import Callable

from . import git_config
from .git_hooks import git_hooks
from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

NOTE_WRITES = frozenset({"add", "append", "edit", "copy", "remove", "merge", "prune"})
HELP_FLAGS = frozenset({"-h", "--help"})
# subcommands that only read: they run no hook (every other one may, see githooks(5))
READ_ONLY = frozenset(
    {
        "log",
        "show",
        "diff",
        "diff-files",
        "diff-index",
        "diff-tree",
        "blame",
        "annotate",
        "grep",
        "ls-files",
        "ls-tree",
        "ls-remote",
        "rev-parse",
        "rev-list",
        "cat-file",
        "describe",
        "shortlog",
        "show-ref",
        "for-each-ref",
        "help",
        "version",
        "var",
        "check-ignore",
        "check-attr",
        "check-ref-format",
        "name-rev",
        "merge-base",
        "whatchanged",
        "show-branch",
        "cherry",
        "count-objects",
        "verify-commit",
        "verify-tag",
        "format-patch",
        "range-diff",
        "patch-id",
        "column",
        "stripspace",
        "interpret-trailers",
        "bugreport",
        "diagnose",
        "archive",
    }
)
# subcommands that write or send refs but are not counted as moving the item's own refs here
_NOT_MOVING = frozenset({"push", "send-pack", "http-push", "status", "config", "remote", "help", "notes", "stash"})
# options whose value git runs as a command (for local and ssh transports)
COMMAND_OPTIONS = {
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "clone": ("--upload-pack", "-u"),
    "ls-remote": ("--upload-pack",),
    "archive": ("--exec",),
    "fetch-pack": ("--upload-pack",),
}
# subcommands git_writes.py reads for the work tree, the index and the base branch they write
WRITES_FILES_OR_REFS = frozenset(
    """
checkout restore switch reset read-tree checkout-index merge pull stash cherry-pick revert am apply rebase
clean rm mv sparse-checkout bisect update-index update-ref symbolic-ref branch worktree
""".split()
)
# bridges to other systems whose one word sends the commits: `git svn dcommit`, `git p4 submit`
_BRIDGE_PUSH = {"svn": "dcommit", "p4": "submit", "lfs": "push"}


class GitCall:
    """One git subcommand and its words, as every handler reads them."""

    __slots__ = ("cmd", "cwd", "env", "git_dir", "lits", "positional", "rest", "sub")

    def __init__(
        self, sub: str, rest: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], git_dir: str | None
    ) -> None:
        self.sub, self.rest, self.cmd, self.cwd, self.env, self.git_dir = sub, rest, cmd, cwd, env, git_dir
        self.lits = [w.text for w in rest]
        self.positional = [text for text in self.lits if not text.startswith("-")]

    def computed(self) -> bool:
        return any(not w.literal for w in self.rest)

    def option_values(self, names: tuple[str, ...], prefix: str = "") -> list[Word]:
        """The values given to these options (`-x cmd`, `--exec=cmd` when prefix is `--exec=`)."""
        found: list[Word] = []
        for index, word in enumerate(self.rest):
            if word.text in names and index + 1 < len(self.rest):
                found.append(self.rest[index + 1])
            elif prefix and word.text.startswith(prefix):
                found.append(Word(word.text.split("=", 1)[1], word.literal))
        return found


def git_sub(
    an: Analyzer,
    sub: str,
    rest: list[Word],
    cmd: Command,
    cwd: str | None,
    env: dict[str, str],
    git_dir: str | None = None,
) -> None:
    call = GitCall(sub, spelled_out(sub, rest), cmd, cwd, env, git_dir)
    if (call.lits[:1] and call.lits[0] in HELP_FLAGS) or asks_help(sub, call.lits):
        return  # `--help` among the options shows the manual; nothing runs
    for option in COMMAND_OPTIONS.get(sub, ()):
        for value in call.option_values((option,), option + "="):
            an.shell_string(value, cmd, cwd)
    if sub not in READ_ONLY:
        git_hooks(an, sub, call.lits, cmd, cwd)
    handler = _HANDLERS.get(sub)
    if handler is not None:
        handler(an, call)
    if sub in WRITES_FILES_OR_REFS:
        from .git_writes import check

        check(an, call)
    if sub not in READ_ONLY and (
        sub not in _NOT_MOVING or (sub == "stash" and call.positional[:1] in (["pop"], ["apply"]))
    ):
        an.moves_refs()  # after its own findings: a fetch read as a push is judged before it moves refs


def asks_help(sub: str, lits: list[str]) -> bool:
    """`--help` as an option (before `--`, and not the value of the option before it: `-m --help`
    is a message), which makes parse-options print the usage and stop."""
    if "--help" not in lits:
        return False
    from .git_options import takes_value

    for index, text in enumerate(lits):
        if text == "--":
            return False
        if text != "--help":
            continue
        before = lits[index - 1] if index else ""
        if before.startswith("-") and not before.startswith("--") and len(before) > 1:
            continue  # a short option's value, perhaps (`-m --help`)
        if before.startswith("--") and "=" not in before and takes_value(sub, before[2:]):
            continue
        return True
    return False


def spelled_out(sub: str, rest: list[Word]) -> list[Word]:
    """The words with every abbreviated long option written out, as git's parse-options reads them
    (`--al` is `--all`, `--no-verif` is `--no-verify`); `--` ends the options. A verb's own options
    (`remote add --mirr`) are read with that verb's table."""
    if not any(w.literal and w.text.startswith("--") and len(w.text) > 2 for w in rest):
        return rest  # no long option: nothing to spell out (and git's tables stay unread)
    from .git_options import canonical, table

    out: list[Word] = []
    key = sub
    for index, word in enumerate(rest):
        if not word.literal:
            out.append(word)
            continue
        text = word.text
        if text == "--":
            return out + list(rest[index:])
        if not text.startswith("-") and key == sub and table(f"{sub} {text}") is not None:
            key = f"{sub} {text}"
        spelled = canonical(key, text)
        out.append(word if spelled == text else Word(spelled))
    return out


def first_positional(words: list[Word], with_value: set[str]) -> str | None:
    i = 0
    while i < len(words):
        text = words[i].text
        if text in with_value:
            i += 2
            continue
        if text == "--":
            return words[i + 1].text if i + 1 < len(words) else None
        if not text.startswith("-"):
            return text
        i += 1
    return None


# -- what a subcommand sends ------------------------------------------------------------------------


def _push(an: Analyzer, call: GitCall) -> None:
    from .refspecs import push_finding

    push_finding(an, call.sub, call.rest, call.cmd, call.cwd, call.env, call.git_dir)


def _subtree(an: Analyzer, call: GitCall) -> None:
    first = first_positional(call.rest, {"-P", "--prefix", "-m", "--message", "--onto", "-b", "--branch", "--annotate"})
    if first == "push":
        an.add("push", "git subtree push", call.cmd, call.cwd, revs=None, git_dir=call.git_dir)


def _bridge(an: Analyzer, call: GitCall) -> None:
    if call.positional[:1] == [_BRIDGE_PUSH[call.sub]]:
        an.add("push", f"git {call.sub} {call.positional[0]}", call.cmd, call.cwd, git_dir=call.git_dir)


def _fetch(an: Analyzer, call: GitCall) -> None:
    from .refspecs import fetch_into_notes

    fetch_into_notes(an, call.sub, call.rest, call.cmd, call.cwd, call.env, call.git_dir)


# -- the notes refs ---------------------------------------------------------------------------------


def _notes(an: Analyzer, call: GitCall) -> None:
    action = first_positional(call.rest, {"--ref"})
    if action in NOTE_WRITES or call.computed():
        an.add("note", f"git notes {action or '(computed)'}", call.cmd, call.cwd)


def _update_ref(an: Analyzer, call: GitCall) -> None:
    if "--stdin" in call.lits:
        an.add("note", "git update-ref --stdin (cannot see which refs)", call.cmd, call.cwd)
    elif call.computed():
        an.add("note", "git update-ref on a computed ref", call.cmd, call.cwd)
    else:
        ref = first_positional(call.rest, {"-m"})
        if ref and "notes" in ref:
            an.add("note", f"git update-ref {ref}", call.cmd, call.cwd)


def _symbolic_ref(an: Analyzer, call: GitCall) -> None:
    if call.computed() or any("notes" in text for text in call.positional):
        an.add("note", "git symbolic-ref to a notes ref", call.cmd, call.cwd)


def _writes_any_ref(an: Analyzer, call: GitCall) -> None:
    """fast-import and replace (but not `git replace --list`)."""
    lits = set(call.lits)
    if (
        call.sub == "replace"
        and lits & {"-l", "--list", "--format"}
        and not lits & {"-f", "--edit", "-e", "--graft", "-d"}
    ):
        return
    an.add("note", f"git {call.sub} (writes any ref or object it is given)", call.cmd, call.cwd)


def _filter_branch(an: Analyzer, call: GitCall) -> None:
    if "--all" in call.lits or any("notes" in text for text in call.lits):
        an.add("note", "git filter-branch over the notes refs", call.cmd, call.cwd)
    for index, word in enumerate(call.rest):
        if word.text.endswith("-filter") and word.text.startswith("--") and index + 1 < len(call.rest):
            an.shell_string(call.rest[index + 1], call.cmd, call.cwd)


def _remote(an: Analyzer, call: GitCall) -> None:
    """`remote add --mirror[=push|fetch]` and `remote set-url --push`: every later push (or fetch) of
    that remote would send (or take) every ref, or go where the gate does not look."""
    verb = call.positional[:1]
    if verb == ["add"] and len(call.positional) >= 3 and (call.git_dir or call.cwd):
        # remembered for a fetch later in the same command (fetch_from.py reads the rest from git)
        where = os.path.realpath(call.git_dir or call.cwd or ".")
        an.remote_urls[(where, call.positional[1].lower())] = call.positional[2]
    if call.computed() and verb in ([], ["add"], ["set-url"]):
        an.add("strict", "git remote with computed words", call.cmd, call.cwd, always=True)
    elif verb == ["add"] and any(text == "--mirror" or text.startswith("--mirror=") for text in call.lits):
        an.add(
            "strict",
            "git remote add --mirror (a mirror remote pushes or fetches every ref, the hallmark notes "
            "included); add the remote without --mirror",
            call.cmd,
            call.cwd,
            always=True,
        )
    elif verb == ["set-url"] and "--push" in call.lits:
        an.add(
            "strict",
            "git remote set-url --push (a push URL of its own sends pushes where the gate does not look); "
            "set the remote's URL without --push",
            call.cmd,
            call.cwd,
            always=True,
        )


def _config(an: Analyzer, call: GitCall) -> None:
    git_config.config_write(an, call.rest, call.cmd, call.cwd)


# -- commits, the index and the paths a subcommand writes ------------------------------------------


def _commit(an: Analyzer, call: GitCall) -> None:
    an.add("commit", "git commit", call.cmd, call.cwd, args=call.lits)
    if call.env.get("GIT_INDEX_FILE"):  # another index: what it commits is not what the gate reads
        an.add("stage", "git commit with GIT_INDEX_FILE", call.cmd, call.cwd, args=["-A"])


def _stage(an: Analyzer, call: GitCall) -> None:
    an.add("stage", f"git {call.sub}", call.cmd, call.cwd, args=["-A"] if call.computed() else call.lits)


def _makes_repository(an: Analyzer, call: GitCall) -> None:
    """clone, init, worktree: the directory they make (and --separate-git-dir, --template)."""
    sub, positional = call.sub, call.positional
    if sub == "clone":
        from .fetch_from import cloned_from_here

        positional = _operands(call, "bcouj")
        cloned_from_here(an, positional, call.cmd, call.cwd)
    if sub == "init" and any(t == "--template" or t.startswith("--template=") for t in call.lits):
        from .fetch_from import ours

        named = _operands(call, "")[-1:] or ["."]
        where = os.path.realpath(os.path.join(call.cwd or an.ctx.cwd, call.git_dir or named[0]))
        if ours(an, where) is not None:
            an.add(
                "state",
                "git init --template copies a template's hooks into this repository's git directory "
                "(they would run on the next commit); run git init without --template",
                call.cmd,
                call.cwd,
            )
    if sub == "worktree":
        targets = positional[1:2] if positional[:1] == ["add"] else positional
    else:
        targets = (positional[1:] if sub == "clone" else positional)[-1:]
    for target in targets:
        an.write(Word(target), call.cwd, call.cmd.source)
    for value in call.option_values(("--separate-git-dir",), "--separate-git-dir="):
        an.write(value, call.cwd, call.cmd.source)


def _operands(call: GitCall, short_with_value: str) -> list[str]:
    """The subcommand's operands: options and their values left out (the long ones from git's
    table, the short ones named here); everything after `--`."""
    from .git_options import takes_value

    found: list[str] = []
    i = 0
    lits = call.lits
    while i < len(lits):
        text = lits[i]
        if text == "--":
            return found + lits[i + 1 :]
        if text.startswith("--"):
            i += 2 if "=" not in text and takes_value(call.sub, text[2:]) else 1
            continue
        if text.startswith("-") and len(text) > 1:
            i += 2 if text[-1] in short_with_value else 1
            continue
        found.append(text)
        i += 1
    return found


# -- shell code a subcommand runs ------------------------------------------------------------------


def _rebase(an: Analyzer, call: GitCall) -> None:
    for index, word in enumerate(call.rest):
        if word.text in ("-x", "--exec") and index + 1 < len(call.rest):
            an.shell_string(call.rest[index + 1], call.cmd, call.cwd)
        elif word.text.startswith("--exec="):
            an.shell_string(Word(word.text.split("=", 1)[1], word.literal), call.cmd, call.cwd)
        elif word.text.startswith("-x") and len(word.text) > 2:
            an.shell_string(Word(word.text[2:], word.literal), call.cmd, call.cwd)


def _bisect(an: Analyzer, call: GitCall) -> None:
    if call.positional[:1] == ["run"]:
        index = next(k for k, w in enumerate(call.rest) if w.text == "run")
        if index + 1 < len(call.rest):
            an.exec(list(call.rest[index + 1 :]), call.cmd, call.cwd, dict(call.env), None)


def _without_options(words: list[Word]) -> list[Word]:
    while words and words[0].text.startswith("-"):
        words = words[1:]
    return words


def _submodule(an: Analyzer, call: GitCall) -> None:
    words = _without_options(list(call.rest))
    if not words or words[0].text != "foreach":
        return
    words = _without_options(words[1:])
    if not words:
        return
    if all(w.literal for w in words):
        an.nested(" ".join(w.text for w in words), call.cmd, call.cwd)
    else:
        an.add("strict", "submodule foreach with a computed command", call.cmd, call.cwd, always=True)


def _difftool(an: Analyzer, call: GitCall) -> None:
    for value in call.option_values(("-x", "--extcmd"), "--extcmd="):
        an.shell_string(value, call.cmd, call.cwd)


_HANDLERS: dict[str, Callable[[Analyzer, GitCall], None]] = {
    "push": _push,
    "send-pack": _push,
    "http-push": _push,
    "subtree": _subtree,
    "svn": _bridge,
    "p4": _bridge,
    "lfs": _bridge,
    "fetch": _fetch,
    "pull": _fetch,
    "notes": _notes,
    "update-ref": _update_ref,
    "symbolic-ref": _symbolic_ref,
    "fast-import": _writes_any_ref,
    "replace": _writes_any_ref,
    "filter-branch": _filter_branch,
    "config": _config,
    "remote": _remote,
    "commit": _commit,
    "add": _stage,
    "rm": _stage,
    "mv": _stage,
    "stage": _stage,
    "clone": _makes_repository,
    "init": _makes_repository,
    "worktree": _makes_repository,
    "rebase": _rebase,
    "bisect": _bisect,
    "submodule": _submodule,
    "difftool": _difftool,
    "mergetool": _difftool,
}
