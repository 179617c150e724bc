"""PreToolUse: the edit gate, the push gate and the note gate, as one decision.

Returns a Gate (deny or ask, with the reason Claude reads) or None. None means "no opinion":
the call falls through to the person's own permission rules. Nothing here ever allows.
"""

from __future__ import annotations

import os
import re

from . import edit, itemstate, settings
from .edit import Gate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..paths import RepoPaths

NOTE_WRITERS = frozenset({"assayer", "shipper"})
_PUBLISH_WORD = r"\b(push|send-pack|http-push|notes|update-ref|gh|ship|release)\b"
_UNPARSED = ("parse error", "too long", "too deep")


def pre_tool_use(payload: dict[str, Any], paths: RepoPaths, cwd: str) -> Gate | None:
    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    if tool in edit.EDIT_TOOLS:
        capture = settings.capture(settings.load(paths))
        return edit.file_gate(paths, capture, cwd, edit.tool_paths(str(tool), tool_input))
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            return None
        return bash_gate(paths, cwd, command)
    return None


def bash_gate(paths: RepoPaths, cwd: str, command: str) -> Gate | None:
    config = settings.load(paths)
    capture = settings.capture(config)
    from . import push

    ship = config.get("ship") if isinstance(config.get("ship"), str) else ""
    protected = [str(paths.state_dir), str(paths.common_dir / "refs" / "notes"), str(paths.common_dir / "packed-refs")]
    findings = push.analyze(command, push.Context(cwd, ship=ship, protected=protected))
    if not findings:
        return None
    actor = os.environ.get("HALL_ACTOR", "").strip()
    for finding in findings:
        if finding.kind == "note" and actor not in NOTE_WRITERS:
            return Gate("deny", f"{finding.detail}: hallmark notes are written only by Hallmark's assayer or "
                                "shipper; reading notes is fine.", ["git notes --ref=hallmark show HEAD", "hall status"])
        if finding.kind == "state" and actor not in NOTE_WRITERS:
            return Gate("deny", f"{finding.detail}: Hallmark's journal and the hallmark notes are written only "
                                "through hall; a hand-written line would forge the record.", ["hall status", "hall log"])

    pushes = [f for f in findings if f.kind == "push"]
    for finding in pushes:
        verdict = _hallmark(paths, finding.cwd or cwd)
        if not verdict.ok:
            return Gate("deny", f"{finding.detail} publishes, and {verdict.reason}. Only hallmarked work leaves "
                                "this machine: finish the item and let the review loop hallmark it.",
                        ["hall ready", "hall status", "hall log --kind verdict"])

    commits = [f for f in findings if f.kind == "commit"]
    if commits:
        staged = _staged(findings)
        for finding in commits:
            gate = edit.commit_gate(paths, capture, finding.cwd, cwd, finding.args, staged)
            if gate is not None:
                return gate

    strict = [f for f in findings if f.kind == "strict"]
    if not strict:
        return None
    in_worktree = itemstate.item_for_path(paths, os.path.realpath(cwd)) is not None
    for finding in strict:
        if _allowed(finding, command, capture["push_allow"]):
            continue
        unparsed = finding.detail.startswith(_UNPARSED)
        if in_worktree and capture["push_guard"] == "strict":
            pass
        elif not (unparsed and re.search(_PUBLISH_WORD, command)):
            continue
        verdict = _hallmark(paths, finding.cwd or cwd)
        if verdict.ok:
            continue
        return Gate("deny", f"the push gate cannot follow this command ({finding.detail}), and it might publish "
                            f"while {verdict.reason}. Write it plainly, or list it in [capture] push_allow in "
                            ".hallmark.toml (main checkout).",
                    ["hall status", "rewrite the command without the construct named"])
    return None


def _hallmark(paths: RepoPaths, where: str):
    from . import hallmark

    directory = where if os.path.isdir(where) else str(paths.toplevel)
    return hallmark.check(directory, paths)


def _allowed(finding, command: str, allow: list[str]) -> bool:
    text = finding.command.strip()
    whole = command.strip()
    for entry in allow:
        entry = entry.strip()
        if entry and (whole == entry or text == entry or text.startswith(entry + " ")):
            return True
    return False


def _staged(findings) -> list[str] | None:
    """Paths a `git add`/`rm`/`mv` earlier in the same command stages; None when it can't be known."""
    staged: list[str] = []
    for finding in findings:
        if finding.kind != "stage":
            continue
        for arg in finding.args:
            if arg in ("-A", "--all", "-u", "--update", ".", ":/", "--pathspec-from-file") or arg.startswith(
                    "--pathspec-from-file="):
                return None
        specs = [a for a in finding.args if not a.startswith("-")]
        if not specs:
            return None
        staged += specs
    return staged
