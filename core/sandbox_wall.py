"""The sandbox wall's one owner: what an agent process may write, read and reach.

Every agent process Hallmark launches (`hall new --open`, `hall takeover --run`, every headless run)
gets its Claude Code sandbox block and its file-tool permission rules from here, and so does the
profile `hall setup claude --sandbox` writes for plain sessions. The block uses Claude Code's
documented settings keys only (`sandbox.enabled`, `failIfUnavailable`, `allowUnsandboxedCommands`,
`autoAllowBashIfSandboxed`, `filesystem.allowWrite/denyWrite/denyRead`, `network.*`,
`credentials.envVars`):

- writes: the item's worktree (editing roles), its git directory's own entries (objects, branch
  refs and reflogs, its worktree admin dir), the agent-verb channel's spool, and Claude Code's
  own temp dir; never the state dir, `refs/notes/`, `refs/replace/`, packed-refs, hooks, git's
  config, the base branch, the main checkout, other worktrees, the user data dir, `~/.gitconfig`,
  Claude Code's settings or `hall` itself;
- reads: never the signing keys (`<data dir>/keys`) or a credential store;
- environment: no credential variable (CREDENTIAL_ENV, the one list: the runner removes the same
  names from every process it starts);
- network: only the hosts `[runner] allowed_domains` names; no unix socket, no local binding;
- no way out: `allowUnsandboxedCommands: false`, and no `excludedCommands`: `hall` runs inside the
  sandbox too, and the agent's verbs that write Hallmark's state go through the agent-verb channel
  (core/agent_channel.py), which accepts those verbs only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .paths import RepoPaths, user_data_dir

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
# the one list: denied inside every sandbox and removed from every process the runner starts
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
# git's own files a commit never needs to write; the runtime puts /dev/null where a denied path does
# not exist, which git would misread, so `prepare` makes the ones git expects to find (empty), and
# the ones whose mere presence means something to git are denied only when they are there.
GIT_DENIED = ("hallmark", "refs/notes", "refs/replace", "packed-refs", "hooks", "config", "info")
GIT_DENIED_IF_PRESENT = ("modules", "shallow", "config.worktree", "FETCH_HEAD")
WORKTREE_DENIED = ("commondir", "gitdir", "config.worktree")  # in a worktree's admin dir: where it points
GIT_WRITABLE = ("objects", "refs/heads", "logs/refs/heads")  # a commit's objects, branch refs, reflogs
HOME_DENIED_WRITE = ("~/.gitconfig", "~/.config/git", "~/.bashrc", "~/.profile", "~/.zshrc")
# a reader commits nothing: its commands read no home folder (other repositories, git's user
# configuration) but the repository's own checkouts, which `allowRead` gives back
READER_DENIED_READ = ("~",)
PACKED_REFS_HEADER = "# pack-refs with: peeled fully-peeled sorted \n"
KEYS = "keys"  # under the user data dir: the signing key; no sandbox reads it


def rule_path(path: str | os.PathLike[str]) -> str:
    """An absolute path in Claude Code's settings notation (`//` from the root; `/x` is relative to
    the settings file's directory)."""
    return "//" + os.path.realpath(path).lstrip("/")


def key_dir() -> Path:
    """Where the signing key lives (the user data dir's `keys`): denied to every sandbox."""
    return user_data_dir() / KEYS


@dataclass
class Scope:
    """One agent process: its repository, the item's worktree (None: none yet), its working
    directory, whether it edits, and the channel spool it may write."""

    paths: RepoPaths
    cwd: Path
    worktree: Path | None = None
    editing: bool = True
    channel: Path | None = None
    allowed_domains: list[str] = field(default_factory=list)
    fail_if_unavailable: bool = False
    extra_write: list[Path] = field(default_factory=list)
    read_roots: list[str] = field(default_factory=list)  # a reader's other folders (rule paths): its run's


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def admin_dir(worktree: Path) -> Path | None:
    """A linked worktree's admin dir in the common dir (`.git/worktrees/<name>`), from its gitfile."""
    try:
        text = (worktree / ".git").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    found = Path(text.split(":", 1)[1].strip())
    return Path(os.path.realpath(found if found.is_absolute() else worktree / found))


def _branch(worktree: Path | None) -> str | None:
    if worktree is None:
        return None
    ref = _git(["symbolic-ref", "-q", "HEAD"], worktree)
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def _checkouts(paths: RepoPaths) -> list[str]:
    from .item_lookup import checkouts

    return _unique(os.path.realpath(p) for p in checkouts(paths))


def _base_branch(paths: RepoPaths) -> str:
    from .config_raw import load_raw

    try:
        value = load_raw(paths.main_checkout).get("base")
    except Exception:  # noqa: BLE001 - an unreadable config: the usual name
        value = None
    return value if isinstance(value, str) and value else "main"


def _loose_branches(common: str) -> list[str]:
    """Every branch with a loose ref file, as a name under refs/heads."""
    root = os.path.join(common, "refs", "heads")
    found = []
    for folder, _dirs, files in os.walk(root):
        found += [os.path.relpath(os.path.join(folder, n), root) for n in files if not n.endswith(".lock")]
    return found


def git_rules(paths: RepoPaths, worktree: Path | None) -> tuple[list[str], list[str]]:
    """(allowWrite, denyWrite) in the git directory: a commit in `worktree` goes through (objects,
    its branch ref, reflogs, its admin dir); every other branch (the base first), every other
    worktree's admin dir, and git's record and configuration stay as they are. With no worktree
    (the user-settings profile for plain sessions) every worktree's admin dir is writable."""
    common = os.path.realpath(paths.common_dir)
    allow = [rule_path(os.path.join(common, leaf)) for leaf in GIT_WRITABLE]
    deny = [rule_path(os.path.join(common, name)) for name in GIT_DENIED]
    deny += [
        rule_path(os.path.join(common, name))
        for name in GIT_DENIED_IF_PRESENT
        if os.path.lexists(os.path.join(common, name))
    ]
    own_admin = admin_dir(worktree) if worktree is not None else None
    own_branch = _branch(worktree)
    try:
        admins = sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        admins = []
    for name in admins:
        folder = os.path.join(common, "worktrees", name)
        if worktree is None or (own_admin is not None and os.path.realpath(folder) == str(own_admin)):
            allow.append(rule_path(folder))
            deny += [
                rule_path(os.path.join(folder, leaf))
                for leaf in WORKTREE_DENIED
                if os.path.lexists(os.path.join(folder, leaf))
            ]
        else:
            deny.append(rule_path(folder))
    # a branch ref is written by a rename beside it, so refs/heads stays writable and every other
    # branch is held in place (a read-only file cannot be renamed over); `prepare` makes them loose
    for name in _loose_branches(common):
        if name != own_branch:
            deny.append(rule_path(os.path.join(common, "refs", "heads", name)))
            log = os.path.join(common, "logs", "refs", "heads", name)
            if os.path.lexists(log):
                deny.append(rule_path(log))
    if worktree is None or own_branch is None:  # the base at least, even with no branch of our own
        deny.append(rule_path(os.path.join(common, "refs", "heads", _base_branch(paths))))
    return _unique(allow), _unique(deny)


def checkout_rules(paths: RepoPaths, worktree: Path | None) -> list[str]:
    """denyWrite for the checkouts: every other worktree (only the item's own is the agent's; the
    main checkout is not writable unless it is the session's own directory), Hallmark's config,
    and Claude Code's settings in each."""
    from .gates.git_hooks import hooks_dir

    main = os.path.realpath(paths.main_checkout)
    own = os.path.realpath(worktree) if worktree is not None else None
    deny = [rule_path(os.path.join(main, ".hallmark.toml")), rule_path(os.path.join(main, ".claude"))]
    common = os.path.realpath(paths.common_dir)
    for checkout in _checkouts(paths):
        # another worktree is held whole; the main checkout is not (it holds the git dir, whose own
        # entries a commit writes, and a deny would win over them): nothing but its cwd makes it writable
        if own is not None and checkout not in (own, main) and not _contains(checkout, own, common):
            deny.append(rule_path(checkout))
        deny += [
            rule_path(os.path.join(checkout, ".claude", name)) for name in ("settings.json", "settings.local.json")
        ]
        if checkout != main:  # a worktree's .git file says where its git directory is
            deny.append(rule_path(os.path.join(checkout, ".git")))
    hooks = hooks_dir(main, {}, common)
    if hooks and not os.path.realpath(hooks).startswith(common + os.sep):
        deny.append(rule_path(hooks))
    return _unique(deny)


def _contains(folder: str, *inside: str) -> bool:
    return any(path == folder or path.startswith(folder + os.sep) for path in inside)


def own_paths() -> list[str]:
    """Claude Code's settings and plugins (they load Hallmark's hooks), Hallmark's own programs and
    data dir, and git's user configuration."""
    from .plugin_install import claude_config_dir

    config = claude_config_dir()
    found = [rule_path(config / name) for name in ("settings.json", "settings.local.json", "hallmark", "plugins")]
    bin_dir = Path(sys.executable).parent
    found += [rule_path(bin_dir / name) for name in ("hall", "hall-hook") if (bin_dir / name).exists()]
    found.append(rule_path(user_data_dir()))
    found += [rule_path(Path(p).expanduser()) for p in HOME_DENIED_WRITE]
    return found


def deny_read() -> list[str]:
    """The credential stores and the signing keys."""
    return [*CREDENTIAL_PATHS, rule_path(key_dir())]


def prepare(paths: RepoPaths) -> None:
    """Make the denied places git expects to read exist (empty), so the runtime's /dev/null stand-in
    for a missing path never meets git: refs/notes and refs/replace as directories, info/, and a
    packed-refs with only its header; and give the base a loose ref, so it can be held in place."""
    common = Path(paths.common_dir)
    for folder in ("refs/notes", "refs/replace", "info"):
        (common / folder).mkdir(parents=True, exist_ok=True)
    packed = common / "packed-refs"
    if not packed.exists():
        packed.write_text(PACKED_REFS_HEADER, encoding="utf-8")
    base = _base_branch(paths)
    loose = common / "refs" / "heads" / base
    if not loose.exists():
        sha = _git(["rev-parse", "-q", "--verify", f"refs/heads/{base}"], Path(paths.main_checkout))
        if sha:
            _git(["update-ref", f"refs/heads/{base}", sha], Path(paths.main_checkout))


def block(scope: Scope) -> dict[str, Any]:
    """The `sandbox` settings block for one agent process."""
    allow, deny = git_rules(scope.paths, scope.worktree)
    if not scope.editing:  # a reader writes nothing of the repository's
        allow = []
    elif scope.worktree is not None:
        allow.insert(0, rule_path(scope.worktree))
    if scope.channel is not None:
        allow.append(rule_path(scope.channel))
    common = os.path.realpath(scope.paths.common_dir)
    for extra in scope.extra_write:  # never the git dir whole: its own entries are above
        real = os.path.realpath(extra)
        if real != common and not common.startswith(real + os.sep) and not real.startswith(common + os.sep):
            allow.append(rule_path(real))
    deny += checkout_rules(scope.paths, scope.worktree)
    if not scope.editing:
        deny.append(rule_path(scope.cwd))
        if scope.worktree is not None:
            deny.append(rule_path(scope.worktree))
    deny += own_paths()
    box: dict[str, Any] = {
        "enabled": True,
        "autoAllowBashIfSandboxed": True,
        "allowUnsandboxedCommands": False,
        "network": {
            "allowedDomains": list(scope.allowed_domains),
            "allowUnixSockets": [],
            "allowLocalBinding": False,
        },
        "filesystem": {
            "allowWrite": _unique(allow),
            "denyWrite": _unique(deny),
            "denyRead": deny_read() + ([] if scope.editing else list(READER_DENIED_READ)),
        },
        "credentials": {"envVars": [{"name": name, "mode": "deny"} for name in CREDENTIAL_ENV]},
    }
    if not scope.editing:  # a reader reads the repository, not the rest of the person's home
        box["filesystem"]["allowRead"] = _unique([*(rule_path(p) for p in _checkouts(scope.paths)), *scope.read_roots])
    if scope.fail_if_unavailable:
        box["failIfUnavailable"] = True
    return box


def file_rules(scope: Scope, read_roots: Iterable[Path] = ()) -> dict[str, list[str]]:
    """Permission rules for the file tools, confined like the commands: Read only inside the
    repository's item checkout (and `read_roots`, the run's own folder), Edit and Write only in
    the item's worktree (none at all for a role that does not edit); credentials and keys never."""
    roots = _unique(rule_path(p) for p in [scope.worktree or scope.cwd, scope.cwd, *read_roots])
    allow = [f"Read({root}/**)" for root in roots]
    deny = [rule for p in CREDENTIAL_PATHS for rule in (f"Read({p})", f"Read({p}/**)")]
    deny.append(f"Read({rule_path(key_dir())}/**)")
    deny += ["Read(**/.env)", "Read(**/.env.*)"]
    if scope.editing and scope.worktree is not None:
        allow += [f"{tool}({rule_path(scope.worktree)}/**)" for tool in ("Edit", "Write", "MultiEdit", "NotebookEdit")]
    else:
        deny += ["Edit", "Write", "MultiEdit", "NotebookEdit"]
    return {"allow": allow, "deny": deny}


BARE_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep"})


def confine_tools(tools: Iterable[str]) -> list[str]:
    """A run's `--allowedTools` without the bare file tools: a bare `Read` or `Write` would allow
    every path, so the file tools get only the scoped rules `file_rules` writes."""
    return [tool for tool in tools if tool not in BARE_FILE_TOOLS]
