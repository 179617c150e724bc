"""The sandbox wall: a Claude Code sandbox profile for interactive sessions in Hallmark repos.

The hook gate reads commands and git's pre-push hook reads pushes; neither stops an agent that holds
the person's keys and finds a way neither sees. Claude Code's sandbox is enforced by the operating
system (bubblewrap on Linux, Seatbelt on macOS) for every Bash command and its children. Hallmark's
profile uses only documented settings keys (`sandbox.enabled`, `allowUnsandboxedCommands`,
`failIfUnavailable`, `excludedCommands`, `filesystem.allowWrite/denyWrite/denyRead`,
`credentials.envVars`):

- writes: the session's directory (Claude Code's default) and the git objects and refs a commit
  needs, never Hallmark's state, `refs/notes/`, `refs/replace/`, packed-refs, hooks, git's config,
  the main checkout's `.hallmark.toml` and `.claude/`, Claude Code's settings, or `hall-hook`;
- reads: no credential store (`~/.ssh`, `~/.config/gh`, `~/.git-credentials`, `~/.netrc`, …);
- environment: no credential variables (`GH_TOKEN`, `NPM_TOKEN`, `TWINE_PASSWORD`, …);
- no way out: `allowUnsandboxedCommands: false`, and `failIfUnavailable` where the sandbox runs;
- `hall` itself runs outside it (`excludedCommands`): the agent's verbs write the journal, and the
  CLI and the hook gate refuse it a person's decisions.

So only the daemon's shipper, outside any sandbox, holds what a push needs. `hall setup claude
--sandbox` writes the profile into the user's settings for every registered repo (`--dry-run`
shows it); `hall new --open` passes it to the session it starts (`--settings`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import atomic
from .errors import HallError
from .paths import RepoPaths, discover, user_data_dir
from .setup_results import SandboxProfile

CREDENTIAL_PATHS = (
    "~/.ssh",
    "~/.gnupg",
    "~/.config/gh",
    "~/.config/hub",
    "~/.config/glab-cli",
    "~/.config/tea",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.netrc",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.config/pip/pip.conf",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.aws",
    "~/.config/gcloud",
    "~/.azure",
    "~/.kube",
    "~/.docker/config.json",
    "~/.terraform.d",
    "~/.config/op",
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.config/sops",
)
CREDENTIAL_ENV = (
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "GITLAB_TOKEN",
    "GL_TOKEN",
    "GITLAB_PRIVATE_TOKEN",
    "CI_JOB_TOKEN",
    "GITEA_TOKEN",
    "BITBUCKET_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "YARN_NPM_AUTH_TOKEN",
    "TWINE_PASSWORD",
    "TWINE_USERNAME",
    "PYPI_TOKEN",
    "PYPI_API_TOKEN",
    "UV_PUBLISH_TOKEN",
    "UV_PUBLISH_PASSWORD",
    "POETRY_PYPI_TOKEN_PYPI",
    "FLIT_PASSWORD",
    "HATCH_INDEX_AUTH",
    "CARGO_REGISTRY_TOKEN",
    "GEM_HOST_API_KEY",
    "NUGET_API_KEY",
    "VSCE_PAT",
    "OVSX_PAT",
    "DOCKER_PASSWORD",
    "DOCKER_AUTH_CONFIG",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_DEVOPS_EXT_PAT",
    "SSH_AUTH_SOCK",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
)
# inside git's directory: what a commit in a worktree needs is written; these never are. The runtime
# puts /dev/null where a denied path does not exist, which git would misread, so `prepare` makes the
# ones git expects to find (empty), and the ones whose mere presence means something to git are
# denied only when they are there.
GIT_DENIED = ("hallmark", "refs/notes", "refs/replace", "packed-refs", "hooks", "config", "info")
GIT_DENIED_IF_PRESENT = ("modules", "shallow", "config.worktree")
WORKTREE_DENIED = ("commondir", "gitdir", "config.worktree")  # in each worktree's git dir: where it points
PACKED_REFS_HEADER = "# pack-refs with: peeled fully-peeled sorted \n"
EXCLUDED_COMMANDS = ("hall",)
STATE_FILE = "sandbox-profile.json"  # in the user data dir: what Hallmark wrote into the user settings


def _abs(path: str | os.PathLike[str]) -> str:
    """An absolute path in Claude Code's settings notation (`//` from the root; `/x` is relative to
    the settings file's directory)."""
    return "//" + os.path.realpath(path).lstrip("/")


def repo_rules(paths: RepoPaths) -> dict[str, list[str]]:
    """allowWrite and denyWrite for sessions in one repository's checkouts."""
    from .gates.git_hooks import hooks_dir

    common = os.path.realpath(paths.common_dir)
    main = os.path.realpath(paths.main_checkout)
    deny = [_abs(os.path.join(common, name)) for name in GIT_DENIED]
    deny += [
        _abs(os.path.join(common, name))
        for name in GIT_DENIED_IF_PRESENT
        if os.path.lexists(os.path.join(common, name))
    ]
    try:
        worktree_dirs = sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        worktree_dirs = []
    for name in worktree_dirs:
        deny += [
            _abs(os.path.join(common, "worktrees", name, leaf))
            for leaf in WORKTREE_DENIED
            if os.path.lexists(os.path.join(common, "worktrees", name, leaf))
        ]
    deny += [_abs(os.path.join(main, ".hallmark.toml")), _abs(os.path.join(main, ".claude"))]
    for checkout in _checkouts(paths):
        deny += [_abs(os.path.join(checkout, ".claude", name)) for name in ("settings.json", "settings.local.json")]
        if checkout != main:  # a worktree's .git file says where its git directory is
            deny.append(_abs(os.path.join(checkout, ".git")))
    hooks = hooks_dir(main, {}, common)
    if hooks and not os.path.realpath(hooks).startswith(common + os.sep):
        deny.append(_abs(hooks))
    return {"allowWrite": [_abs(common)], "denyWrite": _unique(deny)}


def prepare(paths: RepoPaths) -> None:
    """Make the denied places git expects to read exist (empty), so the runtime's /dev/null stand-in
    for a missing path never meets git: refs/notes and refs/replace as directories, info/, and a
    packed-refs with only its header."""
    common = Path(paths.common_dir)
    for folder in ("refs/notes", "refs/replace", "info"):
        (common / folder).mkdir(parents=True, exist_ok=True)
    packed = common / "packed-refs"
    if not packed.exists():
        packed.write_text(PACKED_REFS_HEADER, encoding="utf-8")


def _checkouts(paths: RepoPaths) -> list[str]:
    from .item_lookup import checkouts

    return _unique([os.path.realpath(p) for p in checkouts(paths)])


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def own_paths() -> list[str]:
    """Claude Code's settings and plugins (they load Hallmark's hooks) and Hallmark's own programs."""
    from .plugin_install import claude_config_dir

    config = claude_config_dir()
    found = [_abs(config / name) for name in ("settings.json", "settings.local.json", "hallmark", "plugins")]
    bin_dir = Path(sys.executable).parent
    found += [_abs(bin_dir / name) for name in ("hall", "hall-hook") if (bin_dir / name).exists()]
    return found


def profile(repos: list[RepoPaths], *, fail_if_unavailable: bool = True) -> dict[str, Any]:
    """The `sandbox` settings block for sessions in these repositories."""
    allow: list[str] = []
    deny: list[str] = []
    for paths in repos:
        rules = repo_rules(paths)
        allow += rules["allowWrite"]
        deny += rules["denyWrite"]
    deny += own_paths()
    return {
        "enabled": True,
        "allowUnsandboxedCommands": False,
        "failIfUnavailable": fail_if_unavailable,
        "excludedCommands": list(EXCLUDED_COMMANDS),
        "filesystem": {"allowWrite": _unique(allow), "denyWrite": _unique(deny), "denyRead": list(CREDENTIAL_PATHS)},
        "credentials": {"envVars": [{"name": name, "mode": "deny"} for name in CREDENTIAL_ENV]},
    }


# -- can it run here? ------------------------------------------------------------------------------


def availability() -> dict[str, Any]:
    """Whether Claude Code's sandbox can run on this machine, and what is missing when it cannot."""
    if sys.platform == "darwin":
        found = shutil.which("sandbox-exec")
        return {
            "ok": bool(found),
            "platform": "macos",
            "missing": [] if found else ["sandbox-exec"],
            "detail": "Seatbelt (sandbox-exec) is available" if found else "sandbox-exec is missing",
        }
    if not sys.platform.startswith("linux"):
        return {
            "ok": False,
            "platform": sys.platform,
            "missing": [],
            "detail": "Claude Code's sandbox runs on macOS, Linux and WSL2 only",
        }
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        names = {"bwrap": "bubblewrap", "socat": "socat"}
        return {
            "ok": False,
            "platform": "linux",
            "missing": [names[m] for m in missing],
            "detail": f"{' and '.join(names[m] for m in missing)} not installed",
            "fix": f"apt-get install {' '.join(names[m] for m in missing)} (or your distribution's packages)",
        }
    try:
        proc = subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-user", "--unshare-net", "--", "true"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return {"ok": False, "platform": "linux", "missing": [], "detail": f"bubblewrap cannot start: {exc}"}
    if proc.returncode != 0:
        return {
            "ok": False,
            "platform": "linux",
            "missing": [],
            "detail": "bubblewrap cannot make a sandbox here (no unprivileged user namespaces?): "
            + (proc.stderr.strip()[-200:] or f"exit {proc.returncode}"),
        }
    return {
        "ok": True,
        "platform": "linux",
        "missing": [],
        "detail": "bubblewrap and socat are installed and bubblewrap can make a sandbox here",
    }


# -- writing it ------------------------------------------------------------------------------------


def _repos(start: Path | None) -> list[RepoPaths]:
    from .setup_repo import registered_repos

    found: list[RepoPaths] = []
    roots = ([start] if start else []) + list(registered_repos())
    for root in roots:
        paths = discover(root, required=False) if Path(root).is_dir() else None
        if paths is not None and paths.initialized and paths not in found:
            found.append(paths)
    return found


def _dict_at(block: dict[str, Any], key: str) -> dict[str, Any]:
    value = block.get(key)
    return value if isinstance(value, dict) else {}


def _merge(current: dict[str, Any], ours: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """The person's sandbox block with Hallmark's entries replaced (theirs kept): lists are unions."""
    merged = dict(current)
    for key, value in ours.items():
        if isinstance(value, dict):
            merged[key] = _merge(_dict_at(current, key), value, _dict_at(previous, key))
        elif isinstance(value, list):
            before = got if isinstance(got := previous.get(key), list) else []
            kept = [v for v in (current.get(key) or []) if v not in before and v not in value]
            merged[key] = kept + value
        else:
            merged[key] = value
    return merged


def install(start: Path | None = None, *, dry_run: bool = False) -> SandboxProfile:
    """`hall setup claude --sandbox`: the profile in the user's Claude Code settings, for every
    registered Hallmark repo (and the one here)."""
    from .plugin_install import settings_path

    repos = _repos(start)
    available = availability()
    block = profile(repos, fail_if_unavailable=bool(available["ok"]))
    path = settings_path()
    try:
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError) as exc:
        raise HallError(
            "COMMAND_FAILED",
            f"{path} is not valid JSON ({exc}); the sandbox profile was not written.",
            [f"fix {path}", "hall setup claude --sandbox --dry-run"],
        ) from exc
    if not isinstance(current, dict):
        raise HallError("COMMAND_FAILED", f"{path} does not hold a JSON object.", [f"fix {path}"])
    state = user_data_dir() / STATE_FILE
    previous = (atomic.read_json(state, {}) or {}).get("sandbox") or {}
    merged = dict(current)
    merged["sandbox"] = _merge(_dict_at(current, "sandbox"), block, previous)
    changed = merged != current
    if not dry_run:
        for paths in repos:
            prepare(paths)
    if changed and not dry_run:
        atomic.write_text(path, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
        atomic.write_json(state, {"sandbox": block, "settings": str(path)})
    warning = None
    if not available["ok"]:
        warning = (
            f"the sandbox cannot run here ({available['detail']}): Claude Code would run commands "
            "unsandboxed; failIfUnavailable is left off so sessions still work"
        )
    return SandboxProfile(
        settings=str(path),
        sandbox=block,
        repos=[str(p.main_checkout) for p in repos],
        changed=changed,
        dry_run=dry_run,
        available=available,
        warning=warning,
    )


def session_file(paths: RepoPaths) -> Path:
    """The profile for one repository's sessions, for `claude --settings` (in the state dir, which no
    agent can write)."""
    path = paths.state_dir / "sandbox" / "claude-settings.json"
    prepare(paths)
    atomic.write_json(path, {"sandbox": profile([paths])})
    return path


def session_args(paths: RepoPaths) -> tuple[list[str], dict[str, Any]]:
    """(`--settings <file>` for `hall new --open`, what was decided): empty where it cannot run."""
    available = availability()
    if not available["ok"]:
        return [], {"enabled": False, "detail": available["detail"]}
    path = session_file(paths)
    return ["--settings", str(path)], {"enabled": True, "settings": str(path)}


def status() -> dict[str, Any]:
    """For `hall doctor`: can the sandbox run here, and is Hallmark's profile in the user's settings?"""
    from .plugin_install import settings_path

    available = availability()
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    sandbox = data.get("sandbox") if isinstance(data, dict) else None
    installed = (
        isinstance(sandbox, dict)
        and sandbox.get("enabled") is True
        and "hall" in (sandbox.get("excludedCommands") or [])
    )
    return {"available": available, "installed": installed}
