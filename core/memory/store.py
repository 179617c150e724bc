"""The learnings on disk: one human-readable file per learning, every version kept, an audit line per change.

Layout under `<git-common-dir>/hallmark/library/` (never committed; every worktree shares it):

    learnings/L-0001.md          the current version
    history/L-0001/v0001.md      every version, the current one included
    audit.jsonl                  append-only: who, when, from, to, why (+ the full new record)
    store                        (lock file: one writer at a time)

A learning file is Markdown with a JSON front-matter block between `---` lines: the block is the
record (parsed with json, so the hook path needs no pydantic and no YAML), the body under it is a
rendering for people. Stdlib + filelock only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hallmark.core import atomic, clock, journal
from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths

KINDS = ("rule", "false-positive", "map", "decision", "convention", "enforcement", "automation", "skill", "workflow")
# craft's six evidence sources, plus Hallmark's own origins
SOURCES = (
    "user_statement",
    "user_correction",
    "user_request",
    "user_explanation",
    "repeated_pattern",
    "cli_error",
    "review_finding",
    "escalation_ruling",
    "librarian",
    "import",
)
_ID = re.compile(r"^(?:[lL]-?)?0*(\d{1,9})$")


def parse_id(text: str) -> str:
    match = _ID.match(str(text).strip())
    if not match or int(match.group(1)) == 0:
        raise HallError("USAGE", f"'{text}' is not a learning ID (try L-7 or L-0007).", ["hall library list"])
    return f"L-{int(match.group(1)):04d}"


@dataclass
class Learning:
    id: str
    kind: str
    pattern: str
    rationale: str = ""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    occurrences: int = 1
    scope: dict[str, Any] = field(default_factory=lambda: {"project": "", "paths": []})
    status: str = "proposed"
    skip_count: int = 0
    created: str = ""
    updated: str = ""
    version: int = 0
    reason: str = ""  # why the last decision was made (a rejection's reason is the tombstone's)
    decided_by: str = ""
    origin: str = "propose"  # propose, import, failures, librarian
    details: dict[str, Any] = field(default_factory=dict)  # per-kind: name, paths, hook_event, steps…
    promotion: dict[str, Any] | None = None  # {target, path, digest} while promoted
    retire_proposal: dict[str, Any] | None = None  # {reason, at, by} while a retirement is proposed
    reproposed: int = 0  # times the pattern came back after a rejection
    # validity time (bitemporal): from when, and until when, the learning holds. Record time is
    # `created` (when Hallmark first learned it) and each version's `updated` (when it recorded that).
    valid_from: str = ""  # "" in stores written before it existed: then it holds from `created`
    valid_until: str | None = None  # set by retirement or supersession; history keeps what was before
    supersedes: str | None = None  # the learning this one replaces once accepted
    superseded_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Learning:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def recorded(self) -> str:
        """Record time: when Hallmark learned it."""
        return self.created

    @property
    def valid_since(self) -> str:
        return self.valid_from or self.created

    def valid_at(self, stamp: str) -> bool:
        """Does it hold at this moment (an ISO stamp), by its validity time?"""
        since = self.valid_since
        return (not since or since <= stamp) and (self.valid_until is None or stamp < self.valid_until)

    @property
    def project(self) -> str:
        return str((self.scope or {}).get("project") or "")

    @property
    def paths(self) -> list[str]:
        return list((self.scope or {}).get("paths") or [])


def render(learning: Learning) -> str:
    """The file: JSON front matter (the record) and a Markdown body for people."""
    record = json.dumps(learning.to_dict(), indent=2, ensure_ascii=False)
    lines = [
        "---",
        record,
        "---",
        "",
        f"# {learning.id} · {learning.kind} · {learning.status}",
        "",
        learning.pattern.strip(),
        "",
    ]
    if learning.rationale:
        lines += [f"**Why:** {learning.rationale.strip()}", ""]
    if learning.paths:
        lines += ["**Paths:** " + ", ".join(f"`{p}`" for p in learning.paths), ""]
    lines += [f"**Project:** {learning.project}  ·  **Occurrences:** {learning.occurrences}", ""]
    if learning.evidence:
        lines.append("## Evidence")
        for entry in learning.evidence:
            where = ", ".join(str(entry[k]) for k in ("source", "date", "item", "session", "file") if entry.get(k))
            lines.append(f'- {where}: "{entry.get("quote", "")}"')
        lines.append("")
    if learning.status == "rejected":
        lines += [f"**Rejected** ({learning.decided_by}): {learning.reason}", ""]
    return "\n".join(lines)


def parse(text: str, where: str = "") -> Learning:
    if not text.startswith("---\n"):
        raise ValueError(f"{where}: no front matter")
    end = text.find("\n---\n", 4)
    if end == -1:
        raise ValueError(f"{where}: front matter not closed")
    data = json.loads(text[4:end])
    if not isinstance(data, dict) or not data.get("id"):
        raise ValueError(f"{where}: front matter is not a learning")
    return Learning.from_dict(data)


@dataclass
class Unreadable:
    path: str
    reason: str


class Store:
    """The library directory of one repository."""

    def __init__(self, paths: RepoPaths) -> None:
        self.paths = paths
        self.root = paths.state_dir / "library"
        self.learnings_dir = self.root / "learnings"
        self.history_dir = self.root / "history"
        self.audit_path = self.root / "audit.jsonl"
        self.unreadable: list[Unreadable] = []

    # -- locking ----------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        with journal.locked(self.root / "store"):
            yield

    # -- reading ----------------------------------------------------------------------
    def file(self, lid: str) -> Path:
        return self.learnings_dir / f"{lid}.md"

    def read(self, lid: str) -> Learning:
        lid = parse_id(lid)
        path = self.file(lid)
        try:
            return parse(path.read_text(encoding="utf-8"), str(path))
        except FileNotFoundError:
            raise HallError("LEARNING_NOT_FOUND", f"No learning {lid}.", ["hall library list"]) from None
        except (ValueError, OSError) as exc:
            raise HallError("INTERNAL", f"{path} cannot be read: {exc}", ["hall doctor"]) from exc

    def all(self) -> list[Learning]:
        """Every readable learning, in ID order; unreadable files are listed in self.unreadable."""
        self.unreadable = []
        out: list[Learning] = []
        try:
            files = sorted(self.learnings_dir.glob("L-*.md"))
        except OSError as exc:  # pragma: no cover - an unreadable directory
            raise HallError("INTERNAL", f"{self.learnings_dir} cannot be listed: {exc}", ["hall doctor"]) from exc
        for path in files:
            try:
                out.append(parse(path.read_text(encoding="utf-8"), str(path)))
            except (ValueError, OSError, TypeError) as exc:
                self.unreadable.append(Unreadable(str(path), str(exc)))
        return out

    def versions(self, lid: str) -> list[Learning]:
        lid = parse_id(lid)
        folder = self.history_dir / lid
        out = []
        for path in sorted(folder.glob("v*.md")):
            try:
                out.append(parse(path.read_text(encoding="utf-8"), str(path)))
            except (ValueError, OSError):
                continue
        return out

    # -- writing ----------------------------------------------------------------------
    def next_id(self) -> str:
        """Under the store lock: one past the highest learning ever numbered here."""
        counter = self.root / "counter.json"
        data = atomic.read_json(counter, {}) or {}
        highest = int(data.get("learning", 0))
        following = f"L-{highest + 1:04d}"
        if not highest or self.file(following).exists() or (self.history_dir / following).exists():
            # the counter is missing or behind the files: never reuse a number a file holds
            for path in [*self.learnings_dir.glob("L-*.md"), *self.history_dir.glob("L-*")]:
                match = _ID.match(path.stem)
                if match:
                    highest = max(highest, int(match.group(1)))
        number = highest + 1
        atomic.write_json(counter, {**data, "learning": number})
        return f"L-{number:04d}"

    def save(
        self,
        learning: Learning,
        *,
        action: str,
        actor: str,
        from_status: str | None,
        why: str = "",
        **audit_fields: Any,
    ) -> Learning:
        """Write a new version (current file + history) and one audit line. Caller holds the lock."""
        learning.version += 1
        learning.updated = clock.stamp()
        if not learning.created:
            learning.created = learning.updated
        if not learning.valid_from:  # a store from before validity time: it held from when it was recorded
            learning.valid_from = learning.created
        text = render(learning)
        fields = {
            "lid": learning.id,
            "action": action,
            "from": from_status,
            "to": learning.status,
            "why": why,
            "version": learning.version,
            "record": learning.to_dict(),
            **audit_fields,
        }
        line = sealed_audit(self.paths, journal.make_event("library", None, actor, fields), action)  # before any write
        atomic.write_text(self.history_dir / learning.id / f"v{learning.version:04d}.md", text)
        atomic.write_text(self.file(learning.id), text)
        with journal.locked(self.audit_path):
            journal.append_unlocked(self.audit_path, line)
        return learning


def sealed_audit(paths: RepoPaths, line: dict[str, Any], action: str) -> dict[str, Any]:
    """A person's library decision carries this machine's signature (core/person_cap.py); a process
    that cannot sign changes nothing (GATE_DENIED)."""
    from hallmark.core import person_cap

    try:
        return person_cap.seal_if_person(line, paths)
    except person_cap.CapError as exc:
        raise person_cap.refusal(f"hall library {action}", exc) from None
