"""`hall trace <id> [--run N] [--follow]` and `hall trace --file PATH`: a run's steps, streamed.

Readable text (one line per step, `--full` adds each step's full text) or, with `--json` (the
default on a pipe, like every hall command), one JSON object per step. Output is written as the
file is read, so a 200,000-line stream never sits in memory. `--follow` tails a live run until
its `hall_run_end` line or until its lock is released (the runner died or finished).

`hall takeover <id>` takes a run over: it stops the run and resumes its session by hand.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import IO, Any

from hallmark.core import runs
from hallmark.core.errors import HallError
from hallmark.core.run_results import RunListing
from hallmark.core.runner import trace
from hallmark.core.runner.follow import StreamFollower
from hallmark.core.runs import RunFile
from hallmark.core.takeover_results import Takeover

from .framework import arg, command
from .text import clean

POLL_S = 0.2
MARKS = {
    "init": "▶ init",
    "text": "✎ text",
    "thinking": "… think",
    "tool_call": "→ call",
    "tool_result": "← result",
    "result": "■ result",
    "retry": "↻ retry",
    "system": "· system",
    "end": "⏹ end",
    "error": "✗ error",
    "unknown": "? line",
}
_COLOURS = {
    "init": "36",
    "tool_call": "33",
    "tool_result": "2",
    "result": "1;32",
    "end": "1",
    "error": "1;31",
    "retry": "35",
    "thinking": "2;3",
    "unknown": "2",
}


class Printer:
    """Writes steps as text or JSON lines. `kinds` filters; `last` holds back all but the last N
    steps until release() (the catch-up of --last N); the text footer sums up the last result."""

    def __init__(
        self,
        out: IO[str],
        *,
        as_json: bool,
        full: bool,
        raw: bool,
        colour: bool,
        kinds: set[str] | None = None,
        last: int | None = None,
    ) -> None:
        self.out = out
        self.as_json = as_json
        self.full = full
        self.raw = raw
        self.colour = colour
        self.kinds = kinds
        self.held: deque[trace.Step] | None = deque(maxlen=last) if last else None
        self.run = 0
        self.count = 0  # steps seen
        self.shown = 0  # steps written
        self.runs = 0
        self.ended = False
        self.last_result: dict[str, Any] | None = None
        self.last_result_run = 0
        self._labels = {kind: self._paint(f"{mark:<9}", _COLOURS.get(kind, "0")) for kind, mark in MARKS.items()}
        self._error_result = self._paint(f"{'← ERROR':<9}", "31")

    def step(self, step: trace.Step) -> None:
        self.count += 1
        self.runs = max(self.runs, step.run)
        if step.kind == "end":
            self.ended = True
        elif step.kind == "result" and isinstance(step.raw, dict):
            self.last_result = step.raw
            self.last_result_run = step.run
        if self.kinds is not None and step.kind not in self.kinds:
            return
        if self.held is not None:
            self.held.append(step)
            return
        self._emit(step)

    def release(self) -> None:
        """Write the held-back steps (the last N) and print every later step as it comes."""
        held, self.held = self.held, None
        for step in held or ():
            self._emit(step)

    def _emit(self, step: trace.Step) -> None:
        self.shown += 1
        if self.as_json:
            self.out.write(trace.dumps_line(step.to_dict(raw=self.raw)) + "\n")
            return
        if step.run != self.run:
            self.run = step.run
            self.out.write(("" if self.shown == 1 else "\n") + self._paint(f"── run {step.run} ──", "1") + "\n")
        if step.is_error and step.kind == "tool_result":
            label = self._error_result
        else:
            label = self._labels.get(step.kind) or f"{step.kind:<9}"
        self.out.write(f"{step.line:>6}  {label} {clean(trace.step_text(step))}\n")
        if self.full:
            detail = step.detail
            if detail and detail != step.summary:
                for text in detail.splitlines():
                    self.out.write(f"{'':>17}{clean(text)}\n")

    def footer(self) -> str:
        """One line for people: steps, runs, and what the last result said and cost."""
        parts = [f"{self.count} step(s)", f"{self.runs} run(s)"]
        result = self.last_result
        if self.last_result_run != self.runs:
            parts.append(f"run {self.runs} has no result line")
        if result is not None:
            usage = trace.usage_from_result(result)
            which = "result" if self.last_result_run == self.runs else f"last result (run {self.last_result_run})"
            parts.append(
                f"{which}: {result.get('subtype') or '?'}" + (" (is_error)" if result.get("is_error") is True else "")
            )
            if usage["cost_usd"] is not None:
                parts.append(f"${usage['cost_usd']:.4f}")
            if usage["source"]:
                parts.append(
                    f"{usage['input_tokens']:,} in / {usage['output_tokens']:,} out / "
                    f"{usage['cache_read_tokens']:,} cache read tokens ({usage['source']})"
                )
        return self._paint("── " + " · ".join(parts) + " ──", "2")

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def flush(self) -> None:
        self.out.flush()


def print_file(path: Path, printer: Printer, *, live: bool = False) -> None:
    """The whole file as it is now, streamed (a live run's half-written last line is left out)."""
    try:
        steps = trace.iter_steps(path, live=live)
        first = next(steps, None)
    except OSError as exc:
        raise HallError("RUN_NOT_FOUND", f"Cannot read {path}: {exc.strerror or exc}.", ["hall trace --help"]) from exc
    if first is not None:
        printer.step(first)
        for step in steps:
            printer.step(step)
    printer.release()
    printer.flush()


def follow_file(
    path: Path, printer: Printer, *, lock: Path, poll_s: float = POLL_S, max_wait_s: float | None = None
) -> str:
    """Print the steps so far, then new ones as they are written, until the run ends.

    Returns why it stopped: "ended" (the hall_run_end line), "released" (no live process holds
    the run's lock any more: it finished without an end line or died), "unlocked" (the file has
    no lock beside it: no runner ever held it) or "timeout". The reading is core's StreamFollower
    (the app's trace view follows with the same one).
    """
    follower = StreamFollower(path, lock=lock)
    reader = trace.StreamReader()
    started = time.monotonic()
    while True:
        if follower.check():  # truncated or replaced: its steps start again
            reader = trace.StreamReader()
        got = False
        for _, whole in follower.read():
            got = True
            for raw in whole.splitlines():
                for step in reader.feed(raw):
                    printer.step(step)
        printer.release()  # after the catch-up, every step is printed as it comes
        printer.flush()
        if printer.ended:
            return "ended"
        if got:
            continue
        if not follower.live():
            # one last read: lines written just before the lock was let go, a torn last one too
            lines = follower.rest().split(b"\n")
            for number, raw in enumerate(lines):
                if raw.strip():
                    for step in reader.feed(raw, torn=number == len(lines) - 1):
                        printer.step(step)
            printer.flush()
            return "ended" if printer.ended else follower.stopped()
        if max_wait_s is not None and time.monotonic() - started > max_wait_s:
            return "timeout"
        time.sleep(poll_s)


def _pick_run(files: list[RunFile], run: str | None, item_id: str | None) -> Path:
    """Run N (1 = oldest, -1 = latest), a run file name, or the latest run by default (core.runs.pick)."""
    who = item_id or "The repository"
    item_id = item_id or "--repo"
    if not files:
        raise HallError(
            "RUN_NOT_FOUND",
            f"{who} has no runs yet.",
            [f"hall status {item_id}" if item_id != "--repo" else "hall status"],
        )
    found = runs.pick(files, run)
    if found is not None:
        return found.path
    if not str(run).lstrip("-").isdigit():
        raise HallError("RUN_NOT_FOUND", f"{who} has no run {run!r}.", [f"hall trace {item_id} --list"])
    raise HallError(
        "RUN_NOT_FOUND", f"{who} has {len(files)} run(s); there is no run {run}.", [f"hall trace {item_id} --list"]
    )


def _listing_text(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"{result['item'] or 'repository'} runs", show_edge=False)
    for column in ("run", "file", "role", "outcome", "tokens", "cost_usd", "live"):
        table.add_column(column)
    for row in result["runs"]:
        table.add_row(*[str(row.get(c, "")) for c in ("run", "file", "role", "outcome", "tokens", "cost_usd", "live")])
    return table


@command(
    "trace",
    text=_listing_text,
    replies=(RunListing,),
    args=[
        arg("id", nargs="?", help="the item (default: the item whose worktree you are in)"),
        arg("--run", help="run N of the item (1 = oldest, -1 = latest; default latest) or its file name"),
        arg("--file", help="read this stream-json file instead of an item's run"),
        arg(
            "--follow",
            "-f",
            action="store_true",
            help="keep printing new steps until the run's end line or until its lock is released",
        ),
        arg("--full", action="store_true", help="print each step's full text under it"),
        arg("--raw", action="store_true", help="with --json: include each step's raw stream line"),
        arg("--text", dest="as_text", action="store_true", help="readable text even when stdout is not a terminal"),
        arg("--list", action="store_true", help="list the item's runs instead"),
        arg("--repo", action="store_true", help="the repository's own runs (no item: intake, librarian)"),
        arg("--kind", help="only these step kinds, comma-separated (e.g. tool_call,tool_result,result)"),
        arg("--last", type=int, help="only the last N steps (with --follow: then every new one)"),
    ],
)
def cmd_trace(args: argparse.Namespace) -> dict[str, Any] | None:
    as_json = bool(getattr(args, "as_json", False)) and not args.as_text
    if args.file:
        if args.id or args.run is not None or args.list or args.repo:
            raise HallError(
                "USAGE",
                "--file reads one stream file; it takes no item, --repo, --run or --list.",
                ["hall trace --file PATH", "hall trace <id> --run N"],
            )
        path = Path(args.file)
        if not path.is_file():
            raise HallError("RUN_NOT_FOUND", f"There is no stream file {path}.", ["hall trace <id> --list"])
        item_id = None
    else:
        from hallmark.core import items
        from hallmark.core.repo import open_repo

        repo = open_repo()
        if args.repo and args.id:
            raise HallError(
                "USAGE",
                "--repo traces the repository's own runs (intake, librarian); it takes no item.",
                ["hall trace --repo", f"hall trace {args.id}"],
            )
        item_id = None if args.repo else items.resolve(repo, args.id)
        files = runs.list_runs(repo.paths, item_id)
        if args.list:
            return _listing(repo, item_id)
        path = _pick_run(files, args.run, item_id)
    colour = not as_json and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    kinds = None
    if args.kind:
        kinds = {k.strip() for k in args.kind.split(",") if k.strip()}
        unknown = sorted(kinds - set(trace.KINDS))
        if unknown:
            raise HallError(
                "USAGE",
                f"Unknown step kind(s): {', '.join(unknown)}.",
                [f"hall trace --kind {','.join(trace.KINDS[:4])}", "hall schema trace-step"],
            )
    if args.last is not None and args.last < 1:
        raise HallError("USAGE", "--last takes a positive number of steps.", ["hall trace <id> --last 20"])
    printer = Printer(
        sys.stdout, as_json=as_json, full=args.full, raw=args.raw, colour=colour, kinds=kinds, last=args.last
    )
    try:
        _print(args, path, item_id, printer, as_json)
    except BrokenPipeError:
        # the reader went away (| head): stop quietly, and keep the interpreter's last flush quiet too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return None


def _print(args: argparse.Namespace, path: Path, item_id: str | None, printer: Printer, as_json: bool) -> None:
    if not as_json and not args.file:
        sys.stdout.write(f"{item_id or 'repository'} · {path.name}\n")
    if args.follow:
        why = follow_file(path, printer, lock=path.with_suffix(".lock"))
        if not as_json and why == "released":
            sys.stdout.write("(the run's lock was released without an end line: the run died)\n")
        elif not as_json and why == "unlocked":
            sys.stdout.write("(no runner holds this file: nothing more will come)\n")
    else:
        live = runs.lock_is_held(path.with_suffix(".lock"))
        print_file(path, printer, live=live)
        if live and not as_json:
            what = f"{item_id or '--repo'} --run {path.stem}" if not args.file else f"--file {path}"
            sys.stdout.write(f"(the run is live: hall trace {what} --follow)\n")
    if not as_json:
        sys.stdout.write("(no steps yet)\n" if printer.count == 0 else "\n" + printer.footer() + "\n")


def _listing(repo: Any, item_id: str | None) -> dict[str, Any]:
    listing = RunListing(item=item_id, runs=tuple(runs.rows(repo.paths, item_id)))
    target = item_id or "--repo"
    n = len(listing.runs)
    nxt = [f"hall trace {target} --run {n}"] if n else [f"hall status {item_id or ''}".strip()]
    return {**listing.to_dict(), "next": nxt}


@command(
    "takeover",
    replies=(Takeover,),
    args=[
        arg("id"),
        arg("--run", help="run number (1 = oldest, -1 = latest) or run file name (default: the latest)"),
        arg("--print", action="store_true", help="only print the command; run nothing"),
    ],
)
def cmd_takeover(args: argparse.Namespace) -> dict[str, Any]:
    from hallmark.core import items
    from hallmark.core.repo import open_repo
    from hallmark.core.takeover import run_command, takeover

    repo = open_repo()
    item_id = items.resolve(repo, args.id)
    run: int | str | None = args.run
    if isinstance(run, str) and run.lstrip("-").isdigit():
        run = int(run)
    result = takeover(repo, item_id, run)
    reply = {**result.to_dict(), "next": [f"hall ready {item_id}", f"hall status {item_id}"]}
    if args.print:
        return {**reply, "ran": False}
    return {**reply, "ran": True, "exit_code": run_command(result)}
