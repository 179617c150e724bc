"""`hall setup claude` (install the Claude Code plugin) and `hall hook <event>` (= hall-hook)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .framework import Parser, add


def cmd_setup_claude(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.plugin_install import install

    return install(dry_run=args.dry_run)


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
    setup.set_defaults(handler=None)

    p = add(sub, "hook", cmd_hook, "Run a Claude Code hook (the same as hall-hook <event>; reads stdin JSON).")
    p.add_argument("event", help="session-start, user-prompt-submit, pre-tool-use, post-tool-use, stop, notification")
