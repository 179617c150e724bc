"""What `hall` offers, in one static place: every command (its group's module, its handler, its
one-line summary) and every schema `hall schema` prints (module:function).

pip's `commands_dict`: reading these tables imports nothing, so `hall help --brief` lists every
command, and `hall <command>` imports exactly the module that declares it. A command's arguments
are declared beside its handler, in that module (`framework.command`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .framework import Command, Group

PACKAGE = "hallmark.tui.cli"


@dataclass(frozen=True, slots=True)
class CommandInfo:
    group: str  # the module under tui/cli/ that declares it (a package joins its parts: library/), and its
    # README row
    handler: str  # the Command (or Group) in that module
    summary: str

    @property
    def module(self) -> str:
        return f"{PACKAGE}.{self.group}"


# One module a group, in the order `hall help` and the README list them.
GROUPS: dict[str, str] = {
    "items": "an item's life: create it, see where it stands, move it, its change, its worktree",
    "inbox": "what waits for a person: questions and answers, escalations, what each item waits on",
    "loop": "the review loop: findings and fixes, verdicts, hallmarks, leases, the daemon",
    "trace": "headless runs: follow one step by step, take one over",
    "usage": "tokens and list-price cost, and the budget",
    "library": "the memory store: learnings a person approves, decisions, search, briefings",
    "notes": "the project's handoff checkpoint and durable notes",
    "notify": "telling a person the loop needs them: the notification channels, Claude Code's status line",
    "setup": "set a repository and Claude Code up, check them, run a hook",
    "app": "the terminal app and the demo",
    "meta": "self-description: every command and the JSON Schemas",
}

COMMANDS: dict[str, CommandInfo] = {
    "new": CommandInfo("items", "cmd_new", "Create an item with its own branch and worktree."),
    "adopt": CommandInfo("items", "cmd_adopt", "Turn the current branch and worktree into an item."),
    "status": CommandInfo("items", "cmd_status", "List items by state, or show one item."),
    "log": CommandInfo("items", "cmd_log", "Print an item's journal."),
    "ready": CommandInfo("items", "cmd_ready", "Freeze HEAD and queue the item for checks and review."),
    "propose-ready": CommandInfo("items", "cmd_propose_ready", "The agent says the work is done; a person confirms."),
    "pull-back": CommandInfo("items", "cmd_pull_back", "Return the item to development."),
    "drop": CommandInfo("items", "cmd_drop", "Abandon the item; the branch and journal stay."),
    "retry": CommandInfo("items", "cmd_retry", "Allow an escalated item one more round, or release a hold."),
    "diff": CommandInfo("items", "cmd_diff", "An item's change against the merge-base with its base branch."),
    "sweep": CommandInfo("items", "cmd_sweep", "Remove the worktrees of closed and dropped items."),
    "ask": CommandInfo("inbox", "cmd_ask", "Record a question for the person."),
    "answer": CommandInfo("inbox", "cmd_answer", "Answer a question (Q-12) with text or an option letter."),
    "inbox": CommandInfo("inbox", "cmd_inbox", "Escalations waiting for you, oldest first."),
    "waiting": CommandInfo("inbox", "cmd_waiting", "What each item waits on, and which wait for you (oldest first)."),
    "findings": CommandInfo("loop", "cmd_findings", "Open findings and failing checks of an item."),
    "fixed": CommandInfo("loop", "cmd_fixed", "Record what the commit fixes (and disputes), then resubmit to checks."),
    "verdict": CommandInfo(
        "loop", "cmd_verdict", "Record a person's schema-checked verdict (a human override; refused to agents)."
    ),
    "verify": CommandInfo(
        "loop", "cmd_verify", "Does a commit carry a valid hallmark? (exit 5 when not; for CI and reviewers)"
    ),
    "next": CommandInfo(
        "loop", "cmd_next", "Claim the next item for a role, with a lease (CLAIMED, exit 7, when taken)."
    ),
    "daemon": CommandInfo(
        "loop",
        "cmd_daemon",
        "The review loop over every registered repo: start, stop, status, run (run prints one "
        "line per step as it happens: readable on a terminal, JSON lines otherwise, the summary "
        "last).",
    ),
    "trace": CommandInfo(
        "trace", "cmd_trace", "Print a headless run's steps (init, text, tool calls and results, result)."
    ),
    "takeover": CommandInfo("trace", "cmd_takeover", "Take an item over: stop its run and resume the session by hand."),
    "usage": CommandInfo("usage", "cmd_usage", "Tokens and list-price cost of every model run."),
    "budget": CommandInfo(
        "usage", "cmd_budget", "The budget caps and today's spend; --set a cap, --grant past the daily cap."
    ),
    "cost": CommandInfo("usage", "cmd_cost", "Tokens and list-price cost of an item, per run and per round."),
    "library": CommandInfo(
        "library", "library_group", "The memory store: learnings a person approves, decisions, search, briefings."
    ),
    "checkpoint": CommandInfo(
        "notes", "checkpoint_group", "The one workflow checkpoint of this project (handoff state)."
    ),
    "note": CommandInfo("notes", "note_group", "Durable notes with a facet and an as-of date."),
    "notify": CommandInfo(
        "notify", "notify_group", "Notifications: a test message on every channel, ntfy set up with a random topic."
    ),
    "statusline": CommandInfo(
        "notify", "cmd_statusline", "One line for Claude Code's status line (reads its JSON on stdin)."
    ),
    "init": CommandInfo("setup", "cmd_init", "Set Hallmark up in this repository."),
    "doctor": CommandInfo(
        "setup", "cmd_doctor", "Check git, the state directory, the config, the journals and the hooks."
    ),
    "reindex": CommandInfo("setup", "cmd_reindex", "Rebuild the SQLite index from the journals."),
    "setup": CommandInfo("setup", "setup_group", "Set Hallmark up for a tool (claude)."),
    "hook": CommandInfo(
        "setup", "cmd_hook", "Run a Claude Code hook (the same as hall-hook <event>; reads stdin JSON)."
    ),
    "tui": CommandInfo("app", "cmd_tui", "Open the terminal app (floor plan, boards, traces, drain, inbox, usage)."),
    "demo": CommandInfo(
        "app",
        "cmd_demo",
        "Try Hallmark on a throwaway repository: a small Python project whose items go through the "
        "real loop with a stand-in model (no Claude, no cost), then the terminal app while the "
        "daemon works.",
    ),
    "help": CommandInfo(
        "meta", "cmd_help", "Every command with its arguments (use --json; --brief for names and summaries only)."
    ),
    "schema": CommandInfo(
        "meta", "cmd_schema", "JSON Schema for a command (or `command` for all), error, event or config."
    ),
}

# `hall schema <name>`: the function that returns the schema (or the constant that is one; it is
# copied). A name here wins over a command of the same name (`hall schema verdict` is the verdict
# file's schema, not the command's arguments).
SCHEMAS: dict[str, str] = {
    "command": f"{PACKAGE}.meta:commands_schema",
    "error": f"{PACKAGE}.meta:error_schema",
    "event": "hallmark.core.events:event_schema",
    "config": f"{PACKAGE}.meta:config_schema",
    "verdict": "hallmark.core.loop.verdict:schema",
    "trace-step": "hallmark.core.runner.trace:STEP_SCHEMA",
    "learning": "hallmark.core.memory.models:learning_schema",
    "librarian": "hallmark.core.memory.distill:LEARNINGS_SCHEMA",
}


def in_group(group: str) -> list[str]:
    """The commands a group's module declares, in table order."""
    return [name for name, info in COMMANDS.items() if info.group == group]


def load(name: str) -> Command | Group:
    """The declaration of command `name`: imports its group's module, and that module only."""
    info = COMMANDS[name]
    declared = getattr(importlib.import_module(info.module), info.handler)
    if declared.name != name:
        raise LookupError(f"{info.module}.{info.handler} declares `hall {declared.name}`, not `hall {name}`")
    return declared
