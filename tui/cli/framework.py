"""The command line's frame: argparse that raises data errors, commands declared beside their
handlers, JSON-or-text output, exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from hallmark.core.errors import HallError

if TYPE_CHECKING:
    from hallmark.core.results import Result

Handler = Callable[[argparse.Namespace], dict[str, Any] | None]  # None: it printed its own output
TextRenderer = Callable[[dict[str, Any]], Any]


class Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as USAGE errors (exit 2) instead of printing usage.

    With JSON output (stdout not a TTY, or --json), `--help` prints the command's description
    as JSON too, so an agent never has to read prose.
    """

    json_output = False  # set by main() before parsing

    def error(self, message: str) -> NoReturn:
        raise HallError("USAGE", f"{self.prog}: {message}", [f"{self.prog} --help", "hall help --json"])

    def print_help(self, file: Any = None) -> None:
        if not Parser.json_output:
            super().print_help(file)
            return
        entry = describe_command(self, self.prog.removeprefix("hall").strip())
        entry["next"] = ["hall help --json"]
        sys.stdout.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)


@dataclass(frozen=True, slots=True)
class Arg:
    """One argparse argument (`add_argument(*flags, **options)`), declared beside its handler."""

    flags: tuple[str, ...]
    options: dict[str, Any]


def arg(*flags: str, **options: Any) -> Arg:
    return Arg(flags, options)


@dataclass(frozen=True, slots=True)
class Command:
    """A command as its module declares it: the handler, its arguments and how a TTY shows its reply.

    A top-level command's name and summary live in the command table (commands.py), which points
    here; a group's subcommand carries its own summary. `replies`: the core result types its reply
    is made of (`hall schema <command>` describes the reply from them; the CLI adds `next`).
    """

    name: str
    handler: Handler
    args: tuple[Arg, ...] = ()
    text: TextRenderer | None = None
    summary: str | None = None
    replies: tuple[type[Result], ...] = ()

    def __call__(self, args: argparse.Namespace) -> dict[str, Any] | None:
        return self.handler(args)


def command(
    name: str,
    summary: str | None = None,
    *,
    text: TextRenderer | None = None,
    args: list[Arg] | tuple[Arg, ...] = (),
    replies: tuple[type[Result], ...] = (),
) -> Callable[[Handler], Command]:
    """Declare a command on its handler: `@command("drop", text=..., args=[arg("--reason", required=True)],
    replies=(Dropped,))`."""

    def declare(handler: Handler) -> Command:
        return Command(name, handler, tuple(args), text, summary, tuple(replies))

    return declare


@dataclass(slots=True)
class Group:
    """A command made of subcommands (`hall library accept`): each declared with `@group.command`."""

    name: str
    dest: str = ""  # where argparse puts the subcommand's name (default: <name>_cmd)
    metavar: str = "<subcommand>"
    commands: dict[str, Command] = field(default_factory=dict)

    def command(
        self,
        name: str,
        summary: str,
        *,
        text: TextRenderer | None = None,
        args: list[Arg] | tuple[Arg, ...] = (),
        replies: tuple[type[Result], ...] = (),
    ) -> Callable[[Handler], Command]:
        def declare(handler: Handler) -> Command:
            if name in self.commands:
                raise ValueError(f"hall {self.name} {name} is declared twice")
            self.commands[name] = Command(name, handler, tuple(args), text, summary, tuple(replies))
            return self.commands[name]

        return declare


def attach(sub: argparse._SubParsersAction, summary: str, spec: Command | Group) -> Parser:
    """Add a declared command (or group, with every subcommand) to the parser's subcommands."""
    parser = sub.add_parser(spec.name, help=summary, description=summary)
    if isinstance(spec, Group):
        parser.set_defaults(handler=None, text=None, command=spec.name)
        inner = parser.add_subparsers(dest=spec.dest or f"{spec.name}_cmd", metavar=spec.metavar, parser_class=Parser)
        for child in spec.commands.values():
            attach(inner, child.summary or "", child)
        return parser
    parser.set_defaults(handler=spec.handler, text=spec.text, command=spec.name)
    for argument in spec.args:
        parser.add_argument(*argument.flags, **argument.options)
    return parser


def with_next(result: Result, nxt: list[str], *after: str) -> dict[str, Any]:
    """A verb's JSON reply: the result's keys, `next`, then the keys named in `after` (a few replies
    have always printed those after `next`: scripts that read them by position keep working)."""
    data = result.to_dict()
    tail = {key: data.pop(key) for key in after if key in data}
    return {**data, "next": nxt, **tail}


def wants_json(forced: bool) -> bool:
    return forced or not sys.stdout.isatty()


def emit(result: dict[str, Any], *, as_json: bool, text: TextRenderer | None = None) -> None:
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, default=str) + "\n")
        return
    from rich.console import Console

    from .text import clean_tree

    result = clean_tree(result)  # a title or a model's words must not drive the terminal
    console = Console()
    if text is not None:
        rendered = text(result)
        if rendered is not None:
            console.print(rendered)
    else:
        console.print(generic_text(result))
    nxt = result.get("next") or []
    if nxt:
        console.print("[dim]next:[/dim] " + "  ·  ".join(f"[bold]{n}[/bold]" for n in nxt))


def emit_error(error: HallError, *, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(error.to_dict(), ensure_ascii=False) + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    from .text import clean

    console = Console(stderr=True)
    console.print(f"[bold red]{error.code}[/bold red] {escape(clean(error.message))}", highlight=False)
    if error.next:
        console.print("[dim]try:[/dim] " + "  ·  ".join(escape(clean(n)) for n in error.next), highlight=False)


def generic_text(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan")
    table.add_column()
    for key, value in result.items():
        if key == "next":
            continue
        if isinstance(value, dict | list):
            value = json.dumps(value, ensure_ascii=False, indent=1, default=str)
        table.add_row(str(key), "" if value is None else str(value))
    return table


def _json_type(arg: argparse.Action) -> str:
    if isinstance(arg, argparse._StoreTrueAction | argparse._StoreFalseAction | argparse._StoreConstAction):
        return "boolean"
    if arg.nargs in ("*", "+") or isinstance(arg.nargs, int) or isinstance(arg, argparse._AppendAction):
        return "array"
    if arg.type is int or isinstance(arg, argparse._CountAction):
        return "integer"
    if arg.type is float:
        return "number"
    return "string"


def describe_arguments(parser: argparse.ArgumentParser) -> list[dict[str, Any]]:
    args = []
    for arg in parser._actions:
        if isinstance(arg, argparse._HelpAction | argparse._SubParsersAction):
            continue
        args.append(
            {
                "name": arg.dest if not arg.option_strings else arg.option_strings[-1],
                "flags": arg.option_strings,
                "required": bool(arg.required) if arg.option_strings else arg.nargs not in ("?", "*"),
                "help": arg.help or "",
                "nargs": arg.nargs if isinstance(arg.nargs, str | int) else None,
                "choices": list(arg.choices) if arg.choices else None,
                "type": _json_type(arg),
            }
        )
    return args


def describe_command(parser: argparse.ArgumentParser, full: str) -> dict[str, Any]:
    return {
        "command": f"hall {full}".strip(),
        "help": parser.description or "",
        "arguments": describe_arguments(parser),
    }


def describe_parser(parser: argparse.ArgumentParser, prefix: str = "") -> list[dict[str, Any]]:
    """Every command with its arguments, for `hall help --json`."""
    commands: list[dict[str, Any]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if name in action._name_parser_map and sub.prog.split()[-1] != name:
                    continue  # an alias
                full = f"{prefix} {name}".strip()
                nested = describe_parser(sub, full)
                entry = describe_command(sub, full)
                if nested:
                    entry["subcommands"] = [c["command"] for c in nested]
                commands.append(entry)
                commands.extend(nested)
    return commands
