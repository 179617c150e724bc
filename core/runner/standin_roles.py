"""What the stand-in model does on its turn, one player per role: the reviewer reads the change and
gives a verdict (the scenario's, or a TODO/FIXME heuristic), the fixer edits, commits and runs
`hall fixed`, any other role says, edits and commits what its step says. Split from standin.py,
which parses the CLI's flags, picks the step and writes the stream around it.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .standin import Model

_DIFF_FILE = re.compile(r"^\+\+\+ b/(.+)$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def todo_findings(prompt: str) -> list[dict[str, Any]]:
    """The heuristic reviewer: every added line with TODO or FIXME is a major finding."""
    findings = []
    current, line_no = None, 0
    for line in prompt.splitlines():
        m = _DIFF_FILE.match(line)
        if m:
            current = m.group(1)
            continue
        h = _HUNK.match(line)
        if h:
            line_no = int(h.group(1))
            continue
        if current is None:
            continue
        if line.startswith("+") and not line.startswith("+++"):
            if re.search(r"\b(TODO|FIXME)\b", line):
                findings.append(
                    {
                        "lens": "correctness",
                        "severity": "major",
                        "file": current,
                        "line": line_no,
                        "title": "Unfinished work left in the change",
                        "scenario": f"{current}:{line_no} still says {line[1:].strip()!r}: the change ships with "
                        "work its author marked as not done.",
                    }
                )
            line_no += 1
        elif line.startswith(" "):
            line_no += 1
    return findings


def do_review(model: Model, step: dict[str, Any], prompt: str) -> dict[str, Any] | None:
    model.say(
        "I am Hallmark's stand-in model, not Claude: no model runs here. "
        "I read the change with real commands and answer from a written scenario."
    )
    model.bash("git log --oneline -5", "Recent commits")
    model.bash("git status --short", "Working tree state")
    for text in step.get("say") or []:
        model.say(str(text))
    for command in step.get("commands") or []:
        model.bash(str(command))
    if "verdict" in step:
        verdict = step["verdict"]
    else:
        findings = todo_findings(prompt)
        verdict = {
            "summary": (
                "Stand-in review: no TODO or FIXME in the added lines; approved."
                if not findings
                else f"Stand-in review: {len(findings)} unfinished marker(s) in the change."
            ),
            "findings": findings,
            "still_open": [],
            "learnings_used": [],
        }
    blocking = [f for f in verdict.get("findings", []) if f.get("severity") in ("blocker", "major")]
    model.say(
        f"Verdict: {'approve' if not blocking and not verdict.get('still_open') else 'changes requested'} "
        f"({len(verdict.get('findings', []))} finding(s))."
    )
    return verdict


def apply_edit(model: Model, edit: dict[str, Any]) -> None:
    rel = edit["file"]
    if "write" in edit:
        model.write_file(rel, edit["write"], append=False)
    elif "append" in edit:
        model.write_file(rel, edit["append"], append=True)
    elif "remove_lines_containing" in edit:
        path = model.cwd / rel
        try:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        except FileNotFoundError:
            return
        needle = edit["remove_lines_containing"]
        model.write_file(rel, "".join(x for x in lines if needle not in x), append=False)


def commit_command(model: Model, edits: list[dict[str, Any]], message: str) -> str:
    """Commit exactly the files the step edited, as a careful agent does (`git add -A` would take
    whatever else lies in the worktree: a build's outputs, the sandbox's placeholder files)."""
    files = [f for f in dict.fromkeys(str(edit["file"]) for edit in edits) if (model.cwd / f).exists()]
    add = f"git add -- {shlex.join(files)} && " if files else ""
    return f"{add}git commit -q -m {shlex.quote(message)}"


def do_fix(model: Model, step: dict[str, Any], prompt: str) -> None:
    model.say(
        "I am Hallmark's stand-in model, not Claude: no model runs here. "
        "I make the scenario's edits and commit them for real."
    )
    model.bash("hall findings --json", "Open findings and failing checks")
    edits = step.get("edits")
    fixed = list(step.get("fixed") or [])
    if edits is None:  # heuristic: remove the flagged TODO/FIXME lines
        edits = []
        for match in re.finditer(r"^- (F-\d+) \[[^\]]*\] ([^:\s]+):\d+", prompt, re.M):
            fixed.append(match.group(1))
            edits.append({"file": match.group(2), "remove_lines_containing": "TODO"})
            edits.append({"file": match.group(2), "remove_lines_containing": "FIXME"})
    for edit in edits:
        apply_edit(model, edit)
    for command in step.get("commands") or []:  # e.g. run the tests before committing
        model.bash(str(command))
    if step.get("commit", True) and edits:
        message = step.get("message") or ("Fix " + ", ".join(fixed) if fixed else "Stand-in fix")
        model.bash(commit_command(model, edits, message), "Commit the fix")
    disputes = step.get("dispute") or {}
    if fixed or disputes:
        parts = ["hall", "fixed", *fixed]
        for fid, reason in disputes.items():
            parts += ["--dispute", fid, "--reason", reason]
        if step.get("no_submit"):
            parts.append("--no-submit")
        model.bash(shlex.join(parts) + " --json", "Record what the commit fixes")
    model.say("Done.")


def do_other(model: Model, step: dict[str, Any]) -> None:
    model.say("I am Hallmark's stand-in model, not Claude: no model runs here.")
    for text in step.get("say") or []:
        model.say(str(text))
    for edit in step.get("edits") or []:
        apply_edit(model, edit)
    if step.get("edits") and step.get("message"):
        model.bash(commit_command(model, step["edits"], str(step["message"])), "Commit the work")
    for command in step.get("commands", []):
        model.bash(command)
    model.say(step.get("text", "Done."))


def play(model: Model, role: str, step: dict[str, Any], prompt: str) -> Any:
    """The scenario's step for this role; the structured output it gives, if any."""
    if role == "review":
        return do_review(model, step, prompt)
    if role == "fix":
        do_fix(model, step, prompt)
        return None
    do_other(model, step)
    return step["structured_output"] if isinstance(step.get("structured_output"), dict) else None
