"""The assayer's key for one repository: made once, trusted by this repository's local list.

`hall init` and `hall setup git` (a person's commands) make this machine's key and add it to the
state dir's allowed_signers; the strike calls ensure_signer too, so a repository set up before
signed hallmarks gets its key on first use. A key is added to the local list only while that list
does not exist yet (trust on first use): a process that later points the data dir somewhere else
gets a key no list trusts, and its notes verify nowhere.
"""

from __future__ import annotations

from . import signers, signing
from .paths import RepoPaths


def ensure_signer(paths: RepoPaths) -> signing.PublicKey:
    """This machine's key, made if missing; trusted locally on first use."""
    key, _made = signing.ensure_key()
    if paths.initialized and not signers.local_path(paths).exists():
        signers.add_local(paths, key)
    return key


def trust_here(paths: RepoPaths) -> tuple[signing.PublicKey, bool]:
    """A person's set-up: make the key and add it to the local list; (key, whether it was added)."""
    key, _made = signing.ensure_key()
    return key, signers.add_local(paths, key)
