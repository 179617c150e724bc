"""What the set-up verbs answer (`hall init`, `doctor`, `reindex`, `setup claude|git`; core/setup_repo.py,
core/doctor*.py, core/githooks.py, core/plugin_install.py, core/sandbox_profile.py): typed results
the faces read by attribute.

`to_dict()` gives the JSON reply's keys in the CLI's order, without `next` (tui/cli/setup.py adds
it). Free-form parts stay dicts: Claude Code's own settings block, a journal's bad line, a damaged
item's report and the sandbox probe are other modules' shapes, shown as they make them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .memory.move_results import IdentityWritten
from .results import Result


# -- the signing key (hall init, hall setup git) ---------------------------------------------------
class ResignedNote(Result):
    """A version-1 (unsigned) hallmark found by `hall setup git`: re-signed when the journal proves
    the loop struck it, else left invalid with the reason."""

    sha: str
    item: str | None
    resigned: bool
    reason: str


class SigningSetup(Result):
    """This machine's hallmark key and whom the repository trusts: the key (made now or before),
    whether this repo's local list trusts it, the main checkout's `.hallmark/allowed_signers` (for
    the person to commit to the base) and whether the remote's base already lists the key."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"resigned"})

    principal: str
    public_key: str
    key: str
    key_made: bool
    trusted_here: bool
    allowed_signers: str
    allowed_signers_written: bool
    base_trusts: bool
    trust: str
    resigned: tuple[ResignedNote, ...] | None = None


# -- hall setup git ---------------------------------------------------------------------------------
class HookDir(Result):
    """One hooks directory a checkout uses: Hallmark's pre-push hook there, its state (installed,
    missing, foreign, stale, not_executable, tracked), the hook it chains and what install did."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"chained", "action"})

    dir: str
    checkout: str
    hook: str
    state: str
    ok: bool
    chained: str | None = None
    action: str | None = None


class GitHooksInstalled(Result):
    """`hall setup git`: the hook in every hooks dir (ok is false where the repo tracks its own)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"detail", "signing"})

    ok: bool
    dirs: tuple[HookDir, ...]
    dry_run: bool
    detail: str | None = None
    signing: SigningSetup | None = None


class RestoredHook(Result):
    """A hooks dir Hallmark's hook was taken out of, and the chained hook put back (or null)."""

    dir: str
    restored: str | None


class GitHooksRemoved(Result):
    """`hall setup git --remove`: where Hallmark's hook was taken out."""

    removed: tuple[RestoredHook, ...]
    dry_run: bool


# -- hall doctor ------------------------------------------------------------------------------------
class LostWorktree(Result):
    """An unfinished item whose worktree folder is gone (someone deleted it by hand)."""

    item: str
    worktree: str


class Check(Result):
    """One doctor check: its name, whether it passed, what it found, and (failed) the fix; a check
    may add what it found in detail (each key only where that check reports it)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {
            "fix",
            "optional",
            "available",
            "installed",
            "dirs",
            "repaired",
            "mismatches",
            "missing",
            "bad_lines",
            "damaged",
        }
    )

    check: str
    ok: bool
    detail: str
    fix: str | None = None
    optional: bool | None = None  # a failure that does not fail the doctor
    available: bool | None = None
    installed: bool | None = None
    dirs: tuple[HookDir, ...] | None = None
    repaired: list[str] | None = None
    mismatches: list[str] | None = None
    missing: tuple[LostWorktree, ...] | None = None  # unfinished items whose worktree is gone
    bad_lines: list[dict[str, Any]] | None = None
    damaged: list[dict[str, Any]] | None = None

    @property
    def failed(self) -> bool:
        """Failed and not optional: the doctor is not ok."""
        return not self.ok and not self.optional


class DoctorReport(Result):
    """`hall doctor`: every check; ok when no required check failed."""

    ok: bool
    checks: tuple[Check, ...]

    @property
    def fixes(self) -> list[str]:
        """The fix of each failed required check, in order."""
        return [c.fix for c in self.checks if c.failed and c.fix]


class Reindexed(Result):
    """`hall reindex`: the derived index rebuilt from the journals."""

    events: int
    items: int


# -- hall init --------------------------------------------------------------------------------------
class SetupWarning(Result):
    """Something init found that would make the loop test or treat the wrong files."""

    kind: str
    text: str


class PrePushInstall(Result):
    """The pre-push hook as init left it; init never fails over it (its own `next` names the repair)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"dirs", "detail", "next"})

    ok: bool
    dirs: list[str] | None = None
    detail: str | None = None
    next: list[str] | None = None


class Initialized(Result):
    """`hall init`: the state directory, the config, the CLAUDE.md section, the project identity
    and the pre-push hook. (The CLI prints `config_valid` after `next`, as it always has.)"""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"signing"})

    repo: str
    state_dir: str
    config: str
    config_written: bool
    gates: list[str]
    warnings: tuple[SetupWarning, ...]
    claude_md: str
    initialized: bool
    project_identity: IdentityWritten  # the memory store's project identity file: kept, or proposed
    pre_push: PrePushInstall
    config_valid: bool
    signing: SigningSetup | None = None


# -- hall setup claude ------------------------------------------------------------------------------
class SandboxProfile(Result):
    """`hall setup claude --sandbox`: Hallmark's sandbox block in Claude Code's user settings."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"warning"})

    settings: str
    sandbox: dict[str, Any]  # Claude Code's `sandbox` settings block, as written
    repos: list[str]
    changed: bool
    dry_run: bool
    available: dict[str, Any]
    warning: str | None = None


class StatusLineSet(Result):
    """`hall setup claude --statusline`: Claude Code's statusLine in the user's settings.json. One
    already there is never replaced: `existing` names it and `installed` stays false."""

    settings: str
    command: str  # what Hallmark's status line runs
    installed: bool  # written now (false on a dry run, or when one was there)
    existing: str | None  # the user's own statusLine command, left alone
    dry_run: bool


class PluginInstalled(Result):
    """`hall setup claude`: the plugin release staged, validated and (unless a dry run) made current,
    through `claude plugin` (route claude) or the user's settings (route settings). (The CLI prints
    `sandbox` after `next`, as it always has.)"""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"claude", "would_run", "ran", "would_register", "settings_changed", "sandbox", "statusline"}
    )

    dry_run: bool
    install_root: str
    release: str
    hook: str
    files: list[str]
    previous: str | None
    settings: str
    route: str
    version: str
    claude: str | None = None
    would_run: list[list[str]] | None = None
    ran: list[Any] | None = None
    would_register: bool | None = None
    settings_changed: bool | None = None
    sandbox: SandboxProfile | None = None
    statusline: StatusLineSet | None = None
