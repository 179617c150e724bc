"""Setting up and keeping well: init, doctor, reindex, `setup claude|git`, and `hook <event>` (= hall-hook).

Each command is declared on its handler, with its arguments; its summary is in commands.py. Core
modules are imported inside the handlers: `hall hook` runs on Claude Code's hook path and must
not load the doctor or the installer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import text
from .framework import Group, arg, command


@command(
    "init",
    text=text.init,
    args=[
        arg("--capture", choices=["gate", "ask", "off"], default="gate"),
        arg("--base", help="the base branch (default: origin/HEAD, else the current branch)"),
        arg("--no-claude-md", action="store_true", help="do not write the CLAUDE.md section"),
    ],
)
def cmd_init(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import setup_repo

    return setup_repo.init(Path.cwd(), capture=args.capture, base=args.base, claude_md=not args.no_claude_md)


@command("doctor", text=text.doctor)
def cmd_doctor(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import doctor

    result = doctor.run(Path.cwd())
    if not result["ok"]:
        result["_exit"] = 1
    return result


@command("reindex")
def cmd_reindex(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.repo import open_repo

    repo = open_repo()
    events = repo.index.rebuild()
    return {"events": events, "items": len(repo.index.items()), "next": ["hall status --all"]}


setup_group = Group("setup", dest="tool", metavar="<tool>")


@setup_group.command(
    "claude",
    "Install the Claude Code plugin for this user (atomic; writes the absolute path of hall-hook).",
    args=[
        arg("--dry-run", action="store_true", help="stage and validate, change nothing"),
        arg(
            "--sandbox",
            action="store_true",
            help="also write Claude Code's sandbox profile for sessions in Hallmark repos (--dry-run shows it)",
        ),
    ],
)
def cmd_setup_claude(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.plugin_install import install

    result = install(dry_run=args.dry_run)
    if args.sandbox:  # the sandbox wall (core/sandbox_profile.py): the profile in the user's settings
        from hallmark.core import sandbox_profile

        result["sandbox"] = sandbox_profile.install(Path.cwd(), dry_run=args.dry_run)
    return result


@setup_group.command(
    "git",
    "Install or repair the pre-push hook that refuses unhallmarked pushes (chains any hook already there).",
    args=[
        arg("--dry-run", action="store_true", help="say what it would do, change nothing"),
        arg("--remove", action="store_true", help="take Hallmark's hook out and restore the chained one"),
    ],
)
def cmd_setup_git(args: argparse.Namespace) -> dict[str, Any]:
    """Install or repair Hallmark's pre-push hook in this repository (or take it out with --remove)."""
    from hallmark.core import githooks
    from hallmark.core.paths import discover

    paths = discover(None).require_initialized()  # type: ignore[union-attr]
    if args.remove:
        result = githooks.remove(paths, dry_run=args.dry_run)
        result["next"] = ["hall setup git", "hall doctor"]
        return result
    result = githooks.install(paths, dry_run=args.dry_run)
    result["next"] = ["hall doctor"] if result["ok"] else ["hall doctor", "edit the tracked hook it names"]
    return result


@command(
    "hook",
    args=[
        arg("event", help="session-start, user-prompt-submit, pre-tool-use, post-tool-use, stop, notification"),
    ],
)
def cmd_hook(args: argparse.Namespace) -> dict[str, Any] | None:
    """Run a hook exactly as hall-hook would: stdin JSON in, Claude Code's answer out."""
    from hallmark.hooks.main import main as hook_main

    hook_main([args.event])
    sys.stdout.flush()
    raise SystemExit(0)
