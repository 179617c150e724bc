"""The inbox's preview pane: everything the decision on one entry needs, without opening the item.

A question shows its text and options; an escalation its rejected reviews and open findings; a
hold its reason and the exact steps that clear it; ready? the agent's summary. Each ends with what
`enter` does for that kind and what `y` copies. Built from the entry and the Building's view only
(no I/O on a cursor move).
"""

from __future__ import annotations

from hallmark.core.inbox_results import InboxEntry, QuestionEntry
from hallmark.core.states import ItemView
from rich.text import Text

ENTER = {
    "answer": "enter: answer it",
    "resolve": "enter: the files and the command (copy it, or a shell in the worktree)",
    "retry": "enter: retry, with a reason (one more round)",
    "ready": "enter: ready it (the checks start)",
    "open": "enter: open the item",
    "show": "enter: show its next steps",
}


def copy_text(entry: InboxEntry) -> str:
    """What `y` copies: an entry's first command when it names one, else the item id."""
    if entry.key.startswith("hold:") and entry.next:
        return entry.next[0]
    return entry.item or (entry.next[0] if entry.next else "")


def preview(entry: InboxEntry | None, view: ItemView | None, move: str) -> Text:
    if entry is None:
        return Text("Nothing waiting on you.", style="dim")
    out = Text()
    head = f"{entry.item}  {view.title}" if entry.item and view else (entry.item or "the repository")
    out.append(head + "\n", style="bold")
    out.append(f"{entry.kind}", style="bold")
    if view is not None:
        out.append(f"  ·  {view.state}  ·  round {view.round}")
    out.append("\n\n")
    if isinstance(entry, QuestionEntry):
        out.append(f"? {entry.qid}: {entry.text}\n", style="bold")
        for n, option in enumerate(entry.options):
            out.append(f"   {chr(ord('a') + n)}) {option}\n")
        if entry.default:
            out.append(f"   default: {entry.default}\n", style="dim")
    elif entry.kind == "escalated" and view is not None:
        out.append(f"{view.rejects} rejected reviews · {view.open_findings} open findings\n")
        out.append("Retry allows one more round; drop (o, then d) gives it up.\n", style="dim")
    elif entry.key.startswith("hold:") and view is not None:
        out.append(f"held ({view.hold})\n", style="bold")
        out.append((view.hold_reason or entry.text) + "\n")
    elif entry.key.startswith("ready:") and view is not None:
        out.append("The agent proposes it is ready:\n", style="bold")
        out.append((view.summary or entry.text) + "\n")
    else:
        out.append(entry.text + "\n")
    if entry.next:
        out.append("\nnext\n", style="bold")
        for step in entry.next:
            out.append(f"  $ {step}\n")
    out.append("\n" + ENTER.get(move, ENTER["open"]) + "\n", style="bold")
    copied = copy_text(entry)
    if copied:
        out.append(f"y: copy {copied}\n", style="dim")
    return out
