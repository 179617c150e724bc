"""The assayer's key for one repository: made once, trusted by this repository's local list.

`hall init` and `hall setup git` (a person's commands) make this machine's key and add it to the
state dir's allowed_signers; the strike calls ensure_signer too, so a repository set up before
signed hallmarks gets its key on first use. A key is added to the local list only while that list
does not exist yet (trust on first use): a process that later points the data dir somewhere else
gets a key no list trusts, and its notes verify nowhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import signers, signing
from .paths import RepoPaths

if TYPE_CHECKING:
    from .setup_results import Check, ResignedNote, SigningSetup


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


def set_up(paths: RepoPaths, *, resign: bool = False) -> SigningSetup:
    """`hall init` / `hall setup git`: the key, local trust, the main checkout's allowed_signers for
    the person to commit, and (setup git) version-1 notes re-signed where the journal proves them."""
    from .setup_results import SigningSetup

    key, made = signing.ensure_key()
    signers.add_local(paths, key)
    written = signers.write_working_tree(paths, key)
    trusted = signers.trusted(str(paths.toplevel), paths)
    base = trusted.text if trusted.from_base else None
    return SigningSetup(
        principal=key.principal,
        public_key=key.key,
        key=str(signing.key_path()),
        key_made=made,
        trusted_here=signers.lists_key(signing.read_small(signers.local_path(paths)) or "", key),
        allowed_signers=str(signers.working_tree_file(paths)),
        allowed_signers_written=written,
        base_trusts=base is not None and signers.lists_key(base, key),
        trust=trusted.source,
        resigned=tuple(resign_legacy(paths)) if resign else None,
    )


def resign_legacy(paths: RepoPaths) -> list[ResignedNote]:
    """Every version-1 note: re-signed (version 2) when its item's journal proves the loop struck it
    on that commit (gates/hallmark.py's chain), else reported and left as it is (invalid)."""
    from . import git, hallmark_note
    from .setup_results import ResignedNote

    listing = git.run(["notes", f"--ref={hallmark_note.NOTES_REF}", "list"], paths.toplevel, check=False)
    out: list[ResignedNote] = []
    for line in listing.stdout.splitlines() if listing.returncode == 0 else []:
        parts = line.split()
        if len(parts) != 2:
            continue
        sha = parts[1]
        text = git.run(["notes", f"--ref={hallmark_note.NOTES_REF}", "show", sha], paths.toplevel, check=False)
        data = hallmark_note.parse(text.stdout if text.returncode == 0 else None)
        if data is None or data.get("v") != 1:
            continue
        item = data.get("item") if isinstance(data.get("item"), str) else None
        why = _legacy_problem(paths, data, sha, item)
        if why:
            out.append(ResignedNote(sha=sha, item=item, resigned=False, reason=why))
            continue
        tree = git.run(["rev-parse", f"{sha}^{{tree}}"], paths.toplevel).stdout.strip()
        note = hallmark_note.make(
            item=str(item),
            sha=sha,
            tree=tree,
            round=int(data.get("round") or 0),
            run=data.get("run"),
            actor=str(data.get("actor") or ""),
            model=str(data.get("model") or ""),
            standin=bool(data.get("standin")),
            open_findings=list(data.get("open_findings") or []),
            carried_from=data.get("carried_from"),
        )
        git.run(
            ["notes", f"--ref={hallmark_note.NOTES_REF}", "add", "-f", "-m", hallmark_note.encode(note), sha],
            paths.toplevel,
            env={"HALL_ACTOR": "assayer"},
        )
        out.append(ResignedNote(sha=sha, item=item, resigned=True, reason="the journal shows the loop struck it"))
    return out


def _legacy_problem(paths: RepoPaths, data: dict[str, Any], sha: str, item: str | None) -> str | None:
    """Why the journal does not prove the loop struck this version-1 note, or None when it does."""
    from . import item_lookup
    from .gates import hallmark

    if data.get("sha") != sha or not item:
        return "the note does not name this commit and an item"
    found = item_lookup.fold_item_events(paths, item)
    if found is None:
        return f"{item} has no journal here"
    view, events = found
    if view.hallmark_sha != sha:
        return f"the journal of {item} records no hallmarked at {sha[:7]}"
    why, _standin = hallmark.chain(view, events, sha)
    if why:
        return why
    struck = events[view.hallmark_chain[0]]
    if struck.get("actor") == hallmark.ASSAYER and data.get("run") != struck.get("run"):
        return "the note names another review run than the journal"
    return None


def doctor_check(paths: RepoPaths) -> Check:
    """`hall doctor`'s `signing` row: can this machine strike hallmarks that verify here and in CI?"""
    from .doctor_check import check

    if signing.ssh_keygen() is None:
        return check(
            "signing", False, "ssh-keygen is not installed: no hallmark can be struck or checked", "install OpenSSH"
        )
    key = signing.read_public()
    if key is None or not signing.key_path().is_file():
        return check("signing", False, f"no hallmark key at {signing.key_path()}", "hall setup git")
    local = signing.read_small(signers.local_path(paths)) or ""
    base = signers.from_remote_base(str(paths.toplevel), signers.base_name(paths))
    if base is not None:
        ok = signers.lists_key(base, key)
        detail = (
            f"{key.principal}'s key is listed in {signers.SIGNERS_PATH} on the remote's base: its hallmarks verify "
            "here and in CI"
            if ok
            else f"the remote's base lists other keys in {signers.SIGNERS_PATH}, not {key.principal}'s: this machine's "
            "hallmarks verify nowhere"
        )
        return check(
            "signing",
            ok,
            detail,
            f"add this line to {signers.SIGNERS_PATH} through a reviewed commit: {key.allowed_line()}",
        )
    ok = signers.lists_key(local, key)
    detail = (
        f"{key.principal}'s key signs hallmarks; they verify on this machine only until {signers.SIGNERS_PATH} is "
        "committed to the remote's base (CI's `hall verify` reads it there)"
        if ok
        else f"this repository's local list ({signers.local_path(paths)}) does not trust {key.principal}'s key"
    )
    return check("signing", ok, detail, "hall setup git")
