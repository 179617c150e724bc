"""The project identity that scopes every memory: `.agentmemory-project`, committed at the repo root.

A directory name is not an identity (unrelated repos share basenames, worktrees differ), so the
scope is a committed value shared by every clone and worktree, and by AgentMemory users. The
value is the normalised origin URL (github.com/owner/repo) or local/<uuid>. A working-tree value
that differs from HEAD is refused: a branch must not be able to read another project's memory.
Stdlib only (the hook path reads it); one `git show` subprocess to read HEAD's value.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths

if TYPE_CHECKING:
    from .move_results import IdentityWritten

FILE_NAME = ".agentmemory-project"
GRAMMAR = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{1,127}")
LOCAL_FILE = "identity.local"


@dataclass(frozen=True)
class Identity:
    value: str
    source: str  # "file" (committed), "origin" (no file: the normalised origin URL), "local" (no remote)

    def to_dict(self) -> dict[str, str]:
        return {"project": self.value, "source": self.source}


def validate(value: str) -> str:
    text = value.strip()
    if not GRAMMAR.fullmatch(text):
        raise HallError(
            "USAGE",
            f"'{value}' is not a valid project identity: it must match [A-Za-z0-9][A-Za-z0-9._:/-]{{1,127}} "
            "(2-128 characters, no whitespace).",
            [f"edit {FILE_NAME}", "hall library identity"],
        )
    return text


def normalise_origin(url: str) -> str | None:
    """git@github.com:Owner/Repo.git, https://user@github.com/owner/repo, ssh://… -> github.com/owner/repo."""
    text = url.strip()
    if not text:
        return None
    match = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", text)
    if not match:
        match = re.match(r"^(?:[^@/]+@)?(?P<host>[^/:]+):(?P<path>[^/].*)$", text)
    if not match:
        return None
    host = match.group("host").lower()
    path = match.group("path").strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    path = re.sub(r"/+", "/", path)
    value = f"{host}/{path}"
    value = re.sub(r"[^A-Za-z0-9._:/-]", "-", value)
    return value[:128] if GRAMMAR.fullmatch(value[:128]) else None


def origin_url(paths: RepoPaths) -> str | None:
    """The origin remote's URL read from the git config file (no subprocess)."""
    import configparser  # here: SessionStart reads a committed identity and never needs it

    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(paths.common_dir / "config", encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    section = 'remote "origin"'
    if parser.has_section(section) and parser.has_option(section, "url"):
        return parser.get(section, "url")
    return None


_HEAD_CACHE: dict[tuple[str, str], tuple[bool, str | None]] = {}


def _head_sha(paths: RepoPaths) -> str | None:
    """HEAD's commit read from the files (no subprocess), or None when it is not simple to read."""
    try:
        head = (paths.git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref: "):
            return head if re.fullmatch(r"[0-9a-f]{40,64}", head) else None
        ref = head[5:].strip()
        for base in (paths.git_dir, paths.common_dir):
            try:
                return (base / ref).read_text(encoding="utf-8").strip()
            except OSError:
                continue
        for line in (paths.common_dir / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        return None
    return None


def _head_value(paths: RepoPaths) -> tuple[bool, str | None]:
    """(git answered, HEAD's committed value or None when absent); cached per HEAD commit."""
    sha = _head_sha(paths)
    key = (str(paths.toplevel), sha or "")
    if sha and key in _HEAD_CACHE:
        return _HEAD_CACHE[key]
    answer = _ask_git(paths)
    if sha and answer[0]:
        _HEAD_CACHE[key] = answer
    return answer


def _ask_git(paths: RepoPaths) -> tuple[bool, str | None]:
    try:
        out = subprocess.run(
            ["git", "show", f"HEAD:{FILE_NAME}"],
            cwd=paths.toplevel,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False, None
    if out.returncode != 0:
        return True, None
    return True, out.stdout.strip()


_BASE_CACHE: dict[tuple[str, str], str | None] = {}


def _branch(paths: RepoPaths) -> str | None:
    try:
        head = (paths.git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return head[len("ref: refs/heads/") :] if head.startswith("ref: refs/heads/") else None


def _check_base(paths: RepoPaths, value: str) -> None:
    """A branch cannot change whose memory it reads: when the base branch commits an identity, a
    checkout whose identity differs from it is refused (after `hall library import` the store may
    hold another project's learnings, and a branch must not be able to name that project)."""
    from hallmark.core.config_raw import load_raw

    try:
        base = str(load_raw(paths.main_checkout).get("base") or "main")
    except Exception:  # noqa: BLE001 - a broken config: the default base
        base = "main"
    if _branch(paths) == base:
        return  # HEAD is the base: its committed value is the base's
    key = (str(paths.toplevel), base)
    if key not in _BASE_CACHE:
        try:
            out = subprocess.run(
                ["git", "show", f"{base}:{FILE_NAME}"],
                cwd=paths.toplevel,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return
        # no base branch, or it commits no identity yet: nothing to hold the checkout to
        _BASE_CACHE[key] = out.stdout.strip() if out.returncode == 0 else None
    at_base = _BASE_CACHE[key]
    if at_base is None:
        return
    if GRAMMAR.fullmatch(at_base) and at_base != value:
        raise HallError(
            "WRONG_STATE",
            f"Project identity rejected: this checkout says '{value}' but the base branch {base} commits "
            f"'{at_base}'. Memory is scoped by the base branch's identity; a branch cannot switch it.",
            [
                f"git checkout {base} -- {FILE_NAME} && git commit -m 'Keep the project identity'",
                f"change {FILE_NAME} on {base} if the project really was renamed",
            ],
        )


def _local_value(paths: RepoPaths, create: bool) -> str | None:
    path = paths.state_dir / "library" / LOCAL_FILE
    try:
        value = path.read_text(encoding="utf-8").strip()
        if GRAMMAR.fullmatch(value):
            return value
    except OSError:
        pass
    if not create:
        return None
    import uuid  # here: only a first local identity needs one (uuid imports platform)

    value = f"local/{uuid.uuid4()}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n", encoding="utf-8")
    return value


def proposal(paths: RepoPaths) -> str:
    """What `hall init` proposes: the normalised origin URL, else a stable local/<uuid>."""
    url = origin_url(paths)
    found = normalise_origin(url) if url else None
    if found:
        return found
    import uuid

    return _local_value(paths, create=True) or f"local/{uuid.uuid4()}"


def current(paths: RepoPaths) -> Identity:
    """The identity memory is scoped to here. Raises WRONG_STATE when the working tree disagrees with HEAD."""
    file = paths.toplevel / FILE_NAME
    try:
        working = file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        working = None
    except OSError as exc:
        raise HallError("WRONG_STATE", f"{file} cannot be read: {exc}", ["hall doctor"]) from exc
    if working is not None:
        validate(working)
        answered, committed = _head_value(paths)
        _check_base(paths, working)
        if answered and committed != working:
            if committed is None:
                why = f"{FILE_NAME} ('{working}') is not committed yet"
            else:
                why = f"{FILE_NAME} in the working tree ('{working}') differs from HEAD ('{committed}')"
            raise HallError(
                "WRONG_STATE",
                f"Project identity rejected: {why}. Memory is scoped by the committed value only.",
                [f"git add {FILE_NAME} && git commit -m 'Project identity for memory'", f"git checkout -- {FILE_NAME}"],
            )
        return Identity(working, "file")
    if paths.toplevel != paths.main_checkout:
        # a worktree whose branch predates the identity commit: the main checkout's committed value
        main = RepoPaths(paths.main_checkout, paths.common_dir, paths.common_dir, paths.main_checkout)
        value = read_committed_file(paths.main_checkout)
        if value and GRAMMAR.fullmatch(value) and _head_value(main) == (True, value):
            return Identity(value, "file")
    url = origin_url(paths)
    found = normalise_origin(url) if url else None
    if found:
        return Identity(found, "origin")
    local = _local_value(paths, create=paths.state_dir.is_dir())
    if local is None:
        raise HallError("NOT_INITIALIZED", "No project identity: Hallmark is not set up here.", ["hall init"])
    return Identity(local, "local")


def write_proposal(paths: RepoPaths) -> IdentityWritten:
    """Write `.agentmemory-project` at the main checkout if it is absent (for `hall init`)."""
    # imported here: the SessionStart hook loads this module, not this verb, and stays light
    from .move_results import IdentityWritten

    file = paths.main_checkout / FILE_NAME
    if file.exists():
        try:
            value = file.read_text(encoding="utf-8").strip()
        except OSError:
            value = ""
        return IdentityWritten(file=str(file), project=value, written=False)
    value = proposal(paths)
    if value.startswith("local/"):
        local = paths.state_dir / "library" / LOCAL_FILE
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(value + "\n", encoding="utf-8")
    file.write_text(value + "\n", encoding="utf-8")
    return IdentityWritten(
        file=str(file),
        project=value,
        written=True,
        commit=f"git add {FILE_NAME} && git commit -m 'Project identity for memory'",
    )


def read_committed_file(root: Path) -> str | None:
    try:
        return (root / FILE_NAME).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
