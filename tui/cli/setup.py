"""Setting up and keeping well: init, doctor, reindex, `setup claude|git`, and `hook <event>` (= hall-hook).

Each command is declared on its handler, with its arguments and reply types (core/setup_results.py);
its summary is in commands.py. Core modules are imported inside the handlers: `hall hook` runs on
Claude Code's hook path and must not load the doctor or the installer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hallmark.core.config_raw import CONFIG_NAME
from hallmark.core.setup_results import (
    DoctorReport,
    GitHooksInstalled,
    GitHooksRemoved,
    Initialized,
    PluginInstalled,
    Reindexed,
)

from . import text
from .framework import Group, arg, command, with_next


def init_next(result: Initialized) -> list[str]:
    """First, commit what init wrote: item worktrees are made from the base branch, so they only
    see CLAUDE.md and the project identity once they are committed."""
    written = [CONFIG_NAME] if result.config_written else []
    if result.claude_md in ("created", "replaced", "appended"):
        written.append("CLAUDE.md")
    if result.project_identity.written:
        written.append(Path(result.project_identity.file or ".agentmemory-project").name)
    if result.signing is not None and result.signing.allowed_signers_written and not result.signing.base_trusts:
        written.append(".hallmark/allowed_signers")  # CI's `hall verify` trusts the keys the base lists
    nxt = ['hall new --title "…"', "hall setup claude", "hall doctor"]
    if written:
        nxt.insert(0, f"git add {' '.join(written)} && git commit -m 'Set up Hallmark'")
    return nxt


def doctor_next(report: DoctorReport) -> list[str]:
    """The fix of each failed check, in order; all well, a look at the items."""
    return report.fixes or ["hall status --all"]


@command(
    "init",
    text=text.init,
    replies=(Initialized,),
    args=[
        arg("--capture", choices=["gate", "ask", "off"], default="gate"),
        arg("--base", help="the base branch (default: origin/HEAD, else the current branch)"),
        arg("--no-claude-md", action="store_true", help="do not write the CLAUDE.md section"),
    ],
)
def cmd_init(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import setup_repo

    done = setup_repo.init(Path.cwd(), capture=args.capture, base=args.base, claude_md=not args.no_claude_md)
    return with_next(done, init_next(done), "config_valid")


@command("doctor", text=text.doctor, replies=(DoctorReport,))
def cmd_doctor(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import doctor

    report = doctor.run(Path.cwd())
    reply = {**report.to_dict(), "next": doctor_next(report)}
    if not report.ok:
        reply["_exit"] = 1
    return reply


@command("reindex", replies=(Reindexed,))
def cmd_reindex(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import doctor
    from hallmark.core.repo import open_repo

    return {**doctor.reindex(open_repo()).to_dict(), "next": ["hall status --all"]}


setup_group = Group("setup", dest="tool", metavar="<tool>")


@setup_group.command(
    "claude",
    "Install the Claude Code plugin for this user (atomic; writes the absolute path of hall-hook).",
    replies=(PluginInstalled,),
    args=[
        arg("--dry-run", action="store_true", help="stage and validate, change nothing"),
        arg(
            "--sandbox",
            action="store_true",
            help="also write Claude Code's sandbox profile for sessions in Hallmark repos (--dry-run shows it)",
        ),
        arg(
            "--statusline",
            action="store_true",
            help="also set Claude Code's status line to Hallmark's (`hall statusline`) where none is set; one you have is never replaced",
        ),
    ],
)
def cmd_setup_claude(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.plugin_install import install

    # --sandbox: the sandbox wall (core/sandbox_profile.py), the profile in the user's settings too
    done = install(dry_run=args.dry_run, sandbox_at=Path.cwd() if args.sandbox else None, statusline=args.statusline)
    nxt = (
        ["hall setup claude"]
        if done.dry_run
        else ["hall doctor", "restart Claude Code (or /reload-plugins) to load the hooks"]
    )
    if done.statusline is not None and done.statusline.existing is not None:
        nxt.append(
            f"you have a status line ({done.statusline.existing}); to use Hallmark's, set statusLine.command to {done.statusline.command} in {done.statusline.settings}"
        )
    return with_next(done, nxt, "sandbox", "statusline")


@setup_group.command(
    "git",
    "Install or repair the pre-push hook that refuses unhallmarked pushes (chains any hook already there).",
    replies=(GitHooksInstalled, GitHooksRemoved),
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
        return {**githooks.remove(paths, dry_run=args.dry_run).to_dict(), "next": ["hall setup git", "hall doctor"]}
    done = githooks.install(paths, dry_run=args.dry_run)
    if not args.dry_run:
        done = GitHooksInstalled(**{**done.field_values(), "signing": _signing_setup(paths)})
    return {**done.to_dict(), "next": ["hall doctor"] if done.ok else ["hall doctor", "edit the tracked hook it names"]}


def _signing_setup(paths: Any) -> Any:
    """The hallmark key, its local trust and re-signed version-1 notes (core/stamp_key.py); None
    where ssh-keygen cannot make a key (doctor says so)."""
    from hallmark.core import signing, stamp_key

    try:
        return stamp_key.set_up(paths, resign=True)
    except (signing.SigningError, OSError):
        return None


@command(
    "hook",
    args=[
        arg("event", help="session-start, user-prompt-submit, pre-tool-use, post-tool-use, stop, notification"),
    ],
)
def cmd_hook(args: argparse.Namespace) -> dict[str, Any] | None:
    """Run a hook exactly as hall-hook would: stdin JSON in, Claude Code's answer out.

    No reply type: its output is Claude Code's hook answer in Claude Code's own format (hooks/reply.py
    builds it; some events answer nothing at all), not a Hallmark reply with `next`; it never returns
    to the CLI's printer."""
    from hallmark.hooks.main import main as hook_main

    hook_main([args.event])
    sys.stdout.flush()
    raise SystemExit(0)
