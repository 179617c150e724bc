"""`hall`: parse, call one core verb, print JSON (or text on a TTY). With no arguments on a TTY,
the terminal app.

Where things are: commands.py is the table of every command (its group's module, its handler, its
summary) and of every schema; each group's module (items.py, loop.py, …) declares its commands
beside their handlers; framework.py is argparse and the output; text.py how a TTY shows replies.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from typing import Any

from hallmark.core.errors import HallError

from .commands import COMMANDS, load
from .framework import Parser, attach, describe_parser, emit, emit_error, wants_json


def build_parser(command: str | None = None) -> Parser:
    """The argument parser. For `hall <command>` only that command's module is imported (the table
    in commands.py says which); for a name the table lacks (a typo, or none: `hall --help`) every
    name with its summary, loading no module, so argparse can list them; with no argument at all,
    every command in full (`hall help --json` describes them)."""
    parser = Parser(prog="hall", description="Hallmark: an agent-first development loop for git repositories.")
    parser.add_argument("-C", dest="chdir", metavar="DIR", help="run as if started in DIR")
    sub = parser.add_subparsers(dest="cmd", metavar="<command>", parser_class=Parser)
    if command is not None and command not in COMMANDS:
        for name, info in COMMANDS.items():
            sub.add_parser(name, help=info.summary, description=info.summary)
        return parser
    for name in COMMANDS if command is None else [command]:
        attach(sub, COMMANDS[name].summary, load(name))
    return parser


def command_of(argv: list[str]) -> str | None:
    """The subcommand named in argv (skipping -C DIR), without parsing the rest."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "-C":
            skip = True
            continue
        if arg.startswith("-"):
            continue
        return arg
    return None


def _open_app_or_status(as_json: bool) -> int:
    if not as_json and sys.stdin.isatty() and sys.stdout.isatty():
        from .app import run_app

        return run_app(None)
    from hallmark.core import items
    from hallmark.core.repo import open_repo

    from .items import status_all_reply

    try:
        result = status_all_reply(items.status_all(open_repo()))
    except HallError as exc:
        emit_error(exc, as_json=True)
        return exc.exit_code
    emit(result, as_json=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    forced_json = "--json" in args_in
    args_in = [a for a in args_in if a != "--json"]
    as_json = wants_json(forced_json)
    try:
        if not [a for a in args_in if a not in ("-C",)] or args_in == []:
            return _finish(_open_app_or_status(as_json))
        from hallmark.core import agent_channel

        if agent_channel.should_forward(args_in):  # inside the sandbox: the agent-verb channel records it
            return _finish(agent_channel.forward(args_in + (["--json"] if forced_json else [])))
        parser = build_parser(command_of(args_in) or "")  # no command named: list them, load none
        Parser.json_output = as_json
        args = parser.parse_args(args_in)
        if args.chdir:
            os.chdir(args.chdir)
        refuse_agents(args_in)
        if not getattr(args, "handler", None):
            if args.cmd is None:
                return _finish(_open_app_or_status(as_json))
            raise HallError("USAGE", f"hall {args.cmd} needs a subcommand.", [f"hall {args.cmd} --help"])
        args.as_json = as_json
        result: dict[str, Any] = args.handler(args)
        exit_code = int(result.pop("_exit", 0)) if isinstance(result, dict) else 0
        if result is not None:
            emit(result, as_json=as_json, text=getattr(args, "text", None))
        return _finish(exit_code)
    except HallError as exc:
        emit_error(exc, as_json=as_json)
        return _finish(exc.exit_code)
    except KeyboardInterrupt:
        return _finish(130)
    except BrokenPipeError:
        return _finish(0)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: an internal error is data too
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        if os.environ.get("HALLMARK_DEBUG"):
            traceback.print_exc()
        emit_error(
            HallError(
                "INTERNAL", f"internal error: {detail}", ["hall doctor", "HALLMARK_DEBUG=1 to see the traceback"]
            ),
            as_json=as_json,
        )
        return _finish(1)


def refuse_agents(argv: list[str]) -> None:
    """A person's decision (core/person_only.py) is refused under an agent, whatever the command
    does itself: the hook gate denies these too; this is the belt and braces (GATE_DENIED, exit 5)."""
    from hallmark.core import person_only
    from hallmark.core.actor import require_person

    taken = person_only.action(argv)
    if taken is None:
        return
    try:
        require_person(taken)
    except HallError as exc:
        if taken.startswith("hall library"):
            _audit_library_denial(argv, exc)
        raise


def _audit_library_denial(argv: list[str], exc: HallError) -> None:
    """A refused memory decision is written to the library's audit log too, with who really tried
    (the store does the same when it is called directly; the log must not depend on which wall held)."""
    from hallmark.core import person_only
    from hallmark.core.memory import access
    from hallmark.core.repo import current_actor, open_repo

    words, _ = person_only.command_words(argv)
    action = words[1] if len(words) > 1 else "library"
    lid = words[2] if len(words) > 2 and words[2].upper().startswith("L-") else None
    with contextlib.suppress(HallError):  # not a Hallmark repo: nothing to audit, the refusal stands
        access.audit_denial(open_repo(), action, lid, current_actor(), exc.message)


def _finish(code: int) -> int:
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    return code


def entry() -> None:
    raise SystemExit(main())


GLOBAL_OPTIONS: list[dict[str, Any]] = [
    {"name": "--json", "flags": ["--json"], "help": "print JSON even on a TTY (JSON is the default on a pipe)"},
    {"name": "-C", "flags": ["-C"], "help": "run as if started in DIR"},
]


def help_json() -> dict[str, Any]:
    """Every command with its arguments (this loads every command's module), and the groups."""
    from .meta import groups

    return {"commands": describe_parser(build_parser()), "groups": groups(), "global_options": GLOBAL_OPTIONS}


if __name__ == "__main__":  # pragma: no cover
    entry()
