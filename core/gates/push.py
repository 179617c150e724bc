"""What a Bash command would do to the outside world and to Hallmark's record.

`analyze(command, ctx)` walks every simple command bash could run (shell.py), unwraps wrappers
(wrappers.py), and hands each command to the module that knows it: git (git_cmds.py, refspecs.py),
forges, HTTP and registries (forges.py), shells, scripts, interpreters and build runners
(runners.py), `hall` itself (hall_cmds.py) and anything that writes files (writes.py). Findings:

- "push": a way to publish, with the sources it sends when they can be known (decide.py checks
  each is hallmarked);
- "note": a write to the hallmark notes or any notes ref;
- "state": a write into git's directory, Hallmark's configuration or Claude Code's settings;
- "person": a person's decision (`hall ready`, `hall daemon run` …) or Hallmark's own code;
- "commit" and "stage": for the edit gate;
- "strict": what might publish but cannot be followed; denied inside an item's worktree in strict
  mode, and everywhere when `always` (a computed command word, a computed string a shell runs,
  a script this command writes …).
"""

from __future__ import annotations

import os
import re

from . import git_cmds, names, shell, wrappers
from .shell import UNKNOWN, Command, Problem, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    from hallmark.core.paths import RepoPaths

DECLARE = frozenset({"export", "declare", "typeset", "local", "readonly"})
# the rule modules load on first need (names.py says which word needs which): `git push` never
# imports the forge, runner or file-writing rules
_forges: ModuleType | None = None
_runners: ModuleType | None = None
_writes: ModuleType | None = None
_hall: ModuleType | None = None


def forges() -> ModuleType:
    global _forges
    if _forges is None:
        from . import forges as module

        _forges = module
    return _forges


def runners() -> ModuleType:
    global _runners
    if _runners is None:
        from . import runners as module

        _runners = module
    return _runners


def writes() -> ModuleType:
    global _writes
    if _writes is None:
        from . import writes as module

        _writes = module
    return _writes


def hall_cmds() -> ModuleType:
    global _hall
    if _hall is None:
        from . import hall_cmds as module

        _hall = module
    return _hall


class Finding:
    __slots__ = ("always", "args", "command", "cwd", "detail", "git_dir", "kind", "revs", "unresolved")

    def __init__(
        self,
        kind: str,
        detail: str,
        command: str,
        cwd: str | None,
        args: list[str] | None = None,
        *,
        revs: list[str] | None = None,
        git_dir: str | None = None,
        unresolved: str | None = None,
        always: bool = False,
    ) -> None:
        self.kind = kind
        self.detail = detail
        self.command = command
        self.cwd = cwd
        self.args = args or []
        self.revs = revs  # a push: the sources it sends (None: HEAD of cwd)
        self.git_dir = git_dir
        self.unresolved = unresolved  # a push whose sources cannot be known, and why
        self.always = always  # a strict finding that applies outside worktrees too

    def __repr__(self) -> str:
        return f"Finding({self.kind!r}, {self.detail!r})"


class Context:
    """What the analysis may consult: the payload's cwd, the repo, the ship command and git config."""

    def __init__(
        self,
        cwd: str,
        ship: str = "",
        alias_lookup: Callable[..., str | None] | None = None,
        env: dict[str, str] | None = None,
        paths: RepoPaths | None = None,
        base: str | None = None,
    ) -> None:
        self.cwd = cwd
        self.base = base  # the base branch's name (config `base`); None: base moves are not read
        self.paths = paths
        self.ship = ship
        self.alias_lookup = alias_lookup or git_cmds.config_alias
        self.env = env if env is not None else dict(os.environ)
        self.git_commands: frozenset[str] | None = None
        self._ship_prefixes: list[list[str]] | None = None
        self._ship_scripts: set[str] | None = None
        self._gh_aliases: dict[str, str] | None = None
        self._hooks: dict[str, list[tuple[str, str]]] = {}

    @property
    def state_dir(self) -> str | None:
        return str(self.paths.state_dir) if self.paths is not None else None

    def protected_roots(self) -> list[tuple[str, str]]:
        """(real path, why) of everything a Bash command may not write (writes.py)."""
        from .protected import protected_roots

        return protected_roots(self.paths)

    def hook_files(self, cwd: str) -> list[tuple[str, str]]:
        """(hook name, path) of every executable hook git would run from cwd; husky's `_` wrappers
        also run <hooks dir>/../<hook>."""
        if cwd in self._hooks:
            return self._hooks[cwd]
        common = str(self.paths.common_dir) if self.paths is not None else None
        from . import git_hooks

        folder = git_hooks.hooks_dir(cwd, self.env, common) if os.path.isdir(cwd) else None
        found: list[tuple[str, str]] = []
        if folder:
            husky = os.path.basename(folder.rstrip("/")) == "_"
            try:
                names = os.listdir(folder)
            except OSError:
                names = []
            for name in names:
                if name in git_hooks.HOOK_NAMES:
                    path = os.path.join(folder, name)
                    if os.path.isfile(path) and os.access(path, os.X_OK):
                        found.append((name, path))
                        if husky:
                            user = os.path.join(os.path.dirname(folder.rstrip("/")), name)
                            if os.path.isfile(user):
                                found.append((name, user))
        self._hooks[cwd] = found
        return found

    @property
    def gh_aliases(self) -> dict[str, str]:
        """`gh alias set` aliases from gh's config.yml, read on first need (most commands never ask)."""
        if self._gh_aliases is None:
            from .gh_config import read_gh_aliases

            self._gh_aliases = read_gh_aliases(self.env)
        return self._gh_aliases

    @property
    def ship_prefixes(self) -> list[list[str]]:
        """Parsed on first need only: most commands are git or gh and never look."""
        if self._ship_prefixes is None:
            self._ship_prefixes, self._ship_scripts = ship_parts(self.ship) if self.ship else ([], set())
        return self._ship_prefixes

    @property
    def ship_scripts(self) -> set[str]:
        self.ship_prefixes  # noqa: B018 - parses both
        return self._ship_scripts or set()


def ship_parts(template: str) -> tuple[list[list[str]], set[str]]:
    """The literal leading words of each command in the ship template (up to a placeholder), and the
    script files it runs (as paths relative to the checkout it runs in)."""
    prefixes: list[list[str]] = []
    scripts: set[str] = set()
    segments = re.split(r"&&|\|\||[;|\n]", template)
    if all(seg.split()[:1] in (["git"], ["gh"]) for seg in segments) and not re.search(r"[`$()<>'\"\\]", template):
        return prefixes, scripts  # the default shape: git and gh are read properly anyway; no parser needed

    def take(cmd: Command) -> None:
        words: list[str] = []
        for word in cmd.words:
            if not word.literal or "{" in word.text:
                break
            words.append(word.text)
        if not words or words[0] in ("git", "gh"):  # git/gh are analysed properly anyway
            return
        prefixes.append(words)
        head = os.path.basename(words[0])
        script = (
            words[1]
            if head in shell.SHELLS and len(words) > 1 and not words[1].startswith("-")
            else (words[0] if "/" in words[0] else None)
        )
        if script:
            scripts.add(os.path.normpath(script))

    try:
        shell.Walker(take, lambda problem: None).source(template, None)
    except Exception:  # noqa: BLE001 - a ship template we can't read adds no prefix
        return [], set()
    return prefixes, scripts


def analyze(text: str, ctx: Context) -> list[Finding]:
    return Analyzer(ctx).run(text)


class Analyzer:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.findings: list[Finding] = []
        self.followed: set[tuple] = set()  # runner calls already followed (make/just/npm …)
        self.written: dict[str, str | None] = {}  # real path -> what this command wrote there (None: unknown)
        self.vars: dict[str, str] = {}  # shell variables assigned earlier in the command
        self.exported: set[str] = set()
        self.allexport = False  # `set -a`: every later assignment is exported
        self.aliases: dict[str, str] = {}  # `alias name=…` earlier in the command
        self.git_aliases: dict[str, str] = {}  # `git config alias.x …` earlier in the command
        self.remote_urls: dict[tuple[str, str], str] = {}  # `git remote add name url` earlier, by repository
        self.seen = 0  # simple commands walked so far
        self.movers: list[int] = []  # where (in findings) a command ran that may move refs
        self.walker = shell.Walker(self.command, self.problem, self.write, self.assign, self.read_input)
        self.walker.on_cd = lambda word, cwd: writes().evaluate(self, word.text, cwd)

    def run(self, text: str) -> list[Finding]:
        self.walker.source(shell.unkeyword(text), self.ctx.cwd)
        for index, finding in enumerate(self.findings):
            if (
                finding.kind == "push"
                and finding.revs is not None
                and not finding.unresolved
                and any(mover <= index for mover in self.movers)
            ):
                finding.unresolved = (
                    "a command before it in the same line may commit, tag or move a branch; "
                    "push in a command of its own"
                )
        return self.findings

    def add(
        self,
        kind: str,
        detail: str,
        cmd: Command | None,
        cwd: str | None = None,
        args: list[str] | None = None,
        *,
        revs: list[str] | None = None,
        git_dir: str | None = None,
        unresolved: str | None = None,
        always: bool = False,
    ) -> None:
        self.findings.append(
            Finding(
                kind,
                detail,
                cmd.source if cmd else "",
                cwd,
                args,
                revs=revs,
                git_dir=git_dir,
                unresolved=unresolved,
                always=always,
            )
        )

    def problem(self, problem: Problem) -> None:
        self.findings.append(
            Finding("strict", f"{problem.kind.replace('_', ' ')}: {problem.detail}", problem.source, self.ctx.cwd)
        )

    def write(self, target: Word, cwd: str | None, source: str, content: str | None = None) -> None:
        writes().check(self, target, cwd, source, content)

    def assign(self, env: dict[str, str], exported: bool = False) -> None:
        for key, value in env.items():
            self.vars[key] = value
            if exported or self.allexport or key.startswith(("HALL_", "HALLMARK_")):
                self.exported.add(key)

    def read_input(self, word: Word, cwd: str | None) -> str | None:
        """What `< file` feeds a command: this command's own write to it, else the file."""
        return runners().script_text(self, word, cwd)[0]

    def nested(self, text: str, cmd: Command, cwd: str | None, stdin: str | None = None) -> None:
        self.walker.source(shell.unkeyword(text), cwd, cmd.depth + 1, stdin=stdin)

    def shell_string(self, word: Word, cmd: Command, cwd: str | None) -> None:
        if word.literal:
            self.nested(word.text, cmd, cwd)
        else:
            self.add("strict", f"a shell runs a computed string {word.text!r}", cmd, cwd, always=True)

    def run_script(self, word: Word, cmd: Command, cwd: str | None, *, as_shell: bool | None) -> None:
        runners().run_script(self, word, cmd, cwd, as_shell=as_shell)

    # -- one simple command -------------------------------------------------------------

    def command(self, cmd: Command) -> None:
        """One simple command, in the environment it runs with: what earlier commands in the line
        exported (`export GIT_DIR=…`, `set -a`), then its own `VAR=value` prefixes."""
        self.seen += 1
        env = {key: self.vars[key] for key in self.exported if key in self.vars}
        env.update(cmd.env)
        self.exec(cmd.words, cmd, cmd.cwd, env, cmd.stdin)

    def moves_refs(self) -> None:
        """A command that may commit, tag or move a branch ran here: a push after it in the same
        command sends what the gate cannot see now."""
        self.movers.append(len(self.findings))

    def exec(
        self, words: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None, depth: int = 0
    ) -> None:
        expanded: set[str] = set()
        while words:
            if depth > 20:
                self.add("strict", "too many nested wrappers", cmd, cwd, always=True)
                return
            depth += 1
            head = words[0]
            if not head.literal:
                self.add("strict", f"computed command word {head.text!r}", cmd, cwd, always=True)
                return
            raw = head.text
            if "\x01glob" not in expanded and ("*" in raw or "?" in raw or "[" in raw):
                expanded.add("\x01glob")
                from .globs import head_words

                globbed = head_words(self, words, cmd, cwd)
                if globbed is None:
                    return
                if globbed is not words:
                    words = globbed
                    continue
            if raw in self.aliases and raw not in expanded:
                expanded.add(raw)
                split = git_cmds.shell_split(self.aliases[raw])
                if split is None:
                    self.add("strict", f"the alias {raw} cannot be read", cmd, cwd, always=True)
                    return
                words = [Word(w) for w in split] + words[1:]
                continue
            name = os.path.basename(raw) if "/" in raw else raw
            rest = words[1:]
            if "=" in raw and shell._ASSIGNMENT.match(raw):
                key, _, value = raw.partition("=")
                env[key] = value
                words = rest
                continue
            unwrapped = wrappers.unwrap(self, name, rest, cmd, cwd, env, stdin)
            if unwrapped is None:
                return
            if unwrapped is not False:
                words, cwd = unwrapped
                continue
            self.leaf(name, raw, rest, cmd, cwd, env, stdin)
            return

    def leaf(  # noqa: C901 - one dispatch table: a command word to the planner that reads it
        self,
        name: str,
        raw: str,
        args: list[Word],
        cmd: Command,
        cwd: str | None,
        env: dict[str, str],
        stdin: str | None,
    ) -> None:
        if name in shell.SHELLS:
            runners().run_shell(self, name, args, cmd, cwd, env, stdin)
        elif name == "eval":
            words = args[1:] if args and args[0].literal and args[0].text == "--" else args
            if all(w.literal for w in words):
                self.nested(" ".join(w.text for w in words), cmd, cwd)
            else:
                self.add("strict", "eval of a computed string", cmd, cwd, always=True)
        elif name in ("source", "."):
            words = args[1:] if args and args[0].literal and args[0].text == "--" else args
            if words:
                self.run_script(words[0], cmd, cwd, as_shell=True)
        elif name == "trap":
            words = args[1:] if args and args[0].literal and args[0].text == "--" else args
            if words and not (words[0].literal and words[0].text.startswith("-")):
                self.shell_string(words[0], cmd, cwd)
        elif name == "alias":
            for word in args:
                key, eq, value = word.text.partition("=")
                if eq and word.literal:
                    self.aliases[key] = value
                elif eq:
                    self.add("strict", f"alias {key} to a computed value", cmd, cwd, always=True)
        elif name in DECLARE:
            self._declare(name, args)
        elif name == "set":
            self._set(args)
        elif name == "git":
            git_cmds.run_git(self, args, cmd, cwd, env)
        elif name == "gh":
            forges().run_gh(self, args, cmd, cwd)
        elif name in names.FORGES:
            forges().run_forge(self, name, args, cmd, cwd)
        elif name == "hall":
            hall_cmds().run_hall(self, args, cmd, cwd, env)
        elif (name in names.REGISTRIES or raw == "./gradlew") and forges().registry(  # noqa: SIM114 - each branch asks a different planner
            self, raw if raw == "./gradlew" else name, args, cmd, cwd
        ):
            return
        elif name in names.RUNNERS and (
            self._ship(name, raw, args, cmd, cwd) or runners().runner(self, name, args, cmd, cwd, env)
        ):
            return
        elif name in names.OPAQUE_RUNNERS:
            runners().opaque_runner(self, name, args, cmd, cwd)
        elif name in names.INTERPRETERS or re.fullmatch(names.INTERPRETER_PATTERN, name):
            if name == "bun" and args and args[0].literal and args[0].text == "run":
                args = args[1:]
            runners().interpreter(self, name, args, cmd, cwd, stdin)
            self._writes(name, args, cmd, cwd, stdin)
        elif name in names.HTTP_CLIENTS:
            forges().http_client(self, name, args, cmd, cwd)
            self._writes(name, args, cmd, cwd, stdin)
        elif name in names.REMOTE_COPY:
            forges().remote_copy(self, name, args, cmd, cwd)
            self._writes(name, args, cmd, cwd, stdin)
        elif name in names.NETWORK_SHELLS:
            if len([w for w in args if not (w.literal and w.text.startswith("-"))]) > 1 or stdin is not None:
                self.add("strict", f"{name} sends data or commands to another host", cmd, cwd)
        else:
            if self._ship(name, raw, args, cmd, cwd):
                return
            if name == "sed":
                runners().sed_program(self, args, cmd, cwd)
            if "/" in raw:
                self.run_script(Word(raw), cmd, cwd, as_shell=None)
            self._writes(name, args, cmd, cwd, stdin)

    def _writes(self, name: str, args: list[Word], cmd: Command, cwd: str | None, stdin: str | None) -> None:
        if name in names.WRITERS:
            writes().writes(self, name, args, cmd, cwd, stdin)

    def _declare(self, name: str, args: list[Word]) -> None:
        exported = name == "export" or any(w.literal and w.text.startswith("-") and "x" in w.text for w in args)
        for word in args:
            key, eq, value = word.text.partition("=")
            if word.literal and word.text.startswith("-"):
                continue
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                self.assign(
                    {key: value if (eq and word.literal) else (UNKNOWN if eq else self.vars.get(key, ""))}, exported
                )

    def _set(self, args: list[Word]) -> None:
        """`set -a` / `set -o allexport` export every later assignment (`set +a` ends it)."""
        for index, word in enumerate(args):
            text = word.text if word.literal else ""
            after = args[index + 1].text if index + 1 < len(args) else ""
            if (text.startswith("-") and "a" in text[1:] and text != "--") or (text == "-o" and after == "allexport"):
                self.allexport = True
            elif (text.startswith("+") and "a" in text[1:]) or (text == "+o" and after == "allexport"):
                self.allexport = False

    def _ship(self, name: str, raw: str, args: list[Word], cmd: Command, cwd: str | None) -> bool:
        """The configured ship command (`make ship`) is a push before it is a runner."""
        argv = [name] + [w.text for w in args]
        for prefix in self.ctx.ship_prefixes:
            if argv[: len(prefix)] == prefix or [raw, *argv[1 : len(prefix)]] == prefix:
                self.add("push", f"the configured ship command ({' '.join(prefix)})", cmd, cwd)
                return True
        return False
