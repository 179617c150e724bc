"""The workflow checkpoint: exactly one per project, fixed fields, at most 4,000 characters.

It is the handoff state the next session starts from (plan-build's workflow_status slot): it is
replaced at milestones, never appended to, and every replaced version is kept. Stdlib only
(SessionStart reads it).

Layout: library/checkpoints/<project-key>/current.md and history/<stamp>.md, where
project-key is a filesystem-safe form of the project identity plus a short hash.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

from hallmark.core import atomic, clock, journal, secrets
from hallmark.core.errors import HallError
from hallmark.core.notes_results import CheckpointHistory, CheckpointShown, CheckpointVersion, CheckpointWritten
from hallmark.core.paths import RepoPaths

from . import identity

FIELDS = (
    "Phase",
    "Active work",
    "Completed",
    "In flight",
    "Blocked",
    "Pending decisions",
    "Relevant files",
    "Last verified",
    "Next step",
    "Updated",
)
DEFAULTS = {"Blocked": "None", "Pending decisions": "None", "Relevant files": "Unknown", "Last verified": "Not run"}
REQUIRED = ("Phase", "Active work", "Next step")
LIMIT = 4000
# CLI flag name (snake case) for each field
KEYS = {f: re.sub(r"\W+", "_", f.lower()) for f in FIELDS}


def project_key(project: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", project)[:60]
    return f"{safe}-{hashlib.sha256(project.encode()).hexdigest()[:8]}"


def folder(paths: RepoPaths, project: str) -> Path:
    return paths.state_dir / "library" / "checkpoints" / project_key(project)


def render(fields: dict[str, str]) -> str:
    return "\n".join(f"{name}: {fields.get(name, '')}" for name in FIELDS) + "\n"


def parse(text: str) -> dict[str, str]:
    """'Field: value' lines (the slot shape); unknown lines are an error, not silently dropped."""
    out: dict[str, str] = {}
    lowered = {f.lower(): f for f in FIELDS}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        field = lowered.get(name.strip().lower())
        if not sep or field is None:
            raise HallError(
                "USAGE",
                f"checkpoint line {number} is not one of the fields ({', '.join(FIELDS)}): {line[:80]!r}",
                ["hall checkpoint show"],
            )
        out[field] = value.strip()
    return out


def show(paths: RepoPaths) -> CheckpointShown:
    project = identity.current(paths).value
    path = folder(paths, project) / "current.md"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return CheckpointShown(
            project=project,
            checkpoint=None,
            text=None,
            message="No checkpoint has been recorded for this project yet.",
        )
    return CheckpointShown(project=project, checkpoint=parse(text), text=text, characters=len(text))


def set_checkpoint(
    paths: RepoPaths, values: dict[str, str], *, actor: str = "you", fresh: bool = False
) -> CheckpointWritten:
    """Replace the checkpoint. Unset fields carry over from the current one unless fresh."""
    project = identity.current(paths).value
    base = folder(paths, project)
    current = base / "current.md"
    fields: dict[str, str] = {name: DEFAULTS.get(name, "") for name in FIELDS}
    if not fresh:
        with contextlib.suppress(FileNotFoundError):
            fields.update(parse(current.read_text(encoding="utf-8")))
    for name, value in values.items():
        if name not in FIELDS:
            raise HallError(
                "USAGE", f"'{name}' is not a checkpoint field ({', '.join(FIELDS)})", ["hall checkpoint set --help"]
            )
        if value is not None:
            fields[name] = str(value).strip()
    for name in FIELDS:
        if name != "Next step" and "\n" in fields.get(name, ""):
            fields[name] = "; ".join(p.strip() for p in fields[name].splitlines() if p.strip())
    missing = [n for n in REQUIRED if not fields.get(n)]
    if missing:
        raise HallError(
            "USAGE",
            f"the checkpoint needs {', '.join(missing)}",
            ["hall checkpoint set --phase … --active-work … --next-step …"],
        )
    step = fields["Next step"]
    if "\n" in step.strip() or re.match(r"^\s*(?:1[.)]|-|\*)\s", step):
        raise HallError(
            "USAGE",
            "Next step must be exactly one concrete action on one line",
            ["hall checkpoint set --next-step '…'"],
        )
    fields["Updated"] = clock.stamp()
    secrets.refuse_if_secret({KEYS[n]: v for n, v in fields.items()}, "the checkpoint")
    text = render(fields)
    if len(text) > LIMIT:
        raise HallError(
            "USAGE",
            f"the checkpoint is {len(text):,} characters; the limit is {LIMIT:,}. "
            "Keep it to the handoff state; durable facts belong in notes or learnings.",
            ["hall note add …", "hall library propose …"],
        )
    with journal.locked(base / "slot"):
        previous = None
        with contextlib.suppress(FileNotFoundError):
            previous = current.read_text(encoding="utf-8")
        stamp = fields["Updated"].replace(":", "").replace("-", "").replace(".", "")
        atomic.write_text(base / "history" / f"{stamp}.md", text)
        atomic.write_text(current, text)
        journal.append(
            paths.state_dir / "library" / "audit.jsonl",
            "checkpoint",
            item=None,
            actor=actor,
            project=project,
            action="replace",
            why=f"phase {fields['Phase']}",
            replaced=previous is not None,
        )
    return CheckpointWritten(
        project=project, checkpoint=fields, text=text, characters=len(text), replaced=previous is not None
    )


def history(paths: RepoPaths) -> CheckpointHistory:
    """Every version kept, oldest first; an unreadable one is left out, not fatal."""
    project = identity.current(paths).value
    out = []
    for path in sorted((folder(paths, project) / "history").glob("*.md")):
        try:
            out.append(CheckpointVersion(file=path.name, checkpoint=parse(path.read_text(encoding="utf-8"))))
        except (OSError, HallError):
            continue
    return CheckpointHistory(versions=tuple(out), count=len(out))
