"""Commands that run other commands their own way, for the push gate's wrapper reading
(wrappers.py): find's -exec/-ok and -delete, nix-shell's --command/--run, hyperfine's benchmarked
commands, and tmux/screen sessions. Loaded only when one of them is called."""

from __future__ import annotations

from .shell import Word
from .wrappers import _lit as lit
from .wrappers import _via_shell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    from .push import Analyzer
    from .shell import Command
    from .wrappers import Unwrapped

    Handler: TypeAlias = Callable[[Analyzer, str, list[Word], Command, "str | None", dict[str, str]], Unwrapped]


def _find(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> Unwrapped:
    """find -exec/-ok run a command; -delete removes what it finds; -fprint and -fls write a file."""
    index = 0
    while index < len(args):
        if lit(args, index) in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and lit(args, end) not in (";", "+"):
                end += 1
            if args[index + 1 : end]:
                an.exec(list(args[index + 1 : end]), cmd, cwd, dict(env), None)
            index = end
        elif lit(args, index) == "-delete":  # removes what it finds under its starting points
            from .writes import check

            sweeping = _find_may_match_protected(args)
            for start in args[: next((k for k, w in enumerate(args) if w.text.startswith("-")), len(args))] or [
                Word(".")
            ]:
                check(an, start, cwd, cmd.source, recursive=sweeping)
        elif lit(args, index) in ("-fprint", "-fprintf", "-fls") and index + 1 < len(args):
            an.write(args[index + 1], cwd, cmd.source)
        index += 1
    return None


def _nix(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> Unwrapped:
    """nix-shell --command/-c runs the rest; --run runs a shell string."""
    for index, word in enumerate(args):
        if word.literal and word.text in ("--command", "-c"):
            return args[index + 1 :], cwd
    for index, word in enumerate(args):
        if word.literal and word.text == "--run" and index + 1 < len(args):
            an.shell_string(args[index + 1], cmd, cwd)
            return None
    return False


_HYPERFINE_WITH_VALUE = frozenset(
    {
        "-r",
        "--runs",
        "-w",
        "--warmup",
        "-m",
        "--min-runs",
        "-M",
        "--max-runs",
        "-L",
        "--parameter-list",
        "-P",
        "--parameter-scan",
        "--export-json",
        "--export-markdown",
        "-S",
        "--shell",
        "-n",
        "--command-name",
    }
)


def _hyperfine(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]
) -> Unwrapped:
    """Every operand is a shell command; so are --prepare/--setup/--cleanup/--conclude."""
    index = 0
    while index < len(args):
        text = lit(args, index)
        if text in ("-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "--conclude") and index + 1 < len(args):
            an.shell_string(args[index + 1], cmd, cwd)
            index += 2
            continue
        if text is not None and text.startswith("-"):
            index += 2 if text in _HYPERFINE_WITH_VALUE else 1
            continue
        an.shell_string(args[index], cmd, cwd)
        index += 1
    return None


def _multiplexer(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]
) -> Unwrapped:
    """tmux and screen: a detached session that runs a command string."""
    operands = [w for w in args if not (w.literal and w.text.startswith("-"))]
    if (
        name == "tmux"
        and operands
        and operands[0].literal
        and operands[0].text
        in (
            "new",
            "new-session",
            "new-window",
            "neww",
            "split-window",
            "splitw",
            "run-shell",
            "run",
            "send-keys",
            "send",
            "respawn-pane",
            "respawn-window",
        )
    ):
        tail = [w for w in args[1:] if not (w.literal and w.text.startswith("-"))]
        if tail:
            an.shell_string(tail[-1], cmd, cwd)
        return None
    if name == "screen" and operands:
        _via_shell(an, operands, cmd, cwd)
    return None


HANDLERS: dict[str, Handler] = {
    "find": _find,
    "nix": _nix,
    "hyperfine": _hyperfine,
    "tmux": _multiplexer,
    "screen": _multiplexer,
}


# names find -delete could remove that belong to the record (Hallmark's state, git's own, Claude's settings)
PROTECTED_NAMES = (
    ".git",
    "hallmark",
    "events.jsonl",
    "item.json",
    "counters.json",
    "index.sqlite",
    "settings.json",
    "settings.local.json",
    ".hallmark.toml",
    "hooks",
    "pre-push",
    "config",
    "packed-refs",
    "notes",
)


def _find_may_match_protected(args: list[Word]) -> bool:
    """Without a name test find removes everything under its start; with one, only what it matches."""
    import fnmatch

    tests = [
        args[k + 1]
        for k, w in enumerate(args[:-1])
        if w.literal and w.text in ("-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename")
    ]
    if not tests:
        return True
    for test in tests:
        if not test.literal:
            return True
        pattern = test.text.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatch(name, pattern) for name in PROTECTED_NAMES):
            return True
    return any(w.literal and w.text in ("-regex", "-iregex", "-o", "-or", "!", "-not") for w in args)
