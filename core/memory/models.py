"""Pydantic models of the memory store's records, for `hall schema learning` and validation at the
CLI boundary. NOT imported on the hook path (the store itself is stdlib dataclasses + JSON)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .lifecycle import STATUSES
from .store import KINDS, SOURCES

Kind = Literal[KINDS]  # type: ignore[valid-type]
Status = Literal[STATUSES]  # type: ignore[valid-type]
Source = Literal[SOURCES]  # type: ignore[valid-type]


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: Source
    quote: str = Field("", description="verbatim")
    item: str | None = None
    session: str | None = None
    date: str | None = Field(None, description="YYYY-MM-DD")
    file: str | None = Field(None, description="the file a correction was about")


class Scope(BaseModel):
    project: str = Field(description="the project identity (.agentmemory-project)")
    paths: list[str] = Field(default_factory=list, description="path globs the learning applies to")


class LearningModel(BaseModel):
    """One learning as stored in library/learnings/L-0001.md (the JSON front matter)."""

    model_config = ConfigDict(extra="forbid", title="Learning")
    id: str = Field(pattern=r"^L-\d{4,}$")
    kind: Kind
    pattern: str = Field(description="one idea, in words")
    rationale: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    occurrences: int = Field(1, ge=1)
    scope: Scope
    status: Status
    skip_count: int = 0
    created: str
    updated: str
    version: int = Field(ge=1)
    reason: str = ""
    decided_by: str = ""
    origin: str = "propose"
    details: dict[str, Any] = Field(default_factory=dict)
    promotion: dict[str, Any] | None = None
    retire_proposal: dict[str, Any] | None = None
    reproposed: int = 0
    valid_from: str = Field("", description="validity time: holds from (ISO stamp; empty in old stores = created)")
    valid_until: str | None = Field(None, description="validity time: holds until (retirement, supersession)")
    supersedes: str | None = None
    superseded_by: str | None = None


def learning_schema() -> dict[str, Any]:
    return LearningModel.model_json_schema()
