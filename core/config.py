"""`.hallmark.toml` as a validated pydantic model; an invalid file names the key and its line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import bounded_read, config_raw
from .config_notify import NotifyConfig, repo_table_problem
from .config_raw import CONFIG_NAME, DEFAULTS, config_path
from .errors import HallError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
MAX_TOKENS = 10_000_000_000  # a cap above this is a typo, not a budget
MAX_ROUNDS = 100  # max_rejects, max_check_failures: more rounds than this is a loop that never ends
ROOMS = ("review", "fix", "intake", "librarian", "dev")  # [budget.<room>] tables


def parse_tokens(value: str | int | None) -> int | None:
    """'4M', '800k', '6k', 1200 or 'none' -> tokens (None means no cap)."""
    if value is None:
        return None
    if isinstance(value, (bool, float)):
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


def _default(key: str) -> Any:
    """The default of a dotted key, from config_raw.DEFAULTS (the one source; lists are copied)."""
    value: Any = DEFAULTS
    for part in key.split("."):
        value = value[part]
    return list(value) if isinstance(value, list) else value


def _list(key: str) -> Any:
    return Field(default_factory=lambda: _default(key))


class CaptureConfig(_Strict):
    # (a Literal lists its choices for the schema; config_raw.CHOICES holds the same, a test checks)
    mode: Literal["gate", "ask", "off"] = _default("capture.mode")
    free: list[str] = _list("capture.free")
    push_guard: Literal["strict", "parse"] = _default("capture.push_guard")
    push_allow: list[str] = _list("capture.push_allow")


class MergeConfig(_Strict):
    """The merger (ADR 0048): not built yet, so any key here but `mode = "off"` is refused (config_support.py)."""

    mode: Literal["off", "auto"] = _default("merge.mode")
    command: str = _default("merge.command")
    require_ci: bool = _default("merge.require_ci")
    lit: list[str] = _list("merge.lit")
    update: Literal["files", "conflicts"] = _default("merge.update")


class DeliveryConfig(_Strict):
    """The Delivery Office: how often the daemon asks GitHub about each open PR (and whether at all)."""

    watch: bool = _default("delivery.watch")
    interval: str = _default("delivery.interval")

    @field_validator("interval")
    @classmethod
    def _interval(cls, value: str) -> str:
        return _duration_text(value)


class IntakeConfig(_Strict):
    """The Front Desk's splitting: not built yet, so any key here is refused (config_support.py)."""

    split: Literal["auto", "off"] = _default("intake.split")
    max_parts: int = Field(_default("intake.max_parts"), ge=2, le=16)


class RoomBudget(_Strict):
    max_usd: float | str | None = None
    daily: str | int | None = None

    @field_validator("max_usd")
    @classmethod
    def _usd(cls, value: float | str | None) -> float | str | None:
        if isinstance(value, str) and value.strip().lower() not in ("none", "off"):
            raise ValueError('max_usd is a number of dollars, or "none"')
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

    daily: str | int = _default("budget.daily")
    per_item: str | int = _default("budget.per_item")
    review_model: str = _default("budget.review_model")
    fix_model: str = _default("budget.fix_model")
    intake_model: str = _default("budget.intake_model")
    librarian_model: str = _default("budget.librarian_model")

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
                raise ValueError(
                    f"unknown key '{key}' under [budget] (its keys: daily, per_item, *_model, "
                    f"and the tables [budget.{'], [budget.'.join(ROOMS)}])"
                )
            if not isinstance(value, dict):
                raise ValueError(f"[budget.{key}] must be a table (max_usd, daily)")
            RoomBudget.model_validate(value)
        return self

    def room(self, role: str) -> RoomBudget:
        extra = (self.model_extra or {}).get(role)
        return RoomBudget.model_validate(extra or {})


class LibraryConfig(_Strict):
    search: Literal["builtin", "qmd"] = Field(
        _default("library.search"), description='only "builtin" is built: "qmd" is refused as not yet supported'
    )
    briefing_limit: str | int = _default("library.briefing_limit")
    auto_accept: list[str] = _list("library.auto_accept")
    retire_after: str = _default("library.retire_after")

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
    claude: str = _default("runner.claude")
    timeout: str = _default("runner.timeout")
    # Claude Code's sandbox for headless runs' commands: auto (on where it can run, else Claude Code
    # warns and runs them unsandboxed), require (a run refuses to start without it:
    # sandbox.failIfUnavailable), off (permission rules only)
    sandbox: Literal["auto", "require", "off"] = _default("runner.sandbox")
    # the hosts an agent's sandboxed commands may reach (Claude Code's sandbox.network.allowedDomains,
    # e.g. "pypi.org"); none by default, and never the git remote or the forge: only the shipper pushes
    allowed_domains: list[str] = Field(default_factory=lambda: _default("runner.allowed_domains"))

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: str) -> str:
        return _duration_text(value)


class TuiConfig(_Strict):
    keymap: dict[str, str] = Field(default_factory=dict)
    theme: str = _default("tui.theme")


class WorktreeOptions(_Strict):
    """`[worktree]` as a table: `command` (the template), `copy` (untracked files to copy in) and
    `setup` (the project's install, run once per checkout before its gates or its fixer, e.g. `npm ci`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    files: list[str] = Field(default_factory=lambda: _default("worktree_opts.copy"), alias="copy")
    setup: str = _default("worktree_opts.setup")


_LOOSENING_ARGS = ("--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", "--permission-mode")


class Config(_Strict):
    base: str = _default("base")
    worktree: str = _default("worktree")
    branch: str = _default("branch")
    ship: str = _default("ship")
    # an item that has a PR already (reopened, adopted) ships through this instead of `ship`
    update: str = _default("update")
    # each review of an item with a PR is posted through this ("" turns the comments off)
    review_comment: str = _default("review_comment")
    gates: list[str] = _list("gates")
    gates_no_cache: list[str] = _list("gates_no_cache")
    dev_commands: list[str] = _list("dev_commands")
    fixer: str = _default("fixer")
    claude_args: list[str] = _list("claude_args")
    max_rejects: int = Field(_default("max_rejects"), ge=1, le=MAX_ROUNDS)
    max_check_failures: int = Field(_default("max_check_failures"), ge=1, le=MAX_ROUNDS)
    # failed runs in a row before a `run_failed` hold
    max_run_failures: int = Field(_default("max_run_failures"), ge=1, le=20)
    # the hard ceiling of review and fixer runs in a round
    max_runs_per_round: int = Field(_default("max_runs_per_round"), ge=1, le=100)
    stuck_after: str = _default("stuck_after")
    lenses: str | list[str] = Field(
        _default("lenses"), description='only "all" is built: choosing lenses is refused as not yet supported'
    )
    rules: list[str] = _list("rules")
    auto_ready: bool = _default("auto_ready")
    capture: CaptureConfig = Field(default_factory=CaptureConfig)
    worktree_opts: WorktreeOptions = Field(default_factory=WorktreeOptions)
    merge: MergeConfig = Field(default_factory=MergeConfig)
    delivery: DeliveryConfig = Field(default_factory=DeliveryConfig)
    intake: IntakeConfig = Field(default_factory=IntakeConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    library: LibraryConfig = Field(default_factory=LibraryConfig)
    runner: RunnerConfig = Field(default_factory=RunnerConfig)
    extensions: dict[str, list[str]] = Field(
        default_factory=dict, description="not built yet: any entry is refused as not yet supported"
    )
    tui: TuiConfig = Field(default_factory=TuiConfig)
    # channels and URLs live in the user's config.toml; the repository's [notify] may only narrow
    notify: NotifyConfig = Field(default_factory=NotifyConfig)

    @field_validator("notify", mode="before")
    @classmethod
    def _notify_narrows(cls, value: Any) -> Any:
        problem = repo_table_problem(value)
        if problem:
            raise ValueError(problem)
        return value

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

    @property
    def worktree_setup(self) -> str:
        """`[worktree] setup`: the project's install, run once per checkout (core/worktree_setup.py)."""
        return self.worktree_opts.setup


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
    """TOML's `[worktree]` table and the `worktree` template share a name; split them (config_raw
    owns the split: `hall new` reads a known-valid file without this model)."""
    return config_raw.split_worktree(data)


def _refuse_unsupported(main_checkout: Path, data: dict[str, Any]) -> None:
    """A key Hallmark does not act on yet is refused (config_support.py), never accepted and ignored."""
    from .config_support import unsupported

    found = unsupported(data)
    if found is None:
        return
    key, why = found
    path = config_path(main_checkout)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    line = _line_of(text, tuple(key.split(".")))
    where = f"{path}:{line}" if line else str(path)
    raise HallError(
        "INVALID_CONFIG",
        f"{where}: key '{key}' is not supported yet: {why}. Remove it; Hallmark would ignore it.",
        [f"edit {CONFIG_NAME}", "hall schema config", "hall doctor"],
    )


def load(main_checkout: Path) -> Config:
    data = config_raw.read(main_checkout)
    try:
        config = Config.model_validate(_prepare(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first.get("loc", ()))
        key = ".".join("worktree" if p == "worktree_opts" else str(p) for p in loc) or "(top level)"
        try:
            text = bounded_read.read_text(config_path(main_checkout), bounded_read.CONFIG_LIMIT)
        except (OSError, UnicodeDecodeError):
            text = ""
        line = _line_of(text, loc)
        path = config_path(main_checkout)
        where = f"{path}:{line}" if line else str(path)
        raise HallError(
            "INVALID_CONFIG",
            f"{where}: key '{key}': {first.get('msg', 'invalid')}.",
            [f"edit {CONFIG_NAME}", "hall schema config", "hall doctor"],
        ) from exc
    _refuse_unsupported(main_checkout, data)
    return config
