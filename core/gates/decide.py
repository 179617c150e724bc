"""PreToolUse: the edit gate, the push gate and the note gate, as one decision.

Returns a Gate (deny or ask, with the reason Claude reads) or None. None means "no opinion":
the call falls through to the person's own permission rules. Nothing here ever allows.

The order of a Bash command's findings: a person's decision, a write to the record (notes,
state) and a push that sends unhallmarked commits are denied wherever the command runs; then the
edit gate's commit rule; then what the gate cannot follow (strict mode in an item's worktree, and
everywhere for the classes marked `always`).
"""

from __future__ import annotations

import os
import re

from hallmark.core import item_lookup

from . import edit, settings
from .edit import Gate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

    from .hallmark import Verdict
    from .push import Finding

NOTE_WRITERS = frozenset({"assayer", "shipper"})
_PUBLISH_WORD = r"\b(push|send-pack|http-push|notes|update-ref|gh|ship|release|publish|hall)\b"
_UNPARSED = ("parse error", "too long", "too deep")


def pre_tool_use(payload: dict[str, Any], paths: RepoPaths, cwd: str) -> Gate | None:
    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    if tool in edit.EDIT_TOOLS:
        for given in edit.tool_paths(str(tool), tool_input):
            owner = _owner(paths, cwd, given)
            config = settings.load(owner)
            capture = {**settings.capture(config), "never_free": settings.never_free(config)}
            gate = edit.file_gate(owner, capture, cwd, [given])
            if gate is not None:
                return gate
        return None
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            return None
        return bash_gate(paths, cwd, command)
    return None


def _owner(paths: RepoPaths, cwd: str, given: str) -> RepoPaths:
    """The Hallmark repo a file belongs to: the session's, or another initialized one it names."""
    try:
        target = edit.real(given, cwd)
    except edit.Unresolvable:
        return paths
    if item_lookup.checkout_of(paths, target) is not None:
        return paths
    from hallmark.core.paths import hallmark_above

    return hallmark_above(target) or paths


def bash_gate(paths: RepoPaths, cwd: str, command: str) -> Gate | None:
    config = settings.load(paths)
    capture = {**settings.capture(config), "never_free": settings.never_free(config)}
    from . import push

    ship = raw if isinstance(raw := config.get("ship"), str) else ""
    base = raw if isinstance(raw := config.get("base"), str) and raw else "main"
    findings = push.analyze(command, push.Context(cwd, ship=ship, paths=paths, base=base))
    if not findings:
        return None
    return (
        _record_gate(findings)
        or _push_gate(paths, findings, cwd)
        or _commit_gate(paths, capture, findings, cwd)
        or _strict_gate(paths, capture, findings, cwd, command)
    )


def _record_gate(findings: list[Any]) -> Gate | None:
    """A person's decision, then a write to the notes or to Hallmark's record, by anyone but the loop."""
    actor = os.environ.get("HALL_ACTOR", "").strip()
    for finding in findings:
        if finding.kind == "person":
            return Gate(
                "deny",
                f"{finding.detail}. Agents do not take a person's decisions, and Hallmark's own "
                "variables are not theirs to set.",
                ['hall propose-ready --summary "…"', 'hall ask "…"', "hall status"],
            )
    for finding in findings:
        if finding.kind == "note" and actor not in NOTE_WRITERS:
            return Gate(
                "deny",
                f"{finding.detail}: hallmark notes are written only by Hallmark's assayer or "
                "shipper; reading notes is fine.",
                ["git notes --ref=hallmark show HEAD", "hall status"],
            )
        if finding.kind == "state" and actor not in NOTE_WRITERS:
            return Gate(
                "deny",
                f"{finding.detail}: Hallmark's record, its configuration and Claude Code's settings "
                "are written only through hall; a hand-written change would forge the record or "
                "loosen the gates.",
                ["hall status", "hall log", "hall doctor"],
            )
    return None


def _push_gate(paths: RepoPaths, findings: list[Any], cwd: str) -> Gate | None:
    """A push that sends a commit without a valid hallmark."""
    for finding in (f for f in findings if f.kind == "push"):
        verdict = _sends(paths, finding, cwd)
        if verdict is not None:
            return Gate(
                "deny",
                f"{finding.detail} publishes, and {verdict}. Only hallmarked work leaves this "
                "machine: finish the item and let the review loop hallmark it.",
                ["hall ready", "hall status", "hall log --kind verdict"],
            )
    return None


def _commit_gate(paths: RepoPaths, capture: dict[str, Any], findings: list[Any], cwd: str) -> Gate | None:
    """The edit gate's rule for a `git commit` in the command."""
    commits = [f for f in findings if f.kind == "commit"]
    if commits:
        staged = _staged(findings)
        for finding in commits:
            gate = edit.commit_gate(paths, capture, finding.cwd, cwd, finding.args, staged)
            if gate is not None:
                return gate
    return None


def _strict_gate(paths: RepoPaths, capture: dict[str, Any], findings: list[Any], cwd: str, command: str) -> Gate | None:
    """What the gate cannot follow: denied in strict mode inside an item's worktree (everywhere for
    the classes marked `always`), and when an unparsed command says publish, unless HEAD is hallmarked."""
    strict = [f for f in findings if f.kind == "strict"]
    if not strict:
        return None
    in_worktree = item_lookup.item_for_path(paths, os.path.realpath(cwd)) is not None
    for finding in strict:
        if _allowed(finding, command, capture["push_allow"]):
            continue
        unparsed = finding.detail.startswith(_UNPARSED)
        guarding = capture["push_guard"] == "strict"
        if guarding and (in_worktree or finding.always):
            pass
        elif not (unparsed and re.search(_PUBLISH_WORD, command)):
            continue
        hallmarked = _hallmark(paths, finding.cwd or cwd)
        if hallmarked.ok:
            continue
        return Gate(
            "deny",
            f"the push gate cannot follow this command ({finding.detail}), and it might publish "
            f"while {hallmarked.reason}. Write it plainly, or list it in [capture] push_allow in "
            ".hallmark.toml (main checkout).",
            ["hall status", "rewrite the command without the construct named"],
        )
    return None


def _sends(paths: RepoPaths, finding: Finding, cwd: str) -> str | None:
    """Why this push may not go (a source without a valid hallmark), or None when every one has one."""
    from . import hallmark, refspecs

    if finding.unresolved:
        return f"the gate cannot know what it sends: {finding.unresolved}"
    where = finding.cwd or cwd
    if not os.path.isdir(where):
        where = str(paths.toplevel)
    if finding.revs is None:
        verdict = hallmark.check(where, paths)
        return None if verdict.ok else verdict.reason
    revs, why = refspecs.resolve(where, finding.revs, finding.git_dir)
    if why:
        return why
    if not revs:
        return None
    verdict = hallmark.check_revs(where, revs, paths, finding.git_dir)
    return None if verdict.ok else verdict.reason


def _hallmark(paths: RepoPaths, where: str) -> Verdict:
    from . import hallmark

    directory = where if os.path.isdir(where) else str(paths.toplevel)
    try:
        return hallmark.check(directory, paths)
    except RuntimeError as exc:
        return hallmark.Verdict(False, str(exc))


def _allowed(finding: Finding, command: str, allow: list[str]) -> bool:
    text = finding.command.strip()
    whole = command.strip()
    for entry in allow:
        entry = entry.strip()
        if entry and (whole == entry or text == entry or text.startswith(entry + " ")):
            return True
    return False


def _staged(findings: list[Finding]) -> list[str] | None:
    """Paths a `git add`/`rm`/`mv` earlier in the same command stages; None when it can't be known."""
    staged: list[str] = []
    for finding in findings:
        if finding.kind != "stage":
            continue
        for arg in finding.args:
            if arg in ("-A", "--all", "-u", "--update", ".", ":/", "--pathspec-from-file") or arg.startswith(
                "--pathspec-from-file="
            ):
                return None
        specs = [a for a in finding.args if not a.startswith("-")]
        if not specs:
            return None
        staged += specs
    return staged
