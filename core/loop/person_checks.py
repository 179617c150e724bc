"""The daemon's person checks: it runs only with this machine's key, and it works an item only
where the person's signed decisions put it (core/person_cap.py). Apart from daemon.py, which is
the passes' own module.
"""

from __future__ import annotations

from hallmark.core import items, states
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo


def require_key(action: str) -> None:
    """Running, starting or stopping the loop is a person's decision, made by capability: the
    process must hold this machine's signing key (made here on first use), which no sandboxed
    agent can read; the environment check before it (core/actor.py) is only the friendly refusal."""
    from hallmark.core import signing

    try:
        signing.ensure_key()
    except (signing.SigningError, OSError) as exc:
        why = str(exc)
    else:
        why = "" if signing.can_sign() else f"{signing.key_path()} cannot be read"
    if why:
        raise HallError(
            "GATE_DENIED",
            f"{action} is a person's decision and needs this machine's signing key, which this process "
            f"cannot use ({why}). Run it in your own terminal or from the app (`hall`).",
            ["hall doctor", "hall setup git"],
        )


def unsigned_step(repo: Repo, view: states.ItemView) -> str | None:
    """The loop acts only on a person's signed decisions (core/person_cap.py): an item whose state
    rests on an unsigned or copied `ready`/`retry` is not worked, and a notice says so, once."""
    from hallmark.core import person_cap

    events = items.item_events(repo, view.id)
    attempt = person_cap.loop_attempt(repo.paths, events, view, auto_ready=repo.config.auto_ready)
    if attempt and not any(e.get("event") == "notice" and e.get("text") == attempt for e in events):
        items.record(repo, view.id, "notice", actor="assayer", kind="unsigned_decision", text=attempt)
    return attempt
