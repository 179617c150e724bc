"""Which `hall` commands are a person's decision: one table, read by the CLI and by the hook gate.

The CLI refuses these under an agent (`core/actor.require_person`, exit 5 GATE_DENIED) and the
push gate denies them wherever they appear in a parsed Bash command; the two read the same table,
so they cannot drift. Both read what an agent can change (its environment, its command line); what
it cannot is the signature each of these decisions is recorded with (core/person_cap.py). The agent's own verbs (propose-ready, ask, fixed, findings, status, log,
library propose|search|briefing, checkpoint set …) are not here and stay open.

Stdlib only: the hook path imports this.
"""

from __future__ import annotations

# (command, subcommand or None, flags or None): the command is a person's when its subcommand is
# given (any positional word for commands whose action is a positional, such as `daemon run`) and,
# when flags are listed, one of them is. argparse accepts any unambiguous prefix of a long option,
# so a flag matches by prefix too.
PERSON_ONLY: tuple[tuple[str, str | None, frozenset[str] | None], ...] = (
    ("ready", None, None),
    ("verdict", None, None),
    ("answer", None, None),
    ("retry", None, None),
    ("budget", None, frozenset({"--grant", "--set"})),
    ("daemon", "run", None),
    ("daemon", "start", None),
    ("daemon", "stop", None),
    ("library", "accept", None),
    ("library", "reject", None),
    ("library", "retire", None),
    ("library", "edit", None),
    ("library", "lock", None),
    ("library", "import", None),
    ("library", "undo", None),
    ("library", "review", frozenset({"--accept", "--reject", "--skip", "--reopen"})),
    ("library", "reconcile", frozenset({"--update", "--retire", "--restore"})),
    ("inbox", None, frozenset({"--dismiss", "--clear"})),
    ("setup", None, None),
)
# `hall` options that come before the command and take a value
GLOBAL_WITH_VALUE = frozenset({"-C"})
# variables that change who acts, which model runs or whose data a `hall` command uses
OVERRIDE_PREFIXES = ("HALL_", "HALLMARK_")


def _flag_matches(given: str, wanted: frozenset[str]) -> str | None:
    name = given.split("=", 1)[0]
    if not name.startswith("--") or len(name) < 3:
        return None
    for flag in wanted:
        if flag == name or flag.startswith(name):
            return flag
    return None


def command_words(argv: list[str]) -> tuple[list[str], list[str]]:
    """(positional words, option words) of a `hall` argv, global options skipped."""
    words: list[str] = []
    options: list[str] = []
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if not words and arg in GLOBAL_WITH_VALUE:
            skip = True
            continue
        if not words and arg.startswith("-C") and len(arg) > 2:
            continue
        if arg == "--":
            words += argv[index + 1 :]
            break
        if arg.startswith("-"):
            options.append(arg)
        else:
            words.append(arg)
    return words, options


def action(argv: list[str]) -> str | None:
    """The person-only action this `hall` argv takes ("hall budget --grant"), or None."""
    words, options = command_words(argv)
    if not words or "-h" in options or "--help" in options:
        return None
    command, rest = words[0], words[1:]
    for name, sub, flags in PERSON_ONLY:
        if name != command:
            continue
        if sub is not None and sub not in (rest if name == "daemon" else rest[:1]):
            continue
        label = f"hall {command}" + (f" {sub}" if sub else "")
        if flags is None:
            return label
        for given in options:
            flag = _flag_matches(given, flags)
            if flag:
                return f"{label} {flag}"
    return None
