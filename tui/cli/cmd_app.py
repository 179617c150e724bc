"""`hall tui [--repo PATH]`: the terminal app. `hall` with no arguments on a TTY calls run_app."""

from __future__ import annotations

import argparse
from typing import Any

from .framework import add


def run_app(path: str | None, *, mouse: bool = True) -> int:
    from hallmark.tui.app import HallmarkApp

    HallmarkApp(path).run(mouse=mouse)
    return 0


def _tui(args: argparse.Namespace) -> dict[str, Any] | None:
    run_app(args.repo, mouse=not args.no_mouse)
    return None


def register(sub: argparse._SubParsersAction) -> None:
    parser = add(sub, "tui", _tui, "Open the terminal app (floor plan, boards, traces, drain, inbox, usage).")
    parser.add_argument("--repo", metavar="PATH", default=None, help="the repository to open (default: here)")
    parser.add_argument("--no-mouse", action="store_true", help="ignore the mouse (every action has a key)")
