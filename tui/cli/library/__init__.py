"""`hall library …`: the memory store's command-line face (learnings, decisions, moving them in
and out). The checkpoint and notes are in notes.py.

One command group in two parts, each declaring its subcommands on its handlers: learnings.py (the
learnings and the person's decisions on them) and moves.py (decisions, import, export, the
librarian, identity). Joined here, in that order, into the group the command table names.
"""

from __future__ import annotations

from hallmark.tui.cli.framework import Group

from .learnings import learning_commands
from .moves import move_commands


def _joined(name: str, *parts: Group) -> Group:
    whole = Group(name)
    for part in parts:
        for sub, command in part.commands.items():
            if sub in whole.commands:
                raise ValueError(f"hall {name} {sub} is declared twice")
            whole.commands[sub] = command
    return whole


library_group = _joined("library", learning_commands, move_commands)
