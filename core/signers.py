"""Whose signatures count: the keys the remote's base trusts, else the ones this repo was set up with.

A hallmark is checked against `.hallmark/allowed_signers` as it stands on the base branch *as the
remote has it* (`refs/remotes/origin/<base>`): a person adds a key there through a reviewed commit,
so CI (`hall verify` in a fresh clone), the pre-push hook and the push gate agree on it, and several
people's daemons can stamp for one repository. Until the base carries that file, the list `hall
init` / `hall setup git` wrote into the state dir (`<git common dir>/hallmark/allowed_signers`, this
machine's key) is used, and the answer says so: such a hallmark verifies only on this machine.

Never read from the item's branch, the main checkout's working tree or the environment: those are
the agent's to write. Stdlib only: the hook path reads this on every push.
"""

from __future__ import annotations

from pathlib import Path

from . import signing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .paths import RepoPaths

SIGNERS_PATH = ".hallmark/allowed_signers"
LOCAL_NAME = "allowed_signers"
REMOTE = "origin"


class Trusted:
    """The allowed-signers text and where it came from (said in every answer that uses it)."""

    __slots__ = ("from_base", "source", "text")

    def __init__(self, text: str, source: str, *, from_base: bool = False) -> None:
        self.text = text
        self.source = source
        self.from_base = from_base  # the remote's base listed it (else the local list, or no one)

    def __bool__(self) -> bool:
        return bool(self.text.strip())

    def __repr__(self) -> str:
        return f"Trusted({self.source!r})"


def local_path(paths: RepoPaths) -> Path:
    return paths.state_dir / LOCAL_NAME


def remote_base_ref(base: str) -> str:
    return f"refs/remotes/{REMOTE}/{base}"


def base_name(paths: RepoPaths | None) -> str:
    if paths is None:
        return "main"
    try:
        from .gates import settings

        base = settings.load(paths).get("base")
    except Exception:  # noqa: BLE001 - an unreadable config falls back to the default base
        base = None
    return base if isinstance(base, str) and base and not base.startswith("-") else "main"


def from_remote_base(where: str, base: str, git_dir: str | None = None) -> str | None:
    """The base's allowed_signers as the remote has it, or None when the remote base has none."""
    from .gates.hallmark import _git

    proc = _git(where, ["cat-file", "blob", f"{remote_base_ref(base)}:{SIGNERS_PATH}"], git_dir)
    if proc.returncode != 0 or len(proc.stdout) > signing.SIGNERS_LIMIT:
        return None
    return proc.stdout.decode("utf-8", "replace")


def trusted(where: str, paths: RepoPaths | None, git_dir: str | None = None) -> Trusted:
    """The signers a hallmark in this repository is checked against."""
    base = base_name(paths)
    text = from_remote_base(where, base, git_dir)
    if text is not None:
        return Trusted(text, f"{SIGNERS_PATH} on {REMOTE}/{base}", from_base=True)
    if paths is not None and paths.initialized:
        local = signing.read_small(local_path(paths))
        if local is not None:
            return Trusted(local, f"this machine's list ({local_path(paths)}; {REMOTE}/{base} has no {SIGNERS_PATH})")
    return Trusted("", f"no {SIGNERS_PATH} on {REMOTE}/{base}, and no local list")


def add_local(paths: RepoPaths, key: signing.PublicKey) -> bool:
    """Trust key in this repository's local list (written by `hall init`/`hall setup git`, persons
    only); True when it was added now."""
    path = local_path(paths)
    current = signing.read_small(path) or ""
    if key.key in current:
        return False
    from . import atomic

    text = current if current.endswith("\n") or not current else current + "\n"
    atomic.write_text(path, text + key.allowed_line() + "\n", mode=0o644)
    return True


def lists_key(text: str, key: signing.PublicKey) -> bool:
    return any(key.key in line for line in text.splitlines() if not line.lstrip().startswith("#"))


def working_tree_file(paths: RepoPaths) -> Path:
    return Path(paths.main_checkout) / SIGNERS_PATH


def write_working_tree(paths: RepoPaths, key: signing.PublicKey) -> bool:
    """Add this machine's key to the main checkout's `.hallmark/allowed_signers` (for the person to
    commit to the base); True when the file changed."""
    path = working_tree_file(paths)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return False
    current = signing.read_small(path) or ""
    if lists_key(current, key):
        return False
    from . import atomic

    header = (
        ""
        if current
        else "# Hallmark: the keys whose signed hallmarks this repository trusts (`hall verify`, CI).\n"
        "# One line per signer, OpenSSH's allowed_signers format; change it through a reviewed commit.\n"
    )
    text = current if current.endswith("\n") or not current else current + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, header + text + key.allowed_line() + "\n", mode=0o644)
    return True
