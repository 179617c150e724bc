"""Readable text for a TTY. JSON stays the API; this is only how a person sees the same data.

rich is imported inside each renderer: agents (JSON on a pipe) never pay for it.
"""

from __future__ import annotations

import re
from typing import Any

from hallmark.core.states import STATES, SYMBOLS

# What a terminal would obey rather than show: C0 controls but tab and newline (ESC starts ANSI and
# OSC sequences: colours, hyperlinks, title changes, clipboard writes), DEL, C1 controls, and the
# bidirectional overrides that make text read differently from what it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """Text safe to print on a terminal: control characters become U+FFFD, visibly."""
    return _CONTROL.sub("\ufffd", text) if isinstance(text, str) else text


def clean_tree(value: Any) -> Any:
    """clean() through a result's dicts and lists (every text a renderer may print)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_tree(v) for v in value]
    return value


def _state(state: str) -> str:
    return f"{SYMBOLS.get(state, '·')} {state}"


def item(result: dict[str, Any]) -> Any:
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold cyan")
    grid.add_column()
    for key in (
        "item",
        "title",
        "state",
        "branch",
        "worktree",
        "base",
        "sha",
        "round",
        "hold",
        "pr",
        "tokens",
        "cost_usd",
    ):
        value = result.get(key)
        if value in (None, "", 0) and key not in ("item", "state"):
            continue
        grid.add_row(key, _state(str(value)) if key == "state" else str(value))
    for key in ("already", "worktree_removed", "worktree_kept", "adopted"):
        if result.get(key) not in (None, False):
            grid.add_row(key, str(result[key]))
    if result.get("delivery"):
        grid.add_row("delivery", str(result["delivery"]["line"]))
    return grid


def status(result: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.text import Text

    warnings = [Text(f"⚠ {w}", style="bold yellow") for w in result.get("warnings", [])]
    body = item(result) if "items" not in result else _status_table(result)
    return Group(*warnings, body) if warnings else body


def _status_table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"{len(result['items'])} items", show_lines=False)
    for col in ("item", "state", "title", "round", "hold", "cost", "updated"):
        table.add_column(col)
    order = {state: n for n, state in enumerate(STATES)}
    for entry in sorted(result["items"], key=lambda e: order.get(e["state"], len(order))):  # by state
        table.add_row(
            entry["item"],
            _state(entry["state"]),
            entry["title"],
            str(entry["round"] or ""),
            entry.get("hold") or "",
            f"${entry['cost_usd']:.2f}" if entry.get("cost_usd") else "",
            (entry.get("updated") or "")[:19],
        )
    for entry in result.get("damaged") or []:  # a lost journal is shown, not hidden
        table.add_row(entry["item"], "✗ damaged", entry["title"] or "?", "", entry["problem"], "", "")
    return table


def log(result: dict[str, Any]) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"journal of {result.get('item') or 'the repo'}")
    for col in ("time", "actor", "event", "detail"):
        table.add_column(col)
    skip = {"v", "t", "actor", "event", "item"}
    for event in result["events"]:
        detail = ", ".join(f"{k}={v}" for k, v in event.items() if k not in skip)
        table.add_row(event.get("t", "")[:19], event.get("actor", ""), event.get("event", ""), Text(detail[:120]))
    return table


def inbox(result: dict[str, Any]) -> Any:
    from rich.table import Table
    from rich.text import Text

    if "notices" in result:
        table = Table(title="notices")
        for col in ("since", "kind", "item", "text"):
            table.add_column(col)
        for n in result["notices"]:
            table.add_row((n.get("since") or "")[:19], n["kind"], n.get("item") or "", n["text"])
        return table
    if "entries" not in result:
        return None
    if not result["entries"]:
        return Text("Nothing waits for you.")
    table = Table(title="waiting for you")
    for col in ("#", "since", "kind", "item", "what", "do"):
        table.add_column(col)
    for e in result["entries"]:
        table.add_row(
            str(e["n"]),
            (e["since"] or "")[:19],
            e["kind"],
            e.get("item") or "",
            e["text"],
            e["next"][0] if e["next"] else "",
        )
    return table


def doctor(result: dict[str, Any]) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="hall doctor")
    for col in ("", "check", "detail", "fix"):
        table.add_column(col)
    for c in result["checks"]:
        mark = "✓" if c["ok"] else ("–" if c.get("optional") else "✗")
        table.add_row(mark, c["check"], Text(str(c["detail"])[:200]), c.get("fix", "") if not c["ok"] else "")
    return table


def help_table(result: dict[str, Any]) -> Any:
    """Every command, one section a group (as the README lists them); --brief has no arguments."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="hall commands (hall help --json for the machine-readable list)")
    for col in ("command", "arguments", "does"):
        table.add_column(col)
    entries = {entry["command"]: entry for entry in result["commands"]}
    sections = [(group["group"], group["summary"], group["commands"]) for group in result.get("groups", [])]
    for title, summary, names in sections or [("", "", list(entries))]:
        if title:
            table.add_row(Text(title, style="bold"), "", Text(summary, style="bold"))
        for name in names:
            for entry in [entries[name], *[e for key, e in entries.items() if key.startswith(name + " ")]]:
                args = " ".join(a["name"] if not a["flags"] else f"[{a['name']}]" for a in entry.get("arguments", []))
                table.add_row(entry["command"], args, entry["help"])
        if title:
            table.add_section()
    return table


def schema(result: dict[str, Any]) -> Any:
    import json

    from rich.json import JSON

    return JSON(json.dumps({k: v for k, v in result.items() if k != "next"}, ensure_ascii=False, default=str))


def init(result: dict[str, Any]) -> Any:
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold cyan")
    grid.add_column()
    grid.add_row("repo", result["repo"])
    grid.add_row("state", result["state_dir"] + (" (created)" if result.get("initialized") else ""))
    grid.add_row("config", result["config"] + (" (written)" if result.get("config_written") else " (kept)"))
    grid.add_row("gates", ", ".join(result.get("gates") or []) or "none detected")
    grid.add_row("CLAUDE.md", str(result.get("claude_md")))
    return grid


def learnings(result: dict[str, Any]) -> Any:
    """`hall library list|review|search`: one row a learning; an automation shows its exact command."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False)
    for column in ("id", "kind", "status", "seen", "pattern"):
        table.add_column(column)
    for entry in result.get("learnings") or result.get("pending") or []:
        status = entry["status"] + (" (retire?)" if entry.get("retire_proposed") else "")
        pattern = entry["pattern"][:90]
        auto = entry.get("automation")
        if auto:  # the exact command and where it goes, never hidden behind the pattern
            pattern += (
                f"\n⚠ writes a {auto['event']} hook into {auto['file']}:\n  {auto['command']}"
                f"\n  accept only with: {auto['accept']}"
            )
        # Text, not markup: a learning's words or a command are shown as written, never as styling
        table.add_row(entry["id"], entry["kind"], status, str(entry["occurrences"]), Text(pattern))
    return table


def briefing(result: dict[str, Any]) -> Any:
    if not result.get("memory_restored", True):
        return result.get("text")
    if not result.get("learnings"):
        return f"No accepted learnings for this briefing (cap {result.get('cap_tokens')} tokens)."
    return result["text"] + f"\n~{result['tokens']} tokens ({result['token_estimate']}); omitted {result['omitted']}"
