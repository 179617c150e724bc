"""What a Bash command would do to the outside world: publish, write hallmark notes, commit.

`analyze(command, ctx)` walks every simple command bash could run (shell.py), unwraps the
wrappers people put in front (env, sudo, timeout, xargs, sh -c, eval, …), follows git's global
options and aliases (inline `-c alias.x=…` and those in git config, `!` shell aliases included)
and the commands git runs itself (rebase -x, bisect run, submodule foreach, filter-branch), and
the targets build runners run (make, just, npm/pnpm/yarn/bun scripts: read by scripts.py), and
reports findings:

- "push": a way to publish (git push/send-pack/http-push, subtree push, gh pr create|merge, a gh
  api write to pulls/refs/merges/contents, the configured ship command, …)
- "note": a write to git notes or to a notes ref
- "commit": a git commit (the edit gate decides where it runs)
- "strict": something that might publish but cannot be followed (unknown git subcommand, a gh
  command that changes GitHub, a computed command word, a script mentioning push or release,
  a parse error, an over-long command). Strict mode denies these inside an item's worktree.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import shell
from .shell import UNKNOWN, Command, Problem, Word

RUNNERS = frozenset({"make", "gmake", "just", "npm", "pnpm", "yarn", "bun"})  # scripts.py follows these

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# git builtins and the scripts git ships: git never lets an alias shadow these.
GIT_COMMANDS = frozenset("""
add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone
column commit commit-graph commit-tree config count-objects credential credential-cache
credential-store describe diagnose diff diff-files diff-index diff-tree difftool fast-export
fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects
fsmonitor--daemon gc get-tar-commit-id grep hash-object help hook index-pack init init-db
interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
merge-base merge-file merge-index merge-ours merge-recursive merge-subtree merge-tree mktag mktree
multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed
pull push range-diff read-tree rebase receive-pack reflog refs remote repack replace replay repo
rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index
show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag
unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack
var verify-commit verify-pack verify-tag version whatchanged worktree write-tree
subtree svn p4 request-pull send-email instaweb filter-branch mergetool quiltimport citool gui gitk
http-push http-fetch imap-send cvsimport cvsserver cvsexportcommit archimport shell web--browse
difftool--helper sh-setup lfs
""".split())

NOTE_WRITES = frozenset({"add", "append", "edit", "copy", "remove", "merge", "prune"})
GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                                   "--super-prefix", "--exec-path", "--attr-source", "--list-cmds"})

GH_READ = {
    "pr": {"view", "list", "status", "diff", "checks", "checkout"},
    "issue": {"view", "list", "status"},
    "repo": {"view", "list", "clone", "set-default"},
    "run": {"view", "list", "watch", "download"},
    "workflow": {"view", "list"},
    "release": {"view", "list", "download", "verify", "verify-asset"},
    "gist": {"view", "list", "clone"},
    "auth": {"status", "token", "login", "logout", "refresh", "setup-git", "switch"},
    "config": {"get", "list", "set", "clear-cache"},
    "label": {"list"},
    "cache": {"list"},
    "secret": {"list"},
    "variable": {"list", "get"},
    "ruleset": {"view", "list", "check"},
    "org": {"list"},
    "project": {"view", "list", "field-list", "item-list"},
    "codespace": {"list", "view", "logs", "ssh", "code", "cp", "jupyter", "ports"},
    "extension": {"list", "search", "browse"},
    "alias": {"list"},
    "attestation": {"verify", "download", "trusted-root"},
    "search": None,  # every subcommand reads
    "browse": None,
    "status": None,
    "help": None,
    "version": None,
    "completion": None,
}
GH_PUBLISH = {("pr", "create"), ("pr", "merge"), ("release", "create"), ("repo", "sync")}
# the client hooks each git command may run (githooks(5)); a hook that publishes makes it a push
HOOKS_RUN_BY = {
    "commit": ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite"),
    "merge": ("pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge"),
    "pull": ("pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "post-rewrite", "post-checkout"),
    "rebase": ("pre-rebase", "prepare-commit-msg", "commit-msg", "post-rewrite", "post-checkout"),
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch", "post-rewrite"),
    "cherry-pick": ("prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite"),
    "revert": ("prepare-commit-msg", "commit-msg", "post-commit"),
    "checkout": ("post-checkout",), "switch": ("post-checkout",), "worktree": ("post-checkout",),
}
# gh's own commands: `gh alias set` refuses names that shadow these, so only other words are looked up
GH_BUILTINS = frozenset(GH_READ) | {"api", "gpg-key", "ssh-key", "preview", "agent-task", "copilot", "accessibility"}
GH_API_PUSH_PATH = r"(^|/)(pulls|merges|contents|git|refs|merge)(/|$|\?)"
GH_GRAPHQL_PUSH = (r"\b(createPullRequest|mergePullRequest|enablePullRequestAutoMerge|updateRefs?|"
                             r"createRef|deleteRef|createCommitOnBranch|mergeBranch)\b")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MENTION = r"(?i)\b(push|release)\b"  # patterns stay strings: re caches them on first use
INTERPRETERS = frozenset({"python", "python3", "python2", "node", "ruby", "perl", "php", "deno", "bun",
                          "pwsh", "powershell", "tclsh", "lua", "Rscript", "osascript"})
SCRIPT_LIMIT = 262_144
HELP_FLAGS = frozenset({"-h", "--help"})


class Finding:
    __slots__ = ("kind", "detail", "command", "cwd", "args")

    def __init__(self, kind: str, detail: str, command: str, cwd: str | None, args: list[str] | None = None):
        self.kind = kind
        self.detail = detail
        self.command = command
        self.cwd = cwd
        self.args = args or []

    def __repr__(self) -> str:
        return f"Finding({self.kind!r}, {self.detail!r})"


class Context:
    """What the analysis may consult: the payload's cwd, the ship command and git config."""

    def __init__(self, cwd: str, ship: str = "", alias_lookup: Callable[..., str | None] | None = None,
                 env: dict[str, str] | None = None, protected: list[str] | None = None) -> None:
        self.cwd = cwd
        self.protected = [os.path.realpath(p) for p in (protected or [])]  # Hallmark's state, the notes refs
        self.ship = ship
        self._ship_prefixes: list[list[str]] | None = None
        self.alias_lookup = alias_lookup or git_config_alias
        self.env = env if env is not None else dict(os.environ)
        self._gh_aliases: dict[str, str] | None = None
        self._hooks_dirs: dict[str, str | None] = {}

    def hook_files(self, cwd: str, hook: str) -> list[str]:
        """The files git would run for `hook` from cwd: <hooks dir>/<hook>, and for husky (a hooks dir
        named `_` of wrappers that source the user's hook) also <hooks dir>/../<hook>."""
        if cwd not in self._hooks_dirs:
            self._hooks_dirs[cwd] = git_hooks_dir(cwd, self.env)
        folder = self._hooks_dirs[cwd]
        if not folder:
            return []
        found = [os.path.join(folder, hook)]
        if os.path.basename(folder.rstrip("/")) == "_":
            found.append(os.path.join(os.path.dirname(folder.rstrip("/")), hook))
        return [path for path in found if os.path.isfile(path)]

    @property
    def gh_aliases(self) -> dict[str, str]:
        """`gh alias set` aliases from gh's config.yml, read on first need (most commands never ask)."""
        if self._gh_aliases is None:
            self._gh_aliases = read_gh_aliases(self.env)
        return self._gh_aliases

    @property
    def ship_prefixes(self) -> list[list[str]]:
        """Parsed on first need only: most commands are git or gh and never look."""
        if self._ship_prefixes is None:
            self._ship_prefixes = ship_prefixes(self.ship) if self.ship else []
        return self._ship_prefixes


def ship_prefixes(template: str) -> list[list[str]]:
    """The literal leading words of each command in the ship template (up to a placeholder)."""
    prefixes: list[list[str]] = []

    def take(cmd: Command) -> None:
        words: list[str] = []
        for word in cmd.words:
            if not word.literal or "{" in word.text:
                break
            words.append(word.text)
        if words and words[0] not in ("git", "gh"):  # git/gh are analysed properly anyway
            prefixes.append(words)

    try:
        shell.Walker(take, lambda problem: None).source(template, None)
    except Exception:  # noqa: BLE001 - a ship template we can't read adds no prefix
        return []
    return prefixes


def analyze(text: str, ctx: Context) -> list[Finding]:
    return Analyzer(ctx).run(text)


class Analyzer:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.findings: list[Finding] = []
        self.followed: set[tuple] = set()  # runner calls already followed (make/just/npm …)
        self.walker = shell.Walker(self.command, self.problem, self.write)

    def run(self, text: str) -> list[Finding]:
        self.walker.source(text, self.ctx.cwd)
        return self.findings

    def add(self, kind: str, detail: str, cmd: Command | None, cwd: str | None = None,
            args: list[str] | None = None) -> None:
        self.findings.append(Finding(kind, detail, cmd.source if cmd else "", cwd, args))

    def problem(self, problem: Problem) -> None:
        self.findings.append(Finding("strict", f"{problem.kind.replace('_', ' ')}: {problem.detail}", problem.source,
                                     self.ctx.cwd))

    def write(self, target: Word, cwd: str | None, source: str) -> None:
        """A write to a file (redirection, tee, cp, …): into Hallmark's state it is a forgery."""
        if not self.ctx.protected:
            return
        if not target.literal:
            if ".git/" in target.text:
                self.findings.append(Finding("state", f"a write to a computed path {target.text!r}", source, cwd))
            return
        path = target.text
        if not os.path.isabs(path):
            path = os.path.join(cwd or self.ctx.cwd, path)
        try:
            real = os.path.realpath(path)
        except ValueError:  # a NUL in the name: nothing can be written there
            return
        for root in self.ctx.protected:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                self.findings.append(Finding("state", f"a write to {target.text}", source, cwd))
                return

    def nested(self, text: str, cmd: Command, cwd: str | None, stdin: str | None = None) -> None:
        self.walker.source(text, cwd, cmd.depth + 1, stdin=stdin)

    # -- one simple command -------------------------------------------------------------

    def command(self, cmd: Command) -> None:
        self.exec(cmd.words, cmd, cmd.cwd, dict(cmd.env), cmd.stdin)

    def exec(self, words: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
             stdin: str | None, depth: int = 0) -> None:
        while words:
            if depth > 20:
                self.add("strict", "too many nested wrappers", cmd, cwd)
                return
            depth += 1
            head = words[0]
            if not head.literal:
                self.add("strict", f"computed command word {head.text!r}", cmd, cwd)
                return
            raw = head.text
            name = os.path.basename(raw) if "/" in raw else raw
            rest = words[1:]
            if "=" in raw and shell._ASSIGNMENT.match(raw) and raw == head.text:
                key, _, value = raw.partition("=")
                env[key] = value
                words = rest
                continue
            unwrapped = self.unwrap(name, rest, cmd, cwd, env, stdin)
            if unwrapped is None:
                return
            if unwrapped is not False:
                words, cwd = unwrapped
                continue
            self.leaf(name, raw, rest, cmd, cwd, env, stdin)
            return

    def unwrap(self, name: str, rest: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
               stdin: str | None):
        """A wrapper's inner command as (words, cwd); None when it runs nothing; False for a leaf."""
        args = rest
        if name in ("nohup", "builtin", "chronic", "time", "!", "exec", "command", "doas", "sudo", "nice",
                    "ionice", "caffeinate", "stdbuf", "timeout", "env", "xargs", "flock", "direnv", "nix",
                    "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "unbuffer", "setsid", "taskset", "watch",
                    "find", "su", "script", "parallel"):
            return self._wrapper(name, args, cmd, cwd, env, stdin)
        return False

    def _wrapper(self, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
                 stdin: str | None):
        def lit(i: int) -> str | None:
            return args[i].text if i < len(args) and args[i].literal else None

        i = 0
        if name in ("nohup", "builtin", "chronic", "!", "unbuffer"):
            return args, cwd
        if name == "time":
            while lit(i) in ("-p", "-v", "--verbose", "--portability") or (lit(i) or "").startswith(("-o", "-f")):
                i += 2 if lit(i) in ("-o", "-f") else 1
            return args[i:], cwd
        if name == "command":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                if set(lit(i)[1:]) & {"v", "V"}:
                    return None  # command -v/-V only looks a name up
                i += 1
            if lit(i) == "--":
                i += 1
            return args[i:], cwd
        if name == "exec":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                i += 2 if lit(i) == "-a" else 1
            if lit(i) == "--":
                i += 1
            return args[i:], cwd
        if name in ("sudo", "doas"):
            with_value = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R", "--user", "--group",
                          "--chdir", "--prompt", "--role", "--type", "--host", "--other-user", "--close-from",
                          "--chroot", "--command-timeout"}
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                flag = lit(i)
                if flag in ("-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V", "--version",
                            "-h", "--help") and i + 1 >= len(args):
                    return None
                if flag in ("-D", "--chdir") and i + 1 < len(args):
                    cwd = _join(cwd, args[i + 1])
                if flag in ("-s", "-i", "--shell", "--login") and i + 1 >= len(args):
                    return None
                i += 2 if flag in with_value else 1
            if lit(i) == "--":
                i += 1
            while lit(i) and shell._ASSIGNMENT.match(lit(i)):
                key, _, value = lit(i).partition("=")
                env[key] = value
                i += 1
            return args[i:], cwd
        if name == "env":
            while i < len(args):
                flag = lit(i)
                if flag is None:
                    break
                if flag in ("-i", "--ignore-environment", "-0", "--null", "-v", "--debug") or flag == "-":
                    i += 1
                elif flag in ("-u", "--unset"):
                    i += 2
                elif flag.startswith("--unset=") or (flag.startswith("-u") and len(flag) > 2):
                    i += 1
                elif flag in ("-C", "--chdir"):
                    cwd = _join(cwd, args[i + 1]) if i + 1 < len(args) else cwd
                    i += 2
                elif flag.startswith("--chdir="):
                    cwd = _join(cwd, Word(flag.split("=", 1)[1]))
                    i += 1
                elif flag in ("-S", "--split-string") or flag.startswith(("-S", "--split-string=")):
                    if flag in ("-S", "--split-string"):
                        if i + 1 >= len(args):
                            return None
                        inner = args[i + 1]
                        i += 2
                    else:
                        inner = Word(flag[2:] if flag.startswith("-S") else flag.split("=", 1)[1], True)
                        i += 1
                    if not inner.literal:
                        self.add("strict", "env -S with a computed string", cmd, cwd)
                        return None
                    split = shell_split(inner.text)
                    if split is None:
                        self.add("strict", "env -S string cannot be split", cmd, cwd)
                        return None
                    return [Word(w) for w in split] + args[i:], cwd
                elif flag == "--":
                    i += 1
                    break
                elif shell._ASSIGNMENT.match(flag):
                    key, _, value = flag.partition("=")
                    env[key] = value
                    i += 1
                elif flag.startswith("-"):
                    i += 1
                else:
                    break
            while lit(i) and shell._ASSIGNMENT.match(lit(i)):
                key, _, value = lit(i).partition("=")
                env[key] = value
                i += 1
            return (args[i:], cwd) if i < len(args) else None
        if name == "nice":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                i += 2 if lit(i) in ("-n", "--adjustment") else 1
            if lit(i) == "--":
                i += 1
            return args[i:], cwd
        if name == "ionice":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                if lit(i) in ("-p", "--pid", "-P", "--pgid", "-u", "--uid"):
                    return None  # re-prioritises running processes
                i += 2 if lit(i) in ("-c", "--class", "-n", "--classdata") else 1
            if lit(i) == "--":
                i += 1
            return args[i:], cwd
        if name == "caffeinate":
            while (lit(i) or "").startswith("-"):
                i += 2 if lit(i) in ("-t", "-w") else 1
            return (args[i:], cwd) if i < len(args) else None
        if name == "stdbuf":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                i += 2 if lit(i) in ("-i", "-o", "-e") else 1
            if lit(i) == "--":
                i += 1
            return args[i:], cwd
        if name == "timeout":
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                i += 2 if lit(i) in ("-s", "--signal", "-k", "--kill-after") else 1
            if lit(i) == "--":
                i += 1
            return args[i + 1:], cwd  # skip the duration
        if name in ("setsid", "taskset"):
            while (lit(i) or "").startswith("-"):
                i += 1
            if name == "taskset":
                i += 1  # the mask
            return args[i:], cwd
        if name == "flock":
            while (lit(i) or "").startswith("-"):
                if lit(i) in ("-c", "--command") and i + 1 < len(args):
                    self._shell_string(args[i + 1], cmd, cwd)
                    return None
                i += 2 if lit(i) in ("-w", "--timeout", "-E", "--conflict-exit-code") else 1
            i += 1  # the lock file
            if lit(i) in ("-c", "--command") and i + 1 < len(args):
                self._shell_string(args[i + 1], cmd, cwd)
                return None
            return (args[i:], cwd) if i < len(args) else None
        if name == "xargs":
            with_value = {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P",
                          "--max-procs", "-s", "--max-chars", "--process-slot-var"}
            while (lit(i) or "").startswith("-") and lit(i) != "--":
                i += 2 if lit(i) in with_value else 1
            if lit(i) == "--":
                i += 1
            return (args[i:], cwd) if i < len(args) else None
        if name == "direnv":
            if lit(0) == "exec" and len(args) >= 2:
                return args[2:], _join(cwd, args[1])
            return None
        if name == "nix":
            for index, word in enumerate(args):
                if word.literal and word.text in ("--command", "-c"):
                    return args[index + 1:], cwd
            if lit(0) in ("develop", "shell") and any(w.literal and w.text == "--run" for w in args):
                index = next(k for k, w in enumerate(args) if w.literal and w.text == "--run")
                if index + 1 < len(args):
                    self._shell_string(args[index + 1], cmd, cwd)
                return None
            return False
        if name in ("uv", "poetry", "pipenv", "pdm", "hatch", "rye"):
            if lit(0) == "run":
                i = 1
                while (lit(i) or "").startswith("-") and lit(i) != "--":
                    i += 2 if lit(i) in ("--with", "--python", "-p", "--env", "-e", "--directory", "--project",
                                         "--extra", "--group", "--package") else 1
                if lit(i) == "--":
                    i += 1
                return (args[i:], cwd) if i < len(args) else None
            return False
        if name in ("watch",):
            while (lit(i) or "").startswith("-"):
                i += 2 if lit(i) in ("-n", "--interval", "-d") else 1
            if i < len(args):
                joined = " ".join(w.text for w in args[i:])
                if all(w.literal for w in args[i:]):
                    self.nested(joined, cmd, cwd)
                else:
                    self.add("strict", "watch with a computed command", cmd, cwd)
            return None
        if name == "su":
            for index, word in enumerate(args):
                if word.literal and word.text in ("-c", "--command") and index + 1 < len(args):
                    self._shell_string(args[index + 1], cmd, cwd)
            return None
        if name == "script":
            for index, word in enumerate(args):
                if word.literal and word.text in ("-c", "--command") and index + 1 < len(args):
                    self._shell_string(args[index + 1], cmd, cwd)
            return None
        if name == "find":
            index = 0
            while index < len(args):
                word = args[index]
                if word.literal and word.text in ("-exec", "-execdir", "-ok", "-okdir"):
                    end = index + 1
                    while end < len(args) and not (args[end].literal and args[end].text in (";", "+")):
                        end += 1
                    inner = args[index + 1:end]
                    if inner:
                        self.exec(list(inner), cmd, cwd, dict(env), None)
                    index = end
                index += 1
            return None
        if name == "parallel":
            if any(w.literal and w.text in (":::", "::::") for w in args):
                end = next(k for k, w in enumerate(args) if w.literal and w.text in (":::", "::::"))
                inner = [w for w in args[:end] if not (w.literal and w.text.startswith("-"))]
                if inner:
                    self.exec(inner, cmd, cwd, dict(env), None)
                return None
            inner = [w for w in args if not (w.literal and w.text.startswith("-"))]
            return (inner, cwd) if inner else None
        return False

    def _shell_string(self, word: Word, cmd: Command, cwd: str | None) -> None:
        if word.literal:
            self.nested(word.text, cmd, cwd)
        else:
            self.add("strict", f"a shell runs a computed string {word.text!r}", cmd, cwd)

    # -- leaves -------------------------------------------------------------------------

    def leaf(self, name: str, raw: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
             stdin: str | None) -> None:
        if name in shell.SHELLS:
            self.run_shell(name, args, cmd, cwd, stdin)
        elif name == "eval":
            if all(w.literal for w in args):
                self.nested(" ".join(w.text for w in args), cmd, cwd)
            else:
                self.add("strict", "eval of a computed string", cmd, cwd)
        elif name in ("source", "."):
            if args:
                self.run_script(args[0], cmd, cwd, as_shell=True)
        elif name == "git":
            self.git(args, cmd, cwd, env, alias_depth=0)
        elif name == "gh":
            self.gh(args, cmd, cwd)
        elif name in RUNNERS and (self._ship(name, raw, args, cmd, cwd) or self.runner(name, args, cmd, cwd)):
            return
        elif name in INTERPRETERS or re.fullmatch(r"python3(\.\d+)?|node\d*|ruby\d*|perl\d*", name):
            if name == "bun" and args and args[0].literal and args[0].text == "run":
                args = args[1:]
            self.interpreter(name, args, cmd, cwd, stdin)
        else:
            argv = [name] + [w.text for w in args]
            for prefix in self.ctx.ship_prefixes:
                if argv[: len(prefix)] == prefix or [raw] + argv[1: len(prefix)] == prefix:
                    self.add("push", f"the configured ship command ({' '.join(prefix)})", cmd, cwd)
                    return
            if "/" in raw:
                self.run_script(Word(raw), cmd, cwd, as_shell=None)
            self.file_writes(name, args, cmd, cwd)

    def _ship(self, name: str, raw: str, args: list[Word], cmd: Command, cwd: str | None) -> bool:
        """The configured ship command (`make ship`) is a push before it is a runner."""
        argv = [name] + [w.text for w in args]
        for prefix in self.ctx.ship_prefixes:
            if argv[: len(prefix)] == prefix or [raw] + argv[1: len(prefix)] == prefix:
                self.add("push", f"the configured ship command ({' '.join(prefix)})", cmd, cwd)
                return True
        return False

    def runner(self, name: str, args: list[Word], cmd: Command, cwd: str | None) -> bool:
        """make/just/npm/pnpm/yarn/bun: follow the target, recipe or script into the shell text it runs.

        A push found there is a push (named with its file and target); what cannot be followed is
        strict. False when this is not a runner call we follow (`bun file.ts`: the interpreter path).
        """
        from . import scripts

        texts = [w.text if w.literal else None for w in args]
        key = (name, tuple(texts), cwd or self.ctx.cwd)
        if key in self.followed:
            return True  # already analysed in this command (a target that calls itself, say)
        self.followed.add(key)
        if len(self.followed) > scripts.MAX_FOLLOW:
            self.add("strict", f"{name}: too many nested runner calls to follow", cmd, cwd)
            return True
        try:
            steps = scripts.plan(name, texts, cwd or self.ctx.cwd)
        except Exception as error:  # noqa: BLE001 - a file we cannot parse is not followed: strict
            self.add("strict", f"{name}: its file cannot be parsed ({type(error).__name__})", cmd, cwd)
            return True
        if steps is None:
            return False
        for step in steps:
            if step.kind == "strict":
                self.add("strict", f"{name}: {step.label}", cmd, cwd)
                continue
            before = len(self.findings)
            self.walker.source(step.text, step.cwd, cmd.depth + 1)
            if not re.search(scripts.MENTION, step.text):  # `$(PYTEST) -q`: a computed word that says nothing of pushing
                self.findings[before:] = [f for f in self.findings[before:] if not (
                    f.kind == "strict" and f.detail.startswith("computed command word"))]
            for finding in self.findings[before:]:
                if finding.kind in ("push", "strict", "note", "state") and " (in " not in finding.detail:
                    finding.detail += f" (in {step.label}, run by {name})"
        return True

    def file_writes(self, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
        """Commands that write or remove the files they name."""
        if not self.ctx.protected:
            return
        operands = [w for w in args if not (w.literal and w.text.startswith("-"))]
        targets: list[Word] = []
        if name in ("tee", "rm", "truncate", "touch", "shred", "unlink", "rmdir"):
            targets = operands
        elif name in ("cp", "mv", "install", "ln", "rsync") and operands:
            targets = operands[-1:] + (operands[:-1] if name == "mv" else [])
        elif name in ("sed", "perl") and any(w.literal and w.text.startswith("-i") for w in args):
            targets = operands[1:]
        elif name == "dd":
            targets = [Word(w.text[3:], w.literal) for w in args if w.text.startswith("of=")]
        for target in targets:
            self.write(target, cwd, cmd.source)

    def run_shell(self, name: str, args: list[Word], cmd: Command, cwd: str | None, stdin: str | None) -> None:
        i = 0
        string_next = False
        while i < len(args):
            word = args[i]
            if not word.literal:
                if string_next:
                    self.add("strict", f"{name} -c runs a computed string", cmd, cwd)
                    return
                self.add("strict", f"{name} runs a computed script {word.text!r}", cmd, cwd)
                return
            text = word.text
            if text == "--":
                i += 1
                break
            if text in ("-O", "+O", "-o", "+o", "--rcfile", "--init-file"):
                i += 2
                continue
            if text.startswith("-") and not text.startswith("--") or text.startswith("+") and len(text) > 1:
                if "c" in text[1:]:
                    string_next = True
                i += 1 + text[1:].count("o") + text[1:].count("O")  # -o/-O take the next word
                continue
            if text.startswith("--"):
                i += 1
                continue
            break
        if name == "busybox":
            if i < len(args) and args[i].text in ("sh", "ash", "bash"):
                self.run_shell("sh", args[i + 1:], cmd, cwd, stdin)
            return
        if string_next:
            if i < len(args):
                self._shell_string(args[i], cmd, cwd)
            return
        if i < len(args):
            self.run_script(args[i], cmd, cwd, as_shell=True)
            return
        if stdin == UNKNOWN:
            self.add("strict", f"{name} reads commands from a pipe we cannot read", cmd, cwd)
        elif stdin:
            self.nested(stdin, cmd, cwd)

    def run_script(self, word: Word, cmd: Command, cwd: str | None, *, as_shell: bool | None) -> None:
        """Follow a script file: parse it when a shell runs it; else check it mentions no push."""
        if not word.literal:
            self.add("strict", f"a computed script {word.text!r}", cmd, cwd)
            return
        path = word.text if os.path.isabs(word.text) else os.path.join(cwd or self.ctx.cwd, word.text)
        try:
            with open(path, "rb") as handle:
                data = handle.read(SCRIPT_LIMIT + 1)
        except FileNotFoundError:
            return  # nothing to run: the shell fails on its own
        except (OSError, ValueError):  # ValueError: a NUL in the name
            if as_shell:
                self.add("strict", f"a script that cannot be read: {word.text}", cmd, cwd)
            return
        text = data.decode("utf-8", "replace")
        if as_shell is None:
            first = text.split("\n", 1)[0]
            as_shell = not first.startswith("#!") or any(s in first for s in ("sh", "bash", "zsh"))
            as_shell = as_shell and "\x00" not in text[:1024]
        if as_shell and len(data) <= SCRIPT_LIMIT:
            self.nested(text, cmd, cwd)
        elif re.search(MENTION, text):
            self.add("strict", f"the script {word.text} mentions push or release", cmd, cwd)

    def interpreter(self, name: str, args: list[Word], cmd: Command, cwd: str | None, stdin: str | None) -> None:
        for index, word in enumerate(args):
            if word.literal and word.text in ("-c", "-e", "--eval", "-E", "-r", "--command") and index + 1 < len(args):
                code = args[index + 1]
                if not code.literal or _mentions_publish(code.text):
                    self.add("strict", f"{name} code that may publish", cmd, cwd)
                return
            if word.literal and word.text.startswith("-"):
                continue
            self.run_script(word, cmd, cwd, as_shell=False)
            return
        if stdin and (stdin == UNKNOWN or _mentions_publish(stdin)):
            self.add("strict", f"{name} reads code that may publish", cmd, cwd)

    # -- git ----------------------------------------------------------------------------

    def git(self, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], alias_depth: int) -> None:
        inline: dict[str, str] = {}
        globals_: list[str] = []
        i = 0
        git_cwd = cwd
        while i < len(args):
            word = args[i]
            if not word.literal:
                if i == 0 or args[i - 1].text not in GIT_GLOBAL_WITH_VALUE:
                    self.add("strict", f"git with a computed argument {word.text!r}", cmd, git_cwd)
                    return
            text = word.text
            if not text.startswith("-"):
                break
            if text in GIT_GLOBAL_WITH_VALUE:
                value = args[i + 1] if i + 1 < len(args) else Word("")
                if text == "-C":
                    git_cwd = _join(git_cwd, value)
                elif text == "-c" and value.literal:
                    key, _, val = value.text.partition("=")
                    inline[key.lower()] = val
                elif text == "-c":
                    self.add("strict", "git -c with a computed value", cmd, git_cwd)
                elif text == "--config-env":
                    key, _, var = value.text.partition("=")
                    inline[key.lower()] = env.get(var, self.ctx.env.get(var, ""))
                globals_ += [text, value.text]
                i += 2
                continue
            if text.startswith("--config-env="):
                key, _, var = text.split("=", 1)[1].partition("=")
                inline[key.lower()] = env.get(var, self.ctx.env.get(var, ""))
            elif text.startswith("-c") and len(text) > 2:
                key, _, val = text[2:].partition("=")
                inline[key.lower()] = val
            elif text.startswith("-C") and len(text) > 2:
                git_cwd = _join(git_cwd, Word(text[2:]))
            elif text in ("--help", "-h", "--version", "-v", "--html-path", "--man-path", "--info-path"):
                return
            globals_.append(text)
            i += 1
        if i >= len(args):
            return
        sub = args[i].text
        rest = args[i + 1:]
        if sub not in GIT_COMMANDS:
            alias = inline.get(f"alias.{sub.lower()}")
            if alias is None:
                alias = _env_alias(env, sub) if env else None
            if alias is None:
                try:
                    alias = self.ctx.alias_lookup(git_cwd or self.ctx.cwd, sub, globals_, env)
                except Exception:  # noqa: BLE001 - an unreadable config is an unknown subcommand
                    alias = None
            if alias is None:
                self.add("strict", f"unknown git subcommand {sub!r}", cmd, git_cwd)
                return
            if alias_depth > 10:
                self.add("strict", f"git alias {sub!r} nests too deeply", cmd, git_cwd)
                return
            if alias.startswith("!"):
                body = alias[1:]
                extra = " ".join(_quote(w.text) for w in rest) if all(w.literal for w in rest) else ""
                self.nested(body + (" " + extra if extra else ""), cmd, git_cwd)
                return
            split = shell_split(alias)
            if split is None or not split:
                self.add("strict", f"git alias {sub!r} cannot be read", cmd, git_cwd)
                return
            prefix = list(args[:i])
            self.git(prefix + [Word(w) for w in split] + rest, cmd, git_cwd, env, alias_depth + 1)
            return
        self.git_sub(sub, rest, cmd, git_cwd, env)

    def git_sub(self, sub: str, rest: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> None:
        lits = [w.text for w in rest]
        positional = [w.text for w in rest if not w.text.startswith("-")]
        if sub in HOOKS_RUN_BY and not (lits[:1] and lits[0] in HELP_FLAGS):
            self.git_hooks(sub, lits, cmd, cwd)
        if sub in ("push", "send-pack", "http-push"):
            if lits[:1] and lits[0] in HELP_FLAGS:
                return
            self.add("push", f"git {sub}", cmd, cwd)
        elif sub == "subtree":
            first = _first_positional(rest, {"-P", "--prefix", "-m", "--message", "--onto", "-b", "--branch",
                                             "--annotate"})
            if first == "push":
                self.add("push", "git subtree push", cmd, cwd)
        elif sub == "svn" and positional[:1] == ["dcommit"] or sub == "p4" and positional[:1] == ["submit"]:
            self.add("push", f"git {sub} {positional[0]}", cmd, cwd)
        elif sub == "lfs" and positional[:1] == ["push"]:
            self.add("push", "git lfs push", cmd, cwd)
        elif sub == "notes":
            action = _first_positional(rest, {"--ref"})
            if action in NOTE_WRITES:
                self.add("note", f"git notes {action}", cmd, cwd)
        elif sub == "update-ref":
            if "--stdin" in lits:
                self.add("note", "git update-ref --stdin (cannot see which refs)", cmd, cwd)
            else:
                ref = _first_positional(rest, {"-m"})
                if ref and (ref.startswith(("refs/notes", "notes/")) or "refs/notes/" in ref):
                    self.add("note", f"git update-ref {ref}", cmd, cwd)
                elif any(not w.literal for w in rest):
                    self.add("strict", "git update-ref on a computed ref", cmd, cwd)
        elif sub == "commit":
            if lits[:1] and lits[0] in HELP_FLAGS:
                return
            self.add("commit", "git commit", cmd, cwd, args=lits)
        elif sub in ("add", "rm", "mv", "stage"):
            self.add("stage", f"git {sub}", cmd, cwd, args=lits if all(w.literal for w in rest) else ["-A"])
        elif sub == "rebase":
            for index, word in enumerate(rest):
                if word.text in ("-x", "--exec") and index + 1 < len(rest):
                    self._shell_string(rest[index + 1], cmd, cwd)
                elif word.text.startswith("--exec="):
                    self._shell_string(Word(word.text.split("=", 1)[1], word.literal), cmd, cwd)
                elif word.text.startswith("-x") and len(word.text) > 2:
                    self._shell_string(Word(word.text[2:], word.literal), cmd, cwd)
        elif sub == "bisect":
            if positional[:1] == ["run"]:
                index = next(k for k, w in enumerate(rest) if w.text == "run")
                if index + 1 < len(rest):
                    self.exec(list(rest[index + 1:]), cmd, cwd, dict(env), None)
        elif sub == "submodule":
            words = list(rest)
            while words and words[0].text.startswith("-"):
                words = words[1:]
            if words and words[0].text == "foreach":
                words = words[1:]
                while words and words[0].text.startswith("-"):
                    words = words[1:]
                if words:
                    if all(w.literal for w in words):
                        self.nested(" ".join(w.text for w in words), cmd, cwd)
                    else:
                        self.add("strict", "submodule foreach with a computed command", cmd, cwd)
        elif sub == "filter-branch":
            for index, word in enumerate(rest):
                if word.text.endswith("-filter") and word.text.startswith("--") and index + 1 < len(rest):
                    self._shell_string(rest[index + 1], cmd, cwd)

    def git_hooks(self, sub: str, lits: list[str], cmd: Command, cwd: str | None) -> None:
        """The hooks this git command runs (core.hooksPath honoured, husky's `_` wrappers too):
        one whose code publishes makes the command a push, since it would publish unstamped."""
        skip = {"pre-commit", "commit-msg", "pre-merge-commit"} if {"-n", "--no-verify"} & set(lits) else set()
        for hook in HOOKS_RUN_BY[sub]:
            if hook in skip:
                continue
            for path in self.ctx.hook_files(cwd or self.ctx.cwd, hook):
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        code = handle.read(65536)
                except OSError:
                    continue
                if _mentions_publish("\n".join(line for line in code.splitlines()
                                               if not line.lstrip().startswith("#"))):
                    self.add("push", f"git {sub} (its {hook} hook, {path})", cmd, cwd)
                    return

    # -- gh -----------------------------------------------------------------------------

    def gh(self, args: list[Word], cmd: Command, cwd: str | None, *, expanded: bool = False) -> None:
        words = list(args)
        while words and words[0].literal and words[0].text.startswith("-"):
            words = words[2:] if words[0].text in ("-R", "--repo", "--hostname") else words[1:]
        if not words:
            return
        if not all(w.literal for w in words[:2]):
            self.add("strict", "gh with a computed subcommand", cmd, cwd)
            return
        group = words[0].text
        alias = None if expanded or group in GH_BUILTINS else self.ctx.gh_aliases.get(group)
        if alias is not None:  # gh never lets an alias shadow a command, and aliases do not nest
            self.gh_alias(group, alias, words[1:], cmd, cwd)
            return
        action = words[1].text if len(words) > 1 else ""
        lits = [w.text for w in words]
        if any(flag in lits for flag in ("--help", "-h")):
            return
        if (group, action) in GH_PUBLISH:
            self.add("push", f"gh {group} {action}", cmd, cwd)
            return
        if group == "api":
            self.gh_api(words[1:], cmd, cwd)
            return
        if group in GH_READ:
            allowed = GH_READ[group]
            if allowed is None or action in allowed or action == "":
                return
        self.add("strict", f"gh {group} {action}".strip() + " changes GitHub (or is unknown)", cmd, cwd)

    def gh_alias(self, name: str, body: str, rest: list[Word], cmd: Command, cwd: str | None) -> None:
        """Expand a gh alias as gh does: `$1`… take the arguments, the unused ones are appended; a
        `!` (--shell) alias runs its body through sh, which is read like any nested command."""
        if not all(w.literal for w in rest):
            self.add("strict", f"gh alias {name!r} with computed arguments", cmd, cwd)
            return
        values = [w.text for w in rest]
        used: set[int] = set()

        def fill(match: re.Match[str]) -> str:
            index = int(match.group(1)) - 1
            used.add(index)
            return values[index] if 0 <= index < len(values) else ""

        if body.startswith("!"):
            script = re.sub(r"\$(\d+)", lambda m: _quote(fill(m)), body[1:])
            extra = " ".join(_quote(v) for i, v in enumerate(values) if i not in used)
            self.nested(script + (" " + extra if extra else ""), cmd, cwd)
            return
        split = shell_split(body)
        if not split:
            self.add("strict", f"gh alias {name!r} cannot be read", cmd, cwd)
            return
        words = [Word(re.sub(r"\$(\d+)", fill, w)) for w in split]
        words += [Word(v) for i, v in enumerate(values) if i not in used]
        self.gh(words, cmd, cwd, expanded=True)

    def gh_api(self, args: list[Word], cmd: Command, cwd: str | None) -> None:
        method = None
        fields: list[Word] = []
        endpoint: Word | None = None
        i = 0
        while i < len(args):
            word = args[i]
            text = word.text
            if text in ("-X", "--method") and i + 1 < len(args):
                method = args[i + 1].text.upper() if args[i + 1].literal else "?"
                i += 2
                continue
            if text.startswith("-X") and len(text) > 2:
                method = text[2:].upper()
            elif text.startswith("--method="):
                method = text.split("=", 1)[1].upper()
            elif text in ("-f", "-F", "--field", "--raw-field", "--input") and i + 1 < len(args):
                fields.append(args[i + 1])
                i += 2
                continue
            elif text.startswith(("--field=", "--raw-field=", "--input=")) or (text[:2] in ("-f", "-F") and len(text) > 2):
                fields.append(Word(text.split("=", 1)[-1] if text.startswith("--") else text[2:], word.literal))
            elif text in ("-H", "--header", "-q", "--jq", "-t", "--template", "--hostname", "--cache", "-p",
                          "--preview") and i + 1 < len(args):
                i += 2
                continue
            elif not text.startswith("-") and endpoint is None:
                endpoint = word
            i += 1
        if method is None:
            method = "POST" if fields else "GET"
        if method == "GET" or method == "HEAD":
            return
        if endpoint is None or not endpoint.literal or method == "?":
            self.add("strict", "gh api write to a computed endpoint", cmd, cwd)
            return
        path = endpoint.text
        if path == "graphql":
            body = " ".join(f.text for f in fields)
            if any(not f.literal for f in fields) or re.search(GH_GRAPHQL_PUSH, body):
                self.add("push", "gh api graphql mutation that publishes", cmd, cwd)
            elif "mutation" in body:
                self.add("strict", "gh api graphql mutation", cmd, cwd)
            return
        if method in WRITE_METHODS and re.search(GH_API_PUSH_PATH, path.split("?", 1)[0]):
            self.add("push", f"gh api {method} {path}", cmd, cwd)
        else:
            self.add("strict", f"gh api {method} {path} changes GitHub", cmd, cwd)


# -- helpers ---------------------------------------------------------------------------------


def _join(cwd: str | None, word: Word) -> str | None:
    if not word.literal:
        return None
    if os.path.isabs(word.text):
        return os.path.normpath(word.text)
    return os.path.normpath(os.path.join(cwd, word.text)) if cwd else None


def _first_positional(words: list[Word], with_value: set[str]) -> str | None:
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


def _mentions_publish(text: str) -> bool:
    return bool(re.search(r"\bgit\b[^\n;|&]*\b(push|send-pack|http-push)\b|\bgh\b[^\n;|&]*\bpr\b[^\n;|&]*\b(create|merge)\b"
                          r"|\bnotes\b[^\n;|&]*\b(add|append|edit|copy|remove|merge|prune)\b", text))


def _quote(text: str) -> str:
    if text and re.fullmatch(r"[A-Za-z0-9_./:=@%+,-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def shell_split(text: str) -> list[str] | None:
    """Split like git's split_cmdline / env -S: quotes and backslashes, no expansions."""
    words: list[str] = []
    current: list[str] = []
    have = False
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"' and i + 1 < len(text):
                i += 1
                current.append(text[i])
            else:
                current.append(ch)
        elif ch in "'\"":
            quote = ch
            have = True
        elif ch == "\\" and i + 1 < len(text):
            i += 1
            current.append(text[i])
            have = True
        elif ch in " \t\n":
            if current or have:
                words.append("".join(current))
                current, have = [], False
        else:
            current.append(ch)
        i += 1
    if quote:
        return None
    if current or have:
        words.append("".join(current))
    return words


def _env_alias(env: dict[str, str], sub: str) -> str | None:
    """Aliases given through GIT_CONFIG_COUNT/KEY_n/VALUE_n in the command's own assignments."""
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    except ValueError:
        return None
    found = None
    for n in range(min(count, 100)):
        if env.get(f"GIT_CONFIG_KEY_{n}", "").lower() == f"alias.{sub.lower()}":
            found = env.get(f"GIT_CONFIG_VALUE_{n}", "")
    return found


def _git_env(env: dict[str, str]) -> dict[str, str]:
    """The environment for the gate's own git probes: ours, plus the command's known GIT_* values."""
    full_env = dict(os.environ)
    full_env.update({k: v for k, v in env.items() if k.startswith("GIT_") and v != UNKNOWN})
    full_env["GIT_TERMINAL_PROMPT"] = "0"
    return full_env


def git_hooks_dir(cwd: str, env: dict[str, str]) -> str | None:
    """Where git looks for hooks from cwd (`git rev-parse --git-path hooks`: core.hooksPath, else the
    common dir's hooks/), as an absolute path; None outside a repository."""
    import subprocess

    if not os.path.isdir(cwd):
        return None
    try:
        proc = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=cwd, env=_git_env(env),
                              capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = proc.stdout.strip()
    if proc.returncode != 0 or not out:
        return None
    return os.path.normpath(os.path.join(cwd, out))


def gh_config_file(env: dict[str, str]) -> Path | None:
    """gh's config.yml: $GH_CONFIG_DIR, else $XDG_CONFIG_HOME/gh, else %AppData%/GitHub CLI, else ~/.config/gh."""
    if env.get("GH_CONFIG_DIR"):
        return Path(env["GH_CONFIG_DIR"]) / "config.yml"
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "gh" / "config.yml"
    if os.name == "nt" and env.get("AppData"):
        return Path(env["AppData"]) / "GitHub CLI" / "config.yml"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "gh" / "config.yml" if home else None


def read_gh_aliases(env: dict[str, str]) -> dict[str, str]:
    """The `aliases:` map of gh's config.yml (the flat `name: expansion` lines gh writes), without a
    YAML library: the hook stays light. Unreadable or absent: no aliases."""
    path = gh_config_file(env)
    try:
        text = path.read_text(encoding="utf-8") if path else ""
    except (OSError, UnicodeDecodeError):
        return {}
    aliases: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            inside = line.split("#", 1)[0].strip() == "aliases:"
            continue
        if not inside or ":" not in line:
            continue
        key, _, value = line.strip().partition(":")
        key, value = _yaml_scalar(key), _yaml_scalar(value.strip())
        if key and value:
            aliases[key] = value
    return aliases


def _yaml_scalar(text: str) -> str:
    """A plain, 'single' or "double" quoted YAML scalar (what gh writes for alias names and bodies)."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            import json

            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    return text.split(" #", 1)[0].strip()


def git_config_alias(where: str, sub: str, globals_: list[str], env: dict[str, str]) -> str | None:
    """Ask git itself (includes, global and worktree config, -c and GIT_CONFIG_* all honoured)."""
    import subprocess

    safe: list[str] = []
    i = 0
    while i < len(globals_):
        flag = globals_[i]
        if flag in ("-c", "--config-env", "--git-dir", "--work-tree") and i + 1 < len(globals_):
            safe += [flag, globals_[i + 1]]
            i += 2
            continue
        if flag.startswith(("--git-dir=", "--work-tree=", "--config-env=")):
            safe.append(flag)
        i += 1
    full_env = _git_env(env)
    run_in = where if where and os.path.isdir(where) else None
    proc = subprocess.run(["git", *safe, "config", "--get", f"alias.{sub}"], cwd=run_in, env=full_env,
                          capture_output=True, text=True, timeout=5, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.rstrip("\n")
