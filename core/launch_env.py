"""The environment every process Hallmark launches for an item gets (runner, `--open`, take-over).

Memory tools key their store by project name; the name must be the same in every worktree of one
repository, so it comes from the committed `.agentmemory-project` file, else the origin URL, else the
main checkout's directory name. Stdlib only and no third-party imports: the runner calls this often.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

PROJECT_FILE = ".agentmemory-project"

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@github.com:owner/repo.git


def _main_checkout(repo: Any) -> Path:
    """Accept a core Repo, a RepoPaths or a path (the main checkout)."""
    if hasattr(repo, "paths"):
        return Path(repo.paths.main_checkout)
    if hasattr(repo, "main_checkout"):
        return Path(repo.main_checkout)
    return Path(repo)


def read_project_file(root: Path) -> str | None:
    """The project name in `.agentmemory-project`: plain text (first meaningful line) or JSON {"name": …}."""
    try:
        text = (root / PROJECT_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in ("name", "project", "project_name"):
                value = data.get(key)
                if isinstance(value, str) and value.strip():
                    return value.strip()
            return None
    for line in stripped.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return None


def normalise_remote(url: str) -> str | None:
    """`git@github.com:o/r.git`, `https://u@github.com/o/r`, `ssh://git@github.com:22/o/r.git` -> `github.com/o/r`.

    A local path remote gives its last component (without `.git`).
    """
    url = url.strip()
    if not url:
        return None
    host = ""
    path = ""
    match = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://(.*)$", url)
    if match and not url.startswith("file://"):
        rest = match.group(1)
        netloc, _, path = rest.partition("/")
        host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    elif not url.startswith(("/", ".", "file://")) and (scp := _SCP_LIKE.match(url)):
        host, path = scp.group(1), scp.group(2)
    else:
        local = url.removeprefix("file://").rstrip("/")
        name = local.rsplit("/", 1)[-1].removesuffix(".git")
        return name or None
    path = path.strip("/").removesuffix(".git").strip("/")
    if not host:
        return path or None
    return f"{host.lower()}/{path}" if path else host.lower()


def origin_url(root: Path) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "config", "--get", "remote.origin.url"], cwd=str(root), capture_output=True, text=True, check=False
        )
    except (FileNotFoundError, OSError):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def _memory_identity(repo: Any) -> str | None:
    """The memory store's own identity when it agrees (so memory tools and the store see one
    project); None when it refuses (e.g. an uncommitted identity file)."""
    paths = getattr(repo, "paths", None) or (repo if hasattr(repo, "common_dir") else None)
    if paths is None:
        return None
    from .memory import identity

    try:
        return identity.current(paths).value
    except Exception:  # noqa: BLE001 - a refused or unreadable identity: fall back to our own chain
        return None


def project_name(repo: Any) -> str:
    """The project identity shared by every worktree of this repository."""
    found = _memory_identity(repo)
    if found:
        return found
    root = _main_checkout(repo)
    name = read_project_file(root)
    if name:
        return name
    url = origin_url(root)
    if url:
        normalised = normalise_remote(url)
        if normalised:
            return normalised
    return root.name


def launch_env(repo: Any, item_id: str | None, actor: str | None = None) -> dict[str, str]:
    """Variables to add to the environment of a process launched for `item_id` (None: repo-level)."""
    env = {"AGENTMEMORY_PROJECT_NAME": project_name(repo)}
    if item_id:
        env["HALL_ITEM"] = item_id
    if actor:
        env["HALL_ACTOR"] = actor
    return env
