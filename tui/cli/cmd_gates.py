"""`hall setup claude` (install the Claude Code plugin) and `hall hook <event>` (= hall-hook)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .framework import Parser, add


def cmd_setup_claude(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.plugin_install import install

    result = install(dry_run=args.dry_run)
    if args.sandbox:  # the sandbox wall (core/sandbox_profile.py): the profile in the user's settings
        from pathlib import Path

        from hallmark.core import sandbox_profile

        result["sandbox"] = sandbox_profile.install(Path.cwd(), dry_run=args.dry_run)
    return result


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


def cmd_hook(args: argparse.Namespace) -> dict[str, Any] | None:
    """Run a hook exactly as hall-hook would: stdin JSON in, Claude Code's answer out."""
    from hallmark.hooks.main import main as hook_main

    hook_main([args.event])
    sys.stdout.flush()
    raise SystemExit(0)


def register(sub: argparse._SubParsersAction) -> None:
    setup = add(sub, "setup", lambda a: {}, "Set Hallmark up for a tool (claude).")
    inner = setup.add_subparsers(dest="tool", metavar="<tool>", parser_class=Parser)
    p = add(inner, "claude", cmd_setup_claude,
            "Install the Claude Code plugin for this user (atomic; writes the absolute path of hall-hook).")
    p.add_argument("--dry-run", action="store_true", help="stage and validate, change nothing")
    p.add_argument("--sandbox", action="store_true",
                   help="also write Claude Code's sandbox profile for sessions in Hallmark repos (--dry-run shows it)")
    p = add(inner, "git", cmd_setup_git,
            "Install or repair the pre-push hook that refuses unhallmarked pushes (chains any hook already there).")
    p.add_argument("--dry-run", action="store_true", help="say what it would do, change nothing")
    p.add_argument("--remove", action="store_true", help="take Hallmark's hook out and restore the chained one")
    setup.set_defaults(handler=None)

    p = add(sub, "hook", cmd_hook, "Run a Claude Code hook (the same as hall-hook <event>; reads stdin JSON).")
    p.add_argument("event", help="session-start, user-prompt-submit, pre-tool-use, post-tool-use, stop, notification")
