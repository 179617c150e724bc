"""Isolation and confinement for headless runs (the seed's "Isolation" and "Confinement").

Isolation keeps a run on its task: the reviewer, intake and the librarian read only user-level
settings (`--setting-sources user`), no MCP servers but ours (`--strict-mcp-config`), no CLAUDE.md
from the checkout (CLAUDE_CODE_DISABLE_CLAUDE_MDS=1, set by the runner) and no hooks
(`disableAllHooks` in the settings). Confinement keeps every run off the host: the `--settings`
file limits file reads to the run's directories, denies credential paths and the web tools, and
turns on Claude Code's sandbox for commands, with no unsandboxed retry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ISOLATED_ROLES = frozenset({"review", "intake", "librarian"})
EDITING_ROLES = frozenset({"fix", "dev"})

DENY_READ = (
    "~/.ssh/**",
    "~/.aws/**",
    "~/.gnupg/**",
    "~/.config/gh/**",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.kube/**",
    "~/.npmrc",
    "~/.pypirc",
    "**/.env",
    "**/.env.*",
)
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
REMOVE_ENV = (
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "NPM_TOKEN",
    "PYPI_TOKEN",
    "TWINE_PASSWORD",
    "DOCKER_PASSWORD",
)


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
    git_dir: Path | None = None,
    sandbox: str = "auto",
) -> dict[str, Any]:
    """The `--settings` JSON for one run.

    File tools read only the run's directories; commands run in Claude Code's sandbox and write
    only the working directory (editing roles), the run's directory, the temp dir and the git
    directory (never its hooks or config); no network; no unsandboxed retry. `sandbox` is
    `[runner] sandbox`: `require` adds `failIfUnavailable` (a run on a machine where the sandbox
    cannot start refuses to run instead of running unsandboxed), `off` leaves it out.
    """
    read_roots = [str(cwd), str(run_dir)]
    allow = [f"Read({absolute_rule(root)}/**)" for root in read_roots] + ["Glob", "Grep"]
    deny = ["WebFetch", "WebSearch"] + [f"Read({p})" for p in DENY_READ] + [f"Bash({c}:*)" for c in DENY_COMMANDS]
    deny_write: list[str] = []
    if role not in EDITING_ROLES:
        deny += ["Edit", "Write", "MultiEdit", "NotebookEdit"]
        deny_write.append(str(cwd))
    allow_write = [str(run_dir), *(str(p) for p in write_dirs)]
    if git_dir is not None:
        deny_write += [str(git_dir / "hooks"), str(git_dir / "config")]
    box: dict[str, Any] = {
        "enabled": sandbox != "off",
        "autoAllowBashIfSandboxed": True,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": [], "allowUnixSockets": [], "allowLocalBinding": False},
        "filesystem": {"allowWrite": allow_write, "denyWrite": deny_write, "denyRead": list(DENY_READ)},
    }
    if sandbox == "require":
        box["failIfUnavailable"] = True
    return {
        "disableAllHooks": bool(isolated),
        "permissions": {
            "allow": allow,
            "deny": deny,
            "defaultMode": "acceptEdits" if role in EDITING_ROLES else "default",
            "disableBypassPermissionsMode": "disable",
        },
        "sandbox": box,
        "env": {name: "" for name in REMOVE_ENV},
    }
