"""`.hallmark.toml` as a validated pydantic model; an invalid file names the key and its line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .config_raw import CONFIG_NAME, DEFAULTS, config_path, merge_defaults
from .errors import HallError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
MAX_TOKENS = 10_000_000_000  # a cap above this is a typo, not a budget
MAX_ROUNDS = 100  # max_rejects, max_check_failures: more rounds than this is a loop that never ends
ROOMS = ("review", "fix", "intake", "librarian", "dev")  # [budget.<room>] tables


def parse_tokens(value: str | int | None) -> int | None:
    """'4M', '800k', '6k', 1200 or 'none' -> tokens (None means no cap)."""
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"not a token count: {value!r} (use 800k, 4M or none)")
    if isinstance(value, int):
        if not 0 <= value <= MAX_TOKENS:
            raise ValueError(f"{value} tokens is out of range (0 to {MAX_TOKENS:,})")
        return value
    text = str(value).strip().lower()
    if text in ("none", "off", ""):
        return None
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a token count: {value!r} (use 800k, 4M or none)")
    number = float(match.group(1))
    unit = match.group(2).lower()
    tokens = int(number * {"": 1, "k": 1_000, "m": 1_000_000}[unit])
    if tokens > MAX_TOKENS:
        raise ValueError(f"{value!r} is out of range (at most {MAX_TOKENS:,} tokens)")
    return tokens


def _duration_text(value: str) -> str:
    """A duration ('30m', '4h', '90d') that is positive and under ten years."""
    from .clock import parse_duration

    try:
        seconds = parse_duration(value)
    except (ValueError, TypeError):
        raise ValueError(f"{value!r} is not a duration (e.g. 30m, 4h, 90d)") from None
    if not 0 < seconds <= 10 * 365 * 86400:
        raise ValueError(f"{value!r} is out of range (above 0, at most 10 years)")
    return value


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

    @field_validator("max_usd")
    @classmethod
    def _usd(cls, value: float | str | None) -> float | str | None:
        if isinstance(value, str) and value.strip().lower() not in ("none", "off"):
            raise ValueError("max_usd is a number of dollars, or \"none\"")
        if isinstance(value, int | float) and not 0 < value <= 10_000:
            raise ValueError(f"max_usd {value} is out of range (above 0, at most 10000)")
        return value

    @field_validator("daily")
    @classmethod
    def _daily(cls, value: str | int | None) -> str | int | None:
        if value is not None:
            parse_tokens(value)
        return value


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

    @model_validator(mode="after")
    def _rooms(self) -> BudgetConfig:
        """Besides its own keys, [budget] holds only [budget.<room>] tables; anything else is a typo."""
        for key, value in (self.model_extra or {}).items():
            if key not in ROOMS:
                raise ValueError(f"unknown key '{key}' under [budget] (its keys: daily, per_item, *_model, "
                                 f"and the tables [budget.{'], [budget.'.join(ROOMS)}])")
            if not isinstance(value, dict):
                raise ValueError(f"[budget.{key}] must be a table (max_usd, daily)")
            RoomBudget.model_validate(value)
        return self

    def room(self, role: str) -> RoomBudget:
        extra = (self.model_extra or {}).get(role)
        return RoomBudget.model_validate(extra or {})


class LibraryConfig(_Strict):
    search: Literal["builtin", "qmd"] = "builtin"
    briefing_limit: str | int = "6k"
    auto_accept: list[str] = Field(default_factory=list)
    retire_after: str = "90d"

    @field_validator("briefing_limit")
    @classmethod
    def _limit(cls, value: str | int) -> str | int:
        tokens = parse_tokens(value)
        if tokens is None or not 100 <= tokens <= 200_000:
            raise ValueError("briefing_limit is a token count from 100 to 200k (e.g. 6k)")
        return value

    @field_validator("auto_accept")
    @classmethod
    def _kinds(cls, value: list[str]) -> list[str]:
        from .memory.store import KINDS

        for kind in value:
            if kind == "automation":
                raise ValueError("automation can never be auto-accepted: a person confirms each command")
            if kind not in KINDS:
                raise ValueError(f"'{kind}' is not a learning kind ({', '.join(KINDS)})")
        return value

    @field_validator("retire_after")
    @classmethod
    def _after(cls, value: str) -> str:
        return _duration_text(value)


class RunnerConfig(_Strict):
    claude: str = ""
    timeout: str = "30m"
    # Claude Code's sandbox for headless runs' commands: auto (on where it can run, else Claude Code
    # warns and runs them unsandboxed), require (a run refuses to start without it:
    # sandbox.failIfUnavailable), off (permission rules only)
    sandbox: Literal["auto", "require", "off"] = "auto"

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: str) -> str:
        return _duration_text(value)


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
    max_rejects: int = Field(3, ge=1, le=MAX_ROUNDS)
    max_check_failures: int = Field(3, ge=1, le=MAX_ROUNDS)
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
        return _duration_text(value)

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
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise HallError("INVALID_CONFIG", f"{path}: cannot read ({exc}).", ["hall doctor"]) from exc
    except UnicodeDecodeError as exc:
        raise HallError("INVALID_CONFIG", f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); TOML files "
                        "are UTF-8.", [f"re-save {CONFIG_NAME} as UTF-8", "hall doctor"]) from exc
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
