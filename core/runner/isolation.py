"""Isolation and confinement for headless runs (the seed's "Isolation" and "Confinement").

Isolation keeps a run on its task: the reviewer, intake and the librarian read only user-level
settings (`--setting-sources user`), no MCP servers but ours (`--strict-mcp-config`), no CLAUDE.md
from the checkout (CLAUDE_CODE_DISABLE_CLAUDE_MDS=1, set by the runner) and no hooks
(`disableAllHooks` in the settings). Confinement keeps every run off the host: the `--settings`
file carries the sandbox wall (core/sandbox_wall.py, the one owner, shared with interactive
sessions): the file tools read only the item's checkout and the run's folder and write only the
item's worktree (editing roles), the commands run in Claude Code's sandbox with the same walls, no
unsandboxed retry, no credential variable, and the web tools are denied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hallmark.core.paths import RepoPaths
from hallmark.core.sandbox_wall import CREDENTIAL_ENV, Scope, block, file_rules, rule_path

ISOLATED_ROLES = frozenset({"review", "intake", "librarian"})
EDITING_ROLES = frozenset({"fix", "dev"})

# what no headless run may do: approve, release or drop items, publish, or touch the hallmark
DENY_COMMANDS = (
    "hall verdict",
    "hall ready",
    "hall retry",
    "hall drop",
    "hall pull-back",
    "git push",
    "git notes",
    "git update-ref",
    "gh",
)
REMOVE_ENV = CREDENTIAL_ENV  # one list: what the sandbox denies is what the runner removes


def isolation_args(role: str) -> list[str]:
    """Command-line flags every run gets; isolated roles also drop project settings."""
    args = ["--strict-mcp-config"]
    if role in ISOLATED_ROLES:
        args = ["--setting-sources", "user", *args]
    return args


def absolute_rule(path: Path | str) -> str:
    """A permission-rule path that means this absolute path.

    In a `--settings` file a rule path starting with one `/` is relative to that file's folder;
    an absolute path needs `//` (Claude Code's permissions docs: "Use //Users/alice/file")."""
    text = str(path)
    return "/" + text if text.startswith("/") and not text.startswith("//") else text


def confinement_settings(
    role: str,
    cwd: Path,
    run_dir: Path,
    write_dirs: list[Path],
    *,
    isolated: bool,
    paths: RepoPaths | None = None,
    worktree: Path | None = None,
    channel: Path | None = None,
    sandbox: str = "auto",
    allowed_domains: list[str] | None = None,
) -> dict[str, Any]:
    """The `--settings` JSON for one run.

    `sandbox` is `[runner] sandbox`: `require` adds `failIfUnavailable` (a run on a machine where
    the sandbox cannot start refuses to run instead of running unsandboxed), `off` turns the
    sandbox off (the permission rules stay). Without `paths` (no repository: a bare test) the wall
    has no git directory to confine and keeps to the working directory."""
    editing = role in EDITING_ROLES
    if paths is None:
        paths = RepoPaths(cwd, cwd / ".git", cwd / ".git", cwd)
    scope = Scope(
        paths=paths,
        cwd=cwd,
        worktree=worktree if worktree is not None else (cwd if editing else None),
        editing=editing,
        channel=channel,
        allowed_domains=list(allowed_domains or []),
        fail_if_unavailable=sandbox == "require",
        extra_write=list(write_dirs),
        read_roots=[rule_path(run_dir)],
    )
    rules = file_rules(scope, read_roots=[run_dir])
    box = block(scope)
    box["enabled"] = sandbox != "off"
    return {
        "disableAllHooks": bool(isolated),
        "permissions": {
            "allow": rules["allow"],
            "deny": ["WebFetch", "WebSearch", *rules["deny"], *(f"Bash({c}:*)" for c in DENY_COMMANDS)],
            "defaultMode": "acceptEdits" if editing else "default",
            "disableBypassPermissionsMode": "disable",
        },
        "sandbox": box,
        "env": {name: "" for name in REMOVE_ENV},
    }
