"""The wrappers with their own option grammar, for the push gate's wrapper reading (wrappers.py):
env(1) (-C, -S, --split-string, VAR=value), and xargs(1) and parallel(1), which append the words they
read from stdin (or after `:::`) to the command they run. Their options are no `Spec` table's shape,
so each has its own walk here; loaded when one of them is called.
"""

from __future__ import annotations

import os

from . import shell
from .shell import Word
from .wrappers import _join as join

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command
    from .wrappers import Inner, Unwrapped


def read_env(an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> Unwrapped:  # noqa: C901 - one walk over env(1)'s option shapes (-, --, --name[=v], -uCS clusters, VAR=v)
    i = 0
    while i < len(args):
        word = args[i]
        if not word.literal:
            break
        flag = word.text
        if flag in ("-", "--"):
            i += 1
            if flag == "--":
                break
            continue
        if flag.startswith("--"):
            name, eq, value = flag.partition("=")
            if (
                name
                in ("--unset", "--chdir", "--split-string", "--default-signal", "--ignore-signal", "--block-signal")
                and not eq
            ):
                value_word = args[i + 1] if i + 1 < len(args) else None
                i += 2
            else:
                value_word = Word(value, True) if eq else None
                i += 1
            if name == "--chdir":
                cwd = join(cwd, value_word)
            elif name == "--split-string":
                return _split(an, value_word, args[i:], cmd, cwd)
            continue
        if flag.startswith("-") and len(flag) > 1:
            letters = flag[1:]
            consumed = 1
            for index, letter in enumerate(letters):
                if letter in "uCS":
                    attached = letters[index + 1 :]
                    value_word = Word(attached, True) if attached else (args[i + 1] if i + 1 < len(args) else None)
                    consumed = 1 if attached else 2
                    if letter == "C":
                        cwd = join(cwd, value_word)
                    elif letter == "S":
                        return _split(an, value_word, args[i + consumed :], cmd, cwd)
                    break
            i += consumed
            continue
        if shell._ASSIGNMENT.match(flag):
            key, _, value = flag.partition("=")
            env[key] = value
            i += 1
            continue
        break
    while i < len(args) and args[i].literal and shell._ASSIGNMENT.match(args[i].text):
        key, _, value = args[i].text.partition("=")
        env[key] = value
        i += 1
    return (args[i:], cwd) if i < len(args) else None


def _split(an: Analyzer, inner: Word | None, rest: list[Word], cmd: Command, cwd: str | None) -> Inner | None:
    """`env -S 'words'`: the string is split like a command line and runs before the other words."""
    if inner is None:
        return None
    if not inner.literal:
        an.add("strict", "env -S with a computed string", cmd, cwd, always=True)
        return None
    from .git_cmds import shell_split

    split = shell_split(inner.text)
    if split is None:
        an.add("strict", "env -S string cannot be split", cmd, cwd, always=True)
        return None
    return [Word(w) for w in split] + rest, cwd


XARGS_VALUE = frozenset(
    {
        "-a",
        "--arg-file",
        "-d",
        "--delimiter",
        "-E",
        "-e",
        "-I",
        "-i",
        "-L",
        "-l",
        "-n",
        "--max-args",
        "-P",
        "--max-procs",
        "-s",
        "--max-chars",
        "--process-slot-var",
        "--eof",
        "--replace",
        "--max-lines",
    }
)


def read_xargs(
    an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None
) -> Inner | None:
    """xargs runs its command (echo by default) with the words it reads from stdin appended."""
    i = 0
    replace = False
    while i < len(args) and args[i].literal and args[i].text.startswith("-") and args[i].text != "--":
        text = args[i].text
        replace = replace or text in ("-I", "-i", "--replace") or text.startswith(("-I", "--replace="))
        takes = text in XARGS_VALUE and "=" not in text
        i += 2 if takes else 1
    if i < len(args) and args[i].text == "--":
        i += 1
    inner = args[i:] or [Word("echo")]
    if stdin is not None and stdin != shell.UNKNOWN and not replace:
        from .git_cmds import shell_split

        fed = shell_split(stdin.replace("\n", " ")) or []
        an.exec(inner + [Word(w) for w in fed], cmd, cwd, dict(env), None)
        return None
    if stdin == shell.UNKNOWN or stdin is None:
        head = inner[0].text if inner[0].literal else ""
        if os.path.basename(head) in FED_WORDS_MATTER:
            an.add("strict", f"xargs feeds words the gate cannot read to {head}", cmd, cwd, always=True)
            return None
    return inner, cwd


# commands whose meaning words read from stdin can change (xargs/parallel append them)
FED_WORDS_MATTER = frozenset(
    {
        "git",
        "gh",
        "hall",
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "env",
        "sudo",
        "eval",
        "glab",
        "hub",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "make",
        "just",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "curl",
        "xargs",
        "parallel",
        "source",
        ".",
    }
)


def read_parallel(
    an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None
) -> Inner | None:
    separators = [k for k, w in enumerate(args) if w.literal and w.text in (":::", "::::", ":::+", "::::+")]
    end = separators[0] if separators else len(args)
    inner = [w for w in args[:end] if not (w.literal and w.text.startswith("-"))]
    if not inner:
        return None
    if separators:
        values = [w for w in args[separators[0] + 1 :] if not (w.literal and w.text.startswith(":::"))]
        if any(not w.literal for w in values) or args[separators[0]].text.startswith("::::"):
            head = inner[0].text if inner[0].literal else ""
            if os.path.basename(head) in FED_WORDS_MATTER:
                an.add("strict", f"parallel feeds words the gate cannot read to {head}", cmd, cwd, always=True)
            return None
        for value in values or [Word("")]:
            words = [Word(w.text.replace("{}", value.text)) if w.literal else w for w in inner]
            if not any("{}" in w.text for w in inner):
                words.append(value)
            an.exec(words, cmd, cwd, dict(env), None)
        return None
    return read_xargs(an, inner, cmd, cwd, env, stdin)
