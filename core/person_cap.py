"""A person's decision, proven: the `cap` a person event carries, and the one check the loop makes.

Who acts was read from variables (CLAUDECODE, HALL_SESSION_ID …) that `env -u` removes; a journal
line is a file the agent's user can append to. Neither proves a person decided. What does is a
signature by this machine's key (core/signing.py, `keys/` in the user data dir, which every sandbox
profile denies): a person event (`ready`, `retried`, `answered`, a person's `verdict`, a budget
grant …) carries `cap = {"signer": principal, "sig": armoured SSH signature}` over the canonical
bytes of the event without `cap` (every field: item, sha, round, the time), in namespace
`hallmark-person`. A copy onto another item, commit or round no longer verifies, and a replay of
an item's own earlier `ready` is stale (its round is not newer than one already counted).

Person decisions are local to the machine: they verify against the repo's local signer list
(`signers.local_path`), never the base's. A check runs ssh-keygen (~3 ms), so it is made only where
an event is acted on, and each answer is kept by event hash in the state dir (`person-caps/`):
folds, status and the hook path never pay for it twice. That cache is the state dir's, which the
sandbox denies to the agent, like the journal it speaks for.

Stdlib only, and light to import (signing's ssh-keygen machinery loads only when a cap is made or
checked): the hook path imports this through gates/hallmark.py.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .actor import PERSON_ACTORS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .paths import RepoPaths

CAP = "cap"
DOMAIN = b"hallmark person event v1\n"
CACHE_DIR = "person-caps"
# The journal events a person's decision writes (the memory store's audit lines are sealed by
# store.py's own call). A `ready` written by propose-ready under auto_ready carries `auto` instead.
PERSON_EVENTS = frozenset(
    {
        "ready",
        "retried",
        "answered",
        "verdict",
        "hallmarked",
        "dropped",
        "budget_granted",
        "budget_set",
        "inbox_cleared",
        "inbox_dismissed",
        "library",
    }
)
# The events the loop acts on only when they carry a valid cap, whoever the journal says wrote them.
ACTED_ON = frozenset({"ready", "retried", "answered", "budget_granted"})


class CapError(Exception):
    """This process cannot make a person's signature (no readable key, or a key no list trusts)."""


def canonical(event: dict[str, Any]) -> bytes:
    """The bytes a cap signs: the event without its cap, as the journal stores it, keys sorted."""
    body = {k: v for k, v in event.items() if k != CAP}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return DOMAIN + text.encode("utf-8")


def needs_cap(event: dict[str, Any]) -> bool:
    """Is this line a person's decision, which counts only with a valid cap?"""
    name = event.get("event")
    if name == "ready":
        return not event.get("auto")
    if name == "verdict":
        return event.get("human_override") is True
    if name in ACTED_ON:
        return True
    return name in PERSON_EVENTS and event.get("actor") in PERSON_ACTORS


def seal(event: dict[str, Any], paths: RepoPaths) -> dict[str, Any]:
    """Sign a person event in place (and return it); CapError when this process cannot.

    The key is made on first use and trusted locally only while no local list exists
    (stamp_key.ensure_signer); a key that list does not name is refused here, so a process pointed
    at another data dir records nothing rather than a decision that would count for nothing."""
    from . import signers, signing, stamp_key

    try:
        key = stamp_key.ensure_signer(paths)
    except (signing.SigningError, OSError) as exc:
        raise CapError(f"this process cannot use this machine's signing key: {exc}") from None
    trusted = signing.read_small(signers.local_path(paths)) or ""
    if not signers.lists_key(trusted, key):
        raise CapError(
            f"the signing key {signing.key_path()} is not one this repository trusts "
            f"({signers.local_path(paths)}); a person adds it with `hall setup git`"
        )
    event.pop(CAP, None)
    try:
        sig = signing.sign(canonical(event), signing.PERSON_NAMESPACE)
    except signing.SigningError as exc:
        raise CapError(str(exc)) from None
    event[CAP] = {"signer": key.principal, "sig": sig}
    return event


def seal_if_person(event: dict[str, Any], paths: RepoPaths) -> dict[str, Any]:
    """seal() for a person's decision (needs_cap and a person actor); anything else unchanged."""
    if event.get("actor") in PERSON_ACTORS and needs_cap(event):
        return seal(event, paths)
    return event


def refusal(action: str, exc: CapError) -> Exception:
    """The HallError a person verb raises when it cannot sign: nothing is recorded."""
    from .errors import HallError

    return HallError(
        "GATE_DENIED",
        f"{action} is a person's decision and is recorded with this machine's signature; {exc}. "
        "Nothing was recorded. Run it in your own terminal or from the app (`hall`).",
        ["hall doctor", "hall setup git"],
    )


# -- checking --------------------------------------------------------------------------------------


def _cache_key(event: dict[str, Any], text: str) -> str:
    digest = hashlib.sha256(canonical(event))
    digest.update(b"\0" + json.dumps(event.get(CAP), sort_keys=True, default=str).encode("utf-8"))
    digest.update(b"\0" + text.encode("utf-8"))
    return digest.hexdigest()


def _cache(paths: RepoPaths) -> Path:
    return paths.state_dir / CACHE_DIR


def _cached(paths: RepoPaths, key: str) -> str | None:
    """'' for a cached pass, the reason for a cached failure, None when not checked before."""
    from . import signing

    base = _cache(paths) / key[:2] / key
    if base.with_suffix(".ok").exists():
        return ""
    bad = signing.read_small(base.with_suffix(".bad"), 1024)
    return bad if bad else None


def _remember(paths: RepoPaths, key: str, why: str | None) -> None:
    folder = _cache(paths) / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (key + (".bad" if why else ".ok"))
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(why or "", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # a read-only state dir: the answer is recomputed next time
        pass


def why_not(event: dict[str, Any], paths: RepoPaths | None) -> str | None:
    """None when event carries a person's valid cap (the local list's key); else why it does not."""
    cap = event.get(CAP)
    if not isinstance(cap, dict):
        return "unsigned"
    signer, sig = cap.get("signer"), cap.get("sig")
    if not isinstance(signer, str) or not isinstance(sig, str):
        return "its signature is malformed"
    if paths is None or not paths.initialized:
        return "no signer list to check it against"
    from . import signers, signing

    text = signing.read_small(signers.local_path(paths)) or ""
    if not text.strip():
        return "this repository trusts no signer yet"
    key = _cache_key(event, text)
    cached = _cached(paths, key)
    if cached is not None:
        return cached or None
    why = signing.verify(canonical(event), sig, signer, text, signing.PERSON_NAMESPACE)
    if why is not None:
        why = f"its signature is not valid ({why})"
    _remember(paths, key, why)
    return why


def counts(event: dict[str, Any], paths: RepoPaths | None) -> bool:
    """Does the loop act on this event? Anything that is not a person's decision counts as it is."""
    return not needs_cap(event) or why_not(event, paths) is None


def describe(event: dict[str, Any], why: str) -> str:
    """ "an agent's attempt: unsigned `ready` by you (2026-…)" — for status, doctor and the inbox."""
    actor = event.get("actor") or "?"
    where = f" on {event['item']}" if event.get("item") else ""
    return f"an agent's attempt: {why} `{event.get('event')}` by {actor}{where} at {event.get('t', '?')}"


def attempts(events: Iterable[dict[str, Any]], paths: RepoPaths | None, *, auto_ready: bool) -> dict[int, str]:
    """{index: why} of the person decisions in one item's events that count for nothing: unsigned,
    invalid, a copy of a `ready` already counted (a replay), an `auto` ready without auto_ready.
    Only the events the loop acts on are checked (ACTED_ON and a person's verdict)."""
    found: dict[int, str] = {}
    seen: set[str] = set()
    for index, event in enumerate(events):
        name = event.get("event")
        if name == "ready" and event.get("auto"):
            if not auto_ready:
                found[index] = "an `auto` (auto_ready is off)"
            continue
        if not needs_cap(event) or (name not in ACTED_ON and name != "verdict"):
            continue
        why = why_not(event, paths)
        if why is not None:
            found[index] = why if why == "unsigned" else f"an invalid ({why})"
            continue
        sig = str(event[CAP].get("sig"))
        if sig in seen:  # Ed25519 is deterministic: a line copied verbatim carries the same signature
            found[index] = "a replayed"
            continue
        seen.add(sig)
    return found


def honest(events: list[dict[str, Any]], paths: RepoPaths | None, *, auto_ready: bool) -> list[dict[str, Any]]:
    """The events with the person decisions that count for nothing left out: what the loop folds."""
    drop = attempts(events, paths, auto_ready=auto_ready)
    return [e for i, e in enumerate(events) if i not in drop] if drop else events


def loop_attempt(paths: RepoPaths | None, events: list[dict[str, Any]], view: Any, *, auto_ready: bool) -> str | None:
    """Why the loop must not work this item now: where its folded state (state, hold, commit,
    round) rests on a person decision that counts for nothing, that decision described; else None."""
    drop = attempts(events, paths, auto_ready=auto_ready)
    if not drop:
        return None
    from . import states

    fair = states.fold(view.id, [e for i, e in enumerate(events) if i not in drop])
    if (fair.state, fair.hold, fair.sha, fair.round) == (view.state, view.hold, view.sha, view.round):
        return None
    last = max(drop)
    return describe(events[last], drop[last])
