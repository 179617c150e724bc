"""`.hallmark.toml` as a validated pydantic model; an invalid file names the key and its line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .config_raw import CONFIG_NAME, DEFAULTS, config_path, merge_defaults
from .errors import HallError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def parse_tokens(value: str | int | None) -> int | None:
    """'4M', '800k', '6k', 1200 or 'none' -> tokens (None means no cap)."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().lower()
    if text in ("none", "off", ""):
        return None
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a token count: {value!r} (use 800k, 4M or none)")
    number = float(match.group(1))
    unit = match.group(2).lower()
    return int(number * {"": 1, "k": 1_000, "m": 1_000_000}[unit])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CaptureConfig(_Strict):
    mode: Literal["gate", "ask", "off"] = "gate"
    free: list[str] = Field(default_factory=lambda: ["docs/", "*.md"])
    push_guard: Literal["strict", "parse"] = "strict"
    push_allow: list[str] = Field(default_factory=list)


class MergeConfig(_Strict):
    mode: Literal["off", "auto"] = "off"
    command: str = DEFAULTS["merge"]["command"]
    require_ci: bool = True
    lit: list[str] = Field(default_factory=list)
    update: Literal["files", "conflicts"] = "files"


class IntakeConfig(_Strict):
    split: Literal["auto", "off"] = "auto"
    max_parts: int = Field(4, ge=2, le=16)


class RoomBudget(_Strict):
    max_usd: float | str | None = None
    daily: str | int | None = None


class BudgetConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    daily: str | int = "4M"
    per_item: str | int = "800k"
    review_model: str = "opus"
    fix_model: str = "sonnet"
    intake_model: str = "haiku"
    librarian_model: str = "haiku"

    @field_validator("daily", "per_item")
    @classmethod
    def _tokens(cls, value: str | int) -> str | int:
        parse_tokens(value)
        return value

    def room(self, role: str) -> RoomBudget:
        extra = (self.model_extra or {}).get(role)
        return RoomBudget.model_validate(extra or {})


class LibraryConfig(_Strict):
    search: Literal["builtin", "qmd"] = "builtin"
    briefing_limit: str | int = "6k"
    auto_accept: list[str] = Field(default_factory=list)
    retire_after: str = "90d"


class RunnerConfig(_Strict):
    claude: str = ""
    timeout: str = "30m"


class TuiConfig(_Strict):
    keymap: dict[str, str] = Field(default_factory=dict)
    theme: str = ""


class WorktreeOptions(_Strict):
    """`[worktree]` as a table: `command` (the template) and `copy` (untracked files to copy in)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    files: list[str] = Field(default_factory=list, alias="copy")


_LOOSENING_ARGS = ("--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", "--permission-mode")


class Config(_Strict):
    base: str = "main"
    worktree: str = DEFAULTS["worktree"]
    branch: str = DEFAULTS["branch"]
    ship: str = DEFAULTS["ship"]
    review_comment: str = DEFAULTS["review_comment"]
    gates: list[str] = Field(default_factory=list)
    gates_no_cache: list[str] = Field(default_factory=list)
    dev_commands: list[str] = Field(default_factory=list)
    fixer: str = "claude -p"
    claude_args: list[str] = Field(default_factory=list)
    max_rejects: int = Field(3, ge=1)
    max_check_failures: int = Field(3, ge=1)
    max_run_failures: int = Field(2, ge=1, le=20)  # failed runs in a row before a `run_failed` hold
    max_runs_per_round: int = Field(8, ge=1, le=100)  # the hard ceiling of review and fixer runs in a round
    stuck_after: str = "30m"
    lenses: str | list[str] = "all"
    rules: list[str] = Field(default_factory=lambda: ["CLAUDE.md", "AGENTS.md"])
    auto_ready: bool = False
    capture: CaptureConfig = Field(default_factory=CaptureConfig)
    worktree_opts: WorktreeOptions = Field(default_factory=WorktreeOptions)
    merge: MergeConfig = Field(default_factory=MergeConfig)
    intake: IntakeConfig = Field(default_factory=IntakeConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    library: LibraryConfig = Field(default_factory=LibraryConfig)
    runner: RunnerConfig = Field(default_factory=RunnerConfig)
    extensions: dict[str, list[str]] = Field(default_factory=dict)
    tui: TuiConfig = Field(default_factory=TuiConfig)

    @field_validator("claude_args")
    @classmethod
    def _no_loosening(cls, value: list[str]) -> list[str]:
        for arg in value:
            if any(arg.startswith(bad) for bad in _LOOSENING_ARGS):
                raise ValueError(f"{arg!r} would loosen the headless runs' confinement")
        return value

    @field_validator("stuck_after")
    @classmethod
    def _duration(cls, value: str) -> str:
        from .clock import parse_duration

        parse_duration(value)
        return value

    @property
    def worktree_copy(self) -> list[str]:
        """`[worktree] copy`: untracked files copied into each new worktree."""
        return list(self.worktree_opts.files)


_HEADER = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def _key_parts(text: str) -> list[str]:
    return [p.strip().strip('"').strip("'") for p in text.split(".")]


def _line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """The line where the failing key is written: `key =` inside its table, a dotted key, or the table."""
    names = []
    for part in loc:
        if not isinstance(part, str):
            break  # a list index: the line of the list's key is the best we can say
        names.append("worktree" if part == "worktree_opts" else part)
    if not names:
        return None
    table: list[str] = []
    header_line: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = _HEADER.match(stripped)
        if header:
            table = _key_parts(header.group(1))
            if table == names:
                header_line = number
            continue
        key, sep, _ = stripped.partition("=")
        if not sep or stripped.startswith("#"):
            continue
        full = table + _key_parts(key)
        if full == names or (len(full) < len(names) and full == names[: len(full)]):
            return number
    return header_line


def _prepare(data: dict[str, Any]) -> dict[str, Any]:
    """TOML's `[worktree]` table and the `worktree` template share a name; split them."""
    data = dict(data)
    if isinstance(data.get("worktree"), dict):
        table = dict(data.pop("worktree"))
        template = table.pop("command", None)
        if template is not None:
            data["worktree"] = template
        data["worktree_opts"] = table
    return data


def load(main_checkout: Path) -> Config:
    path = config_path(main_checkout)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise HallError("INVALID_CONFIG", f"{path}: cannot read ({exc}).", ["hall doctor"]) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else max(1, len(text.splitlines()))
        raise HallError("INVALID_CONFIG", f"{path}:{line}: not valid TOML: {exc}.",
                        [f"edit {CONFIG_NAME}", "hall doctor"]) from exc
    try:
        return Config.model_validate(_prepare(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first.get("loc", ()))
        key = ".".join("worktree" if p == "worktree_opts" else str(p) for p in loc) or "(top level)"
        line = _line_of(text, loc)
        where = f"{path}:{line}" if line else str(path)
        raise HallError(
            "INVALID_CONFIG",
            f"{where}: key '{key}': {first.get('msg', 'invalid')}.",
            [f"edit {CONFIG_NAME}", "hall schema config", "hall doctor"],
        ) from exc


def as_defaults_dict() -> dict[str, Any]:
    return merge_defaults({})
