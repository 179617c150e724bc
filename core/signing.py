"""Signatures the agent cannot make: this machine's Ed25519 key and OpenSSH's `ssh-keygen -Y`.

A hallmark note and a person's decision are only as good as whatever an agent cannot produce. Files
and refs its user can write are not that; a signature by a key it cannot read is. Hallmark uses the
ecosystem's own mechanism, the one git uses for SSH-signed commits: an Ed25519 key made by
`ssh-keygen`, signatures by `ssh-keygen -Y sign -n <namespace>`, checked by `ssh-keygen -Y verify`
against an `allowed_signers` file (`<principal> namespaces="hallmark" ssh-ed25519 AAAA…`). No
cryptography of our own.

- The private key lives in the user's data dir (`keys/`, 0700, the key 0600), made by `hall init`
  or `hall setup git`; every sandbox profile Hallmark writes denies reading `keys/`.
- Who is trusted is not this module's choice: callers pass the allowed-signers text (the base's
  `.hallmark/allowed_signers` as the remote has it, or the state dir's list; see trust.py).
- Namespaces keep one kind of signature from passing as another: `hallmark` for notes,
  `hallmark-person` for a person's decisions.

Stdlib only: the push gate and the pre-push hook verify on every push.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

NOTE_NAMESPACE = "hallmark"
PERSON_NAMESPACE = "hallmark-person"
KEY_NAME = "hallmark_ed25519"
SIGNATURE_LIMIT = 8_192  # an Ed25519 SSH signature is ~300 bytes armoured
SIGNERS_LIMIT = 65_536  # an allowed_signers file of a few hundred keys
_PRINCIPAL = re.compile(r"[A-Za-z0-9._@+-]{1,128}")
_TIMEOUT = 10.0


class SigningError(Exception):
    """The key cannot be made or used (no ssh-keygen, an unreadable key, ssh-keygen failed)."""


# Where the system's ssh-keygen lives: never the caller's PATH, which an agent can shadow with a
# program that answers "Good signature" to anything (the pre-push hook runs in the agent's env).
SYSTEM_DIRS = "/usr/bin:/bin:/usr/local/bin:/opt/homebrew/bin:/usr/sbin:/sbin"


def ssh_keygen() -> str | None:
    """The system's ssh-keygen, or None (no signatures can be made or checked then)."""
    return shutil.which("ssh-keygen", path=SYSTEM_DIRS)


def key_dir() -> Path:
    from .paths import user_data_dir

    return user_data_dir() / "keys"


def key_path() -> Path:
    return key_dir() / KEY_NAME


def valid_principal(name: str) -> bool:
    return bool(_PRINCIPAL.fullmatch(name))


def _default_principal() -> str:
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry (containers): any stable name will do
        user = "user"
    raw = f"hallmark-{user}@{socket.gethostname() or 'localhost'}"
    return re.sub(r"[^A-Za-z0-9._@+-]", "-", raw)[:128]


class PublicKey:
    """This machine's signer: its principal (the allowed_signers name) and its public key line."""

    __slots__ = ("key", "principal")

    def __init__(self, principal: str, key: str) -> None:
        self.principal = principal
        self.key = key

    def allowed_line(self, namespaces: tuple[str, ...] = (NOTE_NAMESPACE, PERSON_NAMESPACE)) -> str:
        return f'{self.principal} namespaces="{",".join(namespaces)}" {self.key}'

    def __repr__(self) -> str:
        return f"PublicKey({self.principal!r})"


def _run(argv: list[str], data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        if data is None:
            return subprocess.run(
                argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=_TIMEOUT, check=False, env=_env()
            )
        return subprocess.run(argv, input=data, capture_output=True, timeout=_TIMEOUT, check=False, env=_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SigningError(f"{os.path.basename(argv[0])} could not run: {exc}") from None


def _env() -> dict[str, str]:
    # ssh-keygen needs no agent and must not ask for a passphrase on a terminal
    env = {k: v for k, v in os.environ.items() if k not in ("SSH_AUTH_SOCK", "SSH_ASKPASS", "DISPLAY")}
    env["SSH_ASKPASS_REQUIRE"] = "never"
    return env


def read_public(path: Path | None = None) -> PublicKey | None:
    """This machine's public key (the `.pub` beside the key), or None when there is none."""
    pub = (path or key_path()).with_suffix(".pub")
    try:
        text = _read_small(pub, 4096)
    except OSError:
        return None
    parts = text.split()
    if len(parts) < 2 or parts[0] != "ssh-ed25519":
        return None
    principal = parts[2] if len(parts) > 2 and valid_principal(parts[2]) else _default_principal()
    return PublicKey(principal, f"{parts[0]} {parts[1]}")


def ensure_key() -> tuple[PublicKey, bool]:
    """(this machine's public key, whether it was made now): the key is made once, 0600 in 0700."""
    path = key_path()
    existing = read_public(path) if path.is_file() else None
    if existing is not None:
        return existing, False
    exe = ssh_keygen()
    if exe is None:
        raise SigningError("ssh-keygen is not installed (OpenSSH 8.2 or later signs hallmarks)")
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    for stale in (path, path.with_suffix(".pub")):
        if stale.exists() or stale.is_symlink():
            stale.unlink()
    proc = _run([exe, "-q", "-t", "ed25519", "-N", "", "-C", _default_principal(), "-f", str(path)])
    if proc.returncode != 0:
        raise SigningError(f"ssh-keygen could not make the key: {proc.stderr.decode('utf-8', 'replace').strip()[:300]}")
    os.chmod(path, 0o600)
    made = read_public(path)
    if made is None:
        raise SigningError(f"ssh-keygen made no usable public key at {path.with_suffix('.pub')}")
    return made, True


def can_sign() -> bool:
    """Can this process read the key? (False inside a sandbox that denies it, or with no key.)"""
    try:
        return os.access(key_path(), os.R_OK) and ssh_keygen() is not None
    except OSError:
        return False


def sign(data: bytes, namespace: str) -> str:
    """The armoured SSH signature of data in namespace, by this machine's key."""
    exe = ssh_keygen()
    if exe is None:
        raise SigningError("ssh-keygen is not installed")
    path = key_path()
    if not os.access(path, os.R_OK):
        raise SigningError(f"the signing key {path} cannot be read (run `hall setup git`)")
    proc = _run([exe, "-Y", "sign", "-q", "-f", str(path), "-n", namespace], data)
    signature = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not signature.startswith("-----BEGIN SSH SIGNATURE-----"):
        raise SigningError(f"ssh-keygen could not sign: {proc.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return signature


def verify(data: bytes, signature: object, principal: object, allowed_signers: str, namespace: str) -> str | None:
    """None when signature is principal's valid signature of data in namespace under allowed_signers;
    else why not. Never raises: anything that keeps it from checking is a failure to verify."""
    if not isinstance(signature, str) or not signature.startswith("-----BEGIN SSH SIGNATURE-----"):
        return "it carries no SSH signature"
    if len(signature) > SIGNATURE_LIMIT:
        return "its signature is too large to be one"
    if not isinstance(principal, str) or not valid_principal(principal):
        return "it names no valid signer"
    if not allowed_signers.strip():
        return "no signer is trusted"
    exe = ssh_keygen()
    if exe is None:
        return "ssh-keygen is not installed, so no signature can be checked"
    with tempfile.TemporaryDirectory(prefix="hallmark-verify-") as tmp:
        signers = Path(tmp, "allowed_signers")
        sig = Path(tmp, "sig")
        signers.write_text(allowed_signers[:SIGNERS_LIMIT], encoding="utf-8")
        sig.write_text(signature + "\n", encoding="ascii", errors="replace")
        try:
            proc = _run(
                [exe, "-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace, "-s", str(sig)], data
            )
        except SigningError as exc:
            return str(exc)
    if proc.returncode == 0:
        return None
    return f"its signature does not verify as {principal}'s (a key the base does not trust, or altered content)"


def _read_small(path: Path, limit: int) -> str:
    """A regular file's text, at most limit bytes (a FIFO or device never blocks or floods)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(f"{path} is larger than {limit} bytes")
    return data.decode("utf-8", "replace")


def read_small(path: Path, limit: int = SIGNERS_LIMIT) -> str | None:
    """read_small for callers that treat an unreadable file as absent."""
    try:
        return _read_small(path, limit)
    except OSError:
        return None
