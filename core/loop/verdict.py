"""The principal engineer's verdict: the pydantic model, its JSON Schema and the approval rule.

`plugin/schemas/verdict.json` is generated from `Verdict` (`hall schema verdict` prints the same
thing). Approval is decided here by a script, never by the reviewer's own words: 0 blockers and
0 majors among the new findings and the earlier findings the reviewer says are still open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from hallmark.core.errors import HallError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

Lens = Literal[
    "first_principles", "correctness", "security_tenancy", "data_migrations", "evidence", "operability", "repo_rules"
]
Severity = Literal["blocker", "major", "minor", "nit"]
LENSES: tuple[str, ...] = Lens.__args__  # type: ignore[attr-defined]
SEVERITIES: tuple[str, ...] = Severity.__args__  # type: ignore[attr-defined]
BLOCKING = frozenset({"blocker", "major"})

LENS_TITLES = {
    "first_principles": "First principles",
    "correctness": "Correctness",
    "security_tenancy": "Security & tenancy",
    "data_migrations": "Data & migrations",
    "evidence": "Evidence",
    "operability": "Operability",
    "repo_rules": "Repo rules",
}


class Finding(BaseModel):
    """One thing that breaks, with the concrete scenario that breaks it."""

    model_config = ConfigDict(extra="forbid")

    lens: Lens = Field(description="which of the seven lenses found it")
    severity: Severity = Field(description="blocker and major block approval; minor and nit do not")
    file: str = Field(description="path relative to the repository root")
    line: int | None = Field(None, ge=0, description="line in the reviewed commit, or null for a whole-file finding")
    title: str = Field("", description="one line")
    scenario: str = Field(min_length=1, description="the concrete scenario that breaks: input, steps, wrong outcome")
    suggestion: str | None = Field(None, description="what would fix it, briefly")


class Verdict(BaseModel):
    """What the principal engineer returns as structured output."""

    model_config = ConfigDict(extra="forbid", title="Hallmark verdict")

    summary: str = Field(min_length=1, description="two or three sentences on the change as a whole")
    findings: list[Finding] = Field(default_factory=list, description="new findings in this round")
    still_open: list[str] = Field(
        default_factory=list, description="ids (F-3) of earlier findings that this commit does not resolve"
    )
    learnings_used: list[str] = Field(default_factory=list, description="ids of Library learnings the review relied on")
    learnings_contradicted: list[str] = Field(
        default_factory=list,
        description="ids of Library learnings this change shows to be wrong (proposed for retirement, never removed)",
    )

    def blocking(self, earlier: list[dict[str, Any]] | None = None) -> list[str]:
        """Why this verdict cannot approve (empty means approve)."""
        reasons = [f"{f.severity} {f.file}:{f.line}" for f in self.findings if f.severity in BLOCKING]
        by_id = {f["id"]: f for f in earlier or []}
        for fid in self.still_open:
            found = by_id.get(fid)
            if found is None or found.get("severity") in BLOCKING:
                reasons.append(f"{fid} still open")
        return reasons


def schema() -> dict[str, Any]:
    from hallmark.core.draft7 import to_draft7

    data = to_draft7(Verdict.model_json_schema())
    data["description"] = (
        "The principal engineer's verdict on one frozen commit. Approval means 0 blockers "
        "and 0 majors; Hallmark decides it from the findings."
    )
    return data


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def parse(data: Any, *, source: str = "the verdict") -> Verdict:
    """Schema-check a verdict; an invalid one is INVALID_VERDICT naming the field."""
    try:
        return Verdict.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "(top level)"
        raise HallError(
            "INVALID_VERDICT", f"{source}: field '{where}': {first.get('msg', 'invalid')}.", ["hall schema verdict"]
        ) from exc


def load_file(path: Path) -> tuple[Verdict, dict[str, Any]]:
    """Read a verdict file a person wrote; returns the verdict and the raw JSON (which may name the item)."""
    from hallmark.core.bounded_read import VERDICT_LIMIT, read_argument

    text = read_argument(str(path), VERDICT_LIMIT, "--file", "hall verdict --file <a JSON verdict file>")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HallError(
            "INVALID_VERDICT", f"{path} is not JSON: {exc.msg} at line {exc.lineno}.", ["hall schema verdict"]
        ) from exc
    if not isinstance(raw, dict):
        raise HallError("INVALID_VERDICT", f"{path} must hold a JSON object.", ["hall schema verdict"])
    body = {k: v for k, v in raw.items() if k not in ("item", "sha", "$schema")}
    return parse(body, source=str(path)), raw
