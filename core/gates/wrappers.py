"""Wrappers: commands that run another command (env, sudo, timeout, xargs, nohup …), as a table.

Each wrapper is one `Spec`: which of its options take a value, which mean it runs nothing
(`command -v`), which take a shell command string (`su -c`, `flock -c`), how many plain words come
before the wrapped command (`timeout 10`, `taskset MASK`, `flock FILE`), and whether the wrapped
words go through a shell (`sudo -i`, `sg`, `watch`). Short options cluster as getopt reads them
(`sudo -iu bob`, `su -lc 'cmd'`), long ones take `--opt=value` or the next word, and `--` ends
the options. The wrappers with their own grammar are read in their own modules: env, xargs and
parallel in env_xargs.py; find, nix, hyperfine, tmux and screen in runs_others.py. `unwrap` returns
the inner command's words and directory, None when the wrapper runs nothing, or False when the word
is no wrapper at all.
"""

from __future__ import annotations

import os

from . import shell
from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    from .push import Analyzer
    from .shell import Command

    # the wrapped command as (words, cwd); None when nothing (more) runs; False when not a wrapper
    Inner: TypeAlias = "tuple[list[Word], str | None]"
    Unwrapped: TypeAlias = "Inner | Literal[False] | None"


class Spec:
    __slots__ = ("long_value", "no_cluster", "numeric", "shell_opt", "short_value", "skip", "stop", "via_shell")

    def __init__(
        self,
        short_value: str = "",
        long_value: tuple[str, ...] = (),
        stop: str | tuple[str, ...] = (),
        shell_opt: tuple[str, ...] = (),
        skip: int = 0,
        via_shell: bool = False,
        no_cluster: bool = False,
        numeric: bool = False,
    ) -> None:
        self.short_value = short_value  # short options that take a value: "uCgD"
        self.long_value = frozenset(long_value)  # long options that take a value
        self.stop = frozenset(stop)  # options (short letters or long names) after which nothing runs
        self.shell_opt = frozenset(shell_opt)  # options whose value is a shell command string
        self.skip = skip  # plain words between the options and the command (a duration, a mask, a file)
        self.via_shell = via_shell  # the wrapped words are joined and run by a shell
        self.no_cluster = no_cluster  # `-name` is one option, not a cluster (find-style)
        self.numeric = numeric  # `-5` is an option (nice)


SPECS: dict[str, Spec] = {
    "nohup": Spec(),
    "builtin": Spec(),
    "chronic": Spec(),
    "unbuffer": Spec(),
    "eatmydata": Spec(),
    "fakeroot": Spec(short_value="ils", long_value=("--lib", "--faked", "-s", "-i")),
    "time": Spec(short_value="of", long_value=("--output", "--format"), stop=()),
    "command": Spec(stop="vV"),
    "exec": Spec(short_value="a"),
    "sudo": Spec(
        short_value="ugCDhprtTUR",
        long_value=(
            "--user",
            "--group",
            "--chdir",
            "--prompt",
            "--role",
            "--type",
            "--host",
            "--other-user",
            "--close-from",
            "--chroot",
            "--command-timeout",
        ),
        stop=("e", "l", "v", "k", "K", "V", "--edit", "--list", "--validate", "--version", "--help"),
    ),
    "doas": Spec(short_value="uC", stop=()),
    "nice": Spec(short_value="n", long_value=("--adjustment",), numeric=True),
    "ionice": Spec(
        short_value="cnt", long_value=("--class", "--classdata"), stop=("p", "P", "u", "--pid", "--pgid", "--uid")
    ),
    "caffeinate": Spec(short_value="tw"),
    "stdbuf": Spec(short_value="ioe", long_value=("--input", "--output", "--error")),
    "timeout": Spec(short_value="sk", long_value=("--signal", "--kill-after"), skip=1),
    "setsid": Spec(),
    "chrt": Spec(skip=1),
    "prlimit": Spec(short_value="p", long_value=("--pid",)),
    "taskset": Spec(stop=("p", "--pid"), skip=1),
    "chroot": Spec(long_value=("--userspec", "--groups"), skip=1),
    "unshare": Spec(short_value="S", long_value=("--setuid", "--setgid", "--wd", "--root")),
    "flock": Spec(
        short_value="wEc",
        long_value=("--timeout", "--conflict-exit-code", "--command"),
        shell_opt=("c", "--command"),
        skip=1,
    ),
    "su": Spec(
        short_value="sgGcwC",
        long_value=("--shell", "--group", "--supp-group", "--command", "--whitelist-environment", "--session-command"),
        shell_opt=("c", "C", "--command", "--session-command"),
        skip=-1,
    ),
    "runuser": Spec(
        short_value="sgGcuw",
        long_value=("--shell", "--group", "--supp-group", "--command", "--user"),
        shell_opt=("c", "--command"),
        skip=-1,
    ),
    "script": Spec(
        short_value="cIOBTEm",
        long_value=("--command", "--log-in", "--log-out", "--log-io", "--log-timing", "--echo", "--logging-format"),
        shell_opt=("c", "--command"),
        skip=-1,
    ),
    "sg": Spec(skip=1, via_shell=True),
    "watch": Spec(short_value="nd", long_value=("--interval", "--differences"), via_shell=True),
    "strace": Spec(short_value="eoOpPsSuIXabE", no_cluster=False),
    "ltrace": Spec(short_value="eoOpSuanLlsx"),
    "valgrind": Spec(),
    "faketime": Spec(skip=1),
    "trickle": Spec(short_value="udwtsl"),
    "proxychains": Spec(short_value="f"),
    "proxychains4": Spec(short_value="f"),
    "torsocks": Spec(),
    "dotenv": Spec(short_value="ecv"),
    "pipx": Spec(),
    "npx": Spec(),
    "bunx": Spec(),
    "entr": Spec(),
    "systemd-run": Spec(
        long_value=(
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--working-directory",
            "--uid",
            "--gid",
            "--nice",
            "--setenv",
        ),
        short_value="pEM",
    ),
}
# `<tool> run [opts] <command>`: the project runners that run a command in their environment
RUN_VERB = {
    "uv": "run",
    "poetry": "run",
    "pipenv": "run",
    "pdm": "run",
    "hatch": "run",
    "rye": "run",
    "pixi": "run",
    "conda": "run",
    "mamba": "run",
    "micromamba": "run",
    "devbox": "run",
    "bundle": "exec",
    "mise": "exec",
    "rtx": "exec",
    "asdf": "exec",
    "rbenv": "exec",
    "pyenv": "exec",
    "nvm": "exec",
    "doppler": "run",
    "infisical": "run",
    "op": "run",
    "dotenvx": "run",
    "aws-vault": "exec",
}
RUN_VALUE = frozenset(
    {
        "--with",
        "--python",
        "-p",
        "--env",
        "-e",
        "--directory",
        "--project",
        "--extra",
        "--group",
        "--package",
        "-n",
        "--name",
        "--prefix",
        "--env-file",
        "-f",
        "--config",
        "--project-root",
    }
)
# commands that run others their own way, read in runs_others.py (loaded only when one is called)
RUNS_OTHERS = frozenset({"find", "nix", "hyperfine", "tmux", "screen"})
SPECIAL = frozenset({"env", "xargs", "parallel", "direnv", "!"}) | RUNS_OTHERS
WRAPPERS = frozenset(SPECS) | frozenset(RUN_VERB) | SPECIAL


def _options(spec: Spec, args: list[Word]) -> tuple[int, str | None, Word | None, list[str]]:
    """Walk the options: (index of the first operand, a stop option hit, a shell string, options seen)."""
    i = 0
    seen: list[str] = []
    while i < len(args):
        word = args[i]
        if not word.literal:
            return i, None, None, seen
        text = word.text
        if text == "--":
            return i + 1, None, None, seen
        if not text.startswith("-") or text == "-":
            if text == "-" and "-" not in seen:  # `su -` is a login shell
                seen.append("-")
                i += 1
                continue
            return i, None, None, seen
        if text.startswith("--"):
            found = _long_option(spec, args, i, seen)
            if isinstance(found, tuple):
                return found
            i = found
            continue
        if spec.numeric and text[1:].isdigit():
            i += 1
            continue
        if spec.no_cluster:
            seen.append(text)
            i += 1
            continue
        letters = text[1:]
        for index, letter in enumerate(letters):
            seen.append(letter)
            if letter in spec.stop:
                return i, letter, None, seen
            if letter in spec.short_value:
                attached = letters[index + 1 :]
                value_word = Word(attached, True) if attached else (args[i + 1] if i + 1 < len(args) else None)
                if letter in spec.shell_opt:
                    return i + (1 if attached else 2), None, value_word, seen
                i += 1 if attached else 2
                break
        else:
            i += 1
    return i, None, None, seen


def _long_option(
    spec: Spec, args: list[Word], i: int, seen: list[str]
) -> int | tuple[int, str | None, Word | None, list[str]]:
    """One `--name[=value]` at args[i]: the index after it, or _options' answer when it ends the walk."""
    word = args[i]
    name, eq, value = word.text.partition("=")
    seen.append(name)
    if name in spec.stop:
        return i, name, None, seen
    if name in spec.long_value and not eq:
        if name in spec.shell_opt:
            return i + 2, None, args[i + 1] if i + 1 < len(args) else None, seen
        return i + 2
    if name in spec.shell_opt and eq:
        return i + 1, None, Word(value, word.literal), seen
    return i + 1


def unwrap(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None
) -> Unwrapped:
    """The wrapped command as (words, cwd); None when nothing (more) runs; False when not a wrapper."""
    if name in RUN_VERB:
        return _run_verb(name, args, cwd)
    if name in SPECIAL:
        return _special(an, name, args, cmd, cwd, env, stdin)
    spec = SPECS.get(name)
    if spec is None:
        return False
    return _by_spec(an, name, spec, args, cmd, cwd, env)


def _by_spec(
    an: Analyzer, name: str, spec: Spec, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]
) -> Unwrapped:
    """A wrapper read by its Spec: its options, sudo's prefix, su's operand, flock's options after it."""
    start, stopped, shell_string, seen = _options(spec, args)
    if stopped is not None:
        return None
    if shell_string is not None:
        an.shell_string(shell_string, cmd, cwd)
        return None
    if name in ("sudo", "doas"):
        for flag, value in _sudo_dirs(args[:start]):
            if flag in ("-D", "--chdir"):
                cwd = _join(cwd, value)
        while start < len(args) and args[start].literal and shell._ASSIGNMENT.match(args[start].text):
            key, _, assigned = args[start].text.partition("=")
            env[key] = assigned
            start += 1
        if ({"i", "s", "--login", "--shell"} & set(seen)) and start < len(args):
            _via_shell(an, args[start:], cmd, cwd)
            return None
    skip = spec.skip
    if skip < 0:  # su/runuser/script: an optional user or file before (or after) the options
        rest = args[start:]
        if rest and rest[0].literal and not rest[0].text.startswith("-"):
            _more_start, _, more_shell, _ = _options(spec, rest[1:])
            if more_shell is not None:
                an.shell_string(more_shell, cmd, cwd)
        return None  # `su user` alone starts an interactive shell: nothing to read
    start += skip
    if skip and spec.shell_opt and start < len(args):  # `flock FILE -c 'cmd'`: options after the operand
        more, _, shell_after, _ = _options(spec, args[start:])
        if shell_after is not None:
            an.shell_string(shell_after, cmd, cwd)
            return None
        start += more
    if start >= len(args):
        return None
    if spec.via_shell:
        _via_shell(an, args[start:], cmd, cwd)
        return None
    return args[start:], cwd


def _sudo_dirs(options: list[Word]) -> list[tuple[str, Word]]:
    found = []
    for index, word in enumerate(options):
        if word.text in ("-D", "--chdir") and index + 1 < len(options):
            found.append((word.text, options[index + 1]))
        elif word.text.startswith("--chdir="):
            found.append(("--chdir", Word(word.text.split("=", 1)[1], word.literal)))
    return found


def _via_shell(an: Analyzer, words: list[Word], cmd: Command, cwd: str | None) -> None:
    """Words a wrapper joins with spaces and hands to `sh -c` (watch, sg, sudo -i)."""
    if all(w.literal for w in words):
        an.nested(" ".join(w.text for w in words), cmd, cwd)
    else:
        an.add("strict", f"a shell runs computed words {' '.join(w.text for w in words)[:60]!r}", cmd, cwd, always=True)
    return None


def _run_verb(name: str, args: list[Word], cwd: str | None) -> Unwrapped:
    verb = RUN_VERB[name]
    if not args or not args[0].literal:
        return False
    i = 0
    if name in ("nvm",) and args[0].text == verb:
        i = 2  # nvm exec <version> <command>
    elif name == "aws-vault" and args[0].text == verb:
        i = 2  # aws-vault exec <profile> -- <command>
    elif args[0].text == verb:
        i = 1
    else:
        return False
    while i < len(args) and args[i].literal and args[i].text.startswith("-") and args[i].text != "--":
        i += 2 if args[i].text in RUN_VALUE else 1
    if i < len(args) and args[i].text == "--":
        i += 1
    return (args[i:], cwd) if i < len(args) else None


def _join(cwd: str | None, word: Word | None) -> str | None:
    if word is None or not word.literal:
        return None
    if os.path.isabs(word.text):
        return os.path.normpath(word.text)
    return os.path.normpath(os.path.join(cwd, word.text)) if cwd else None


def _lit(args: list[Word], i: int) -> str | None:
    return args[i].text if i < len(args) and args[i].literal else None


def _special(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None
) -> Unwrapped:
    """Commands that run other commands their own way; False when name is none of them."""
    if name == "!":
        return args, cwd
    if name in ("env", "xargs", "parallel"):
        from .env_xargs import read_env, read_parallel, read_xargs

        if name == "env":
            return read_env(an, args, cmd, cwd, env)
        return (read_xargs if name == "xargs" else read_parallel)(an, args, cmd, cwd, env, stdin)
    if name == "direnv":
        return (args[2:], _join(cwd, args[1])) if _lit(args, 0) == "exec" and len(args) >= 2 else None
    if name not in RUNS_OTHERS:
        return False
    from .runs_others import HANDLERS

    return HANDLERS[name](an, name, args, cmd, cwd, env)
