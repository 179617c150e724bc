"""The terminal app: `hall tui [--repo PATH]` (and `hall` with no arguments on a TTY, through
run_app), and `hall demo [--dir PATH] [--keep] [--script] [--pace S]`: Hallmark on a throwaway
repository.

The demo writes a small real Python project, runs `hall init`, and drives six items through the
real loop with the stand-in model (`hall-standin-claude`: no Claude runs, nothing costs anything).
Then it opens the terminal app while the daemon keeps working in a child process of its own at a
human pace, so a run streams live in the trace view and the app's keys never wait behind the loop.
`--script` (or no terminal) runs the same scenario headless and prints the journal summary (JSON
off a TTY, as every command does). The demo's directory is removed when it ends, unless --keep.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hallmark.core.demo.results import DemoKept, DemoRemoved, DemoRun

from .framework import arg, command, with_next


def run_app(path: str | None, *, mouse: bool = True) -> int:
    from hallmark.tui.app import HallmarkApp

    HallmarkApp(path).run(mouse=mouse)
    return 0


@command(
    "tui",
    args=[
        arg("--repo", metavar="PATH", default=None, help="the repository to open (default: here)"),
        arg("--no-mouse", action="store_true", help="ignore the mouse (every action has a key)"),
    ],
)
def cmd_tui(args: argparse.Namespace) -> dict[str, Any] | None:
    run_app(args.repo, mouse=not args.no_mouse)
    return None


WELCOME = (
    "A throwaway repository at {root}. The loop's model is Hallmark's stand-in ({standin}): "
    "no Claude runs and nothing costs anything. The daemon keeps working in the background.\n"
    "f floor · b boards · i inbox · t runs (enter: the live trace) · L learnings · $ usage · ? every key · "
    "q quit ({after})"
)


def _progress(text: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"hall demo: {text}\n")
        sys.stderr.flush()


def make_app(demo: Any, *, keep: bool, welcome: bool = True, **kwargs: Any):
    """The terminal app on the demo's repository, saying what it is when it opens (welcome)."""
    from pathlib import Path

    from hallmark.core.demo import workspace
    from hallmark.tui import app as app_module
    from hallmark.tui.app import HallmarkApp

    class DemoApp(HallmarkApp):
        TITLE = "Hallmark demo"
        CSS_PATH = str(Path(app_module.__file__).with_name(str(HallmarkApp.CSS_PATH)))  # not relative to this file

        def on_mount(self) -> None:  # Textual also runs HallmarkApp.on_mount
            self.sub_title = "demo · stand-in model, no Claude runs"
            if not welcome:
                return
            after = f"the demo stays in {demo.base}" if keep else "the demo's directory is removed"
            self.notify(
                WELCOME.format(root=demo.root, standin=workspace.STANDIN, after=after),
                title="hall demo: a stand-in model, not Claude",
                timeout=10,
                markup=False,
            )

        async def action_quit(self) -> None:
            """q in a throwaway demo deletes it: say so first (with --keep it simply quits)."""
            if keep:
                await super().action_quit()
                return
            from hallmark.tui.screens.modals import ConfirmModal

            def done(yes: bool | None) -> None:
                if yes:
                    self.exit()

            self.push_screen(
                ConfirmModal(
                    "Quit the demo?",
                    [f"Its directory ({demo.base}) is removed.", "hall demo --keep keeps the next one."],
                ),
                done,
            )

    return DemoApp(demo.root, **kwargs)


def run_interactive(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.demo import driver, workspace

    demo = workspace.create(args.dir)
    background = None
    try:
        with workspace.demo_env(demo):
            driver.build(demo, _progress)
            workspace.set_pace(demo, max(0.0, args.pace))
            _progress("opening the terminal app; the daemon keeps working in the background")
            background = driver.Background(demo)
            background.start()
            try:
                make_app(demo, keep=args.keep).run()
            finally:
                _progress("stopping the demo's daemon" + (" (it finishes the step it is on)" if args.keep else ""))
                background.stop(end_live_runs=not args.keep)
    finally:
        if not args.keep:
            workspace.remove(demo)
    if args.keep:
        return {
            **DemoKept(demo=str(demo.base), repo=str(demo.root)).to_dict(),
            "next": [
                f"hall tui --repo {demo.root}",
                f"hall daemon run --until-idle --repo {demo.root}",
                f"rm -rf {demo.base}",
            ],
        }
    return {
        **DemoRemoved(demo=str(demo.base)).to_dict(),
        "next": ["hall demo --keep (to look around afterwards)", "hall init (in your own repository)"],
    }


def script_reply(result: DemoRun) -> dict[str, Any]:
    """`hall demo --script`'s JSON: the summary, `next` (a kept demo's repo to look around in), then
    journal_lines, where it always was; exit 1 when a story missed its outcome."""
    root = result.demo.repo
    if result.demo.kept:
        nxt = [f"hall tui --repo {root}", f"hall status --all -C {root}", "hall demo"]
    else:
        nxt = ["hall demo --keep --script (to look around afterwards)", "hall demo"]
    reply = with_next(result, nxt, "journal_lines")
    if not result.ok:
        reply["_exit"] = 1
    return reply


def render(result: dict[str, Any]) -> Any:
    """A TTY's view of the summary: the stories, the learnings, the cost."""
    from rich.table import Table
    from rich.text import Text

    if "items" not in result:
        return Text(("Kept: " + result.get("repo", "")) if result.get("kept") else "The demo's directory was removed.")
    table = Table(title="hall demo: what happened (the stand-in model; no Claude ran)", show_lines=False)
    for column in ("item", "story", "reached", "now", "actors"):
        table.add_column(column)
    for row in result["items"]:
        mark = "✓" if row["outcome"] == row["expected"] else "✗"
        table.add_row(row["item"], row["what"], f"{mark} {row['outcome']}", row["state"], ", ".join(row["actors"]))
    learned = result.get("learnings") or {}
    lines = Text()
    for row in learned.get("proposed", []):
        lines.append(f"proposed  {row['id']} [{row['kind']}] {row['pattern']} (×{row['occurrences']})\n")
    for row in learned.get("merged", []):
        lines.append(f"merged    a near-duplicate into {row['merged_into']} (×{row['occurrences']})\n")
    for row in learned.get("refused", []):
        lines.append(f"refused   {row['code']}: {row['why']}\n")
    for row in learned.get("tombstone", []):
        lines.append(
            f"tombstone proposed again, recorded on rejected {row['landed_on_tombstone']}: {row['rejected_because']}\n"
        )
    usage = result.get("usage") or {}
    lines.append(
        f"\n{usage.get('runs', 0)} stand-in runs, {usage.get('tokens', 0)} tokens counted, "
        f"${float(usage.get('cost_usd') or 0):.2f}; {result['demo'].get('seconds')} s"
    )
    from rich.console import Group

    return Group(table, lines)


@command(
    "demo",
    text=render,
    replies=(DemoRun, DemoKept, DemoRemoved),
    args=[
        arg("--dir", metavar="PATH", help="build the demo here (a new or empty directory), not in a temporary one"),
        arg("--keep", action="store_true", help="keep the demo's directory when the demo ends"),
        arg(
            "--script",
            action="store_true",
            help="headless: run the whole scenario, print the journal summary, exit (1 if a story missed)",
        ),
        arg(
            "--pace",
            type=float,
            default=0.5,
            metavar="SECONDS",
            help="seconds between the stand-in's lines while the app is open (default 0.5)",
        ),
    ],
)
def cmd_demo(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core.demo import driver

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.script or not interactive:
        result = script_reply(driver.run_script(args.dir, keep=args.keep, progress=_progress))
        if not args.script:
            result["note"] = "no terminal here, so the scripted demo ran (hall demo --script)"
        return result
    return run_interactive(args)
