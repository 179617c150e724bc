"""What every memory verb needs first: the store, the project, the config, and who is acting.

`person()` is the store's own gate for decisions (accept, reject, retire, edit, lock, undo,
reopen, reconcile's repairs): it asks core/actor.require_person, so the store refuses an agent
even where no hook gate runs, and writes the refusal to the audit log with the actor that tried.
Stdlib only.
"""

from __future__ import annotations

import os
from typing import Any

from hallmark.core import actor as actors
from hallmark.core import journal
from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths

from . import identity
from .promote import Where
from .search_index import SearchIndex
from .store import Learning, Store

PERSON = actors.PERSON


def paths_of(repo: Any) -> RepoPaths:
    return getattr(repo, "paths", repo)


def store_of(repo: Any) -> Store:
    paths = paths_of(repo)
    paths.require_initialized()
    return Store(paths)


def project_of(repo: Any) -> str:
    return identity.current(paths_of(repo)).value


def where_of(repo: Any) -> Where:
    paths = paths_of(repo)
    return Where(paths.main_checkout, paths.state_dir)


def library_config(repo: Any) -> dict[str, Any]:
    from hallmark.core.config_raw import DEFAULTS, load_raw

    try:
        return dict(load_raw(paths_of(repo).main_checkout).get("library") or {})
    except Exception:  # noqa: BLE001 - a broken config must not stop the memory store; defaults apply
        return dict(DEFAULTS["library"])


def load(store: Store, lid: str, project: str) -> Learning:
    learning = store.read(lid)
    if learning.project != project:
        # another project's learning is never returned, not even by ID
        raise HallError("LEARNING_NOT_FOUND", f"No learning {learning.id} in project {project}.", ["hall library list"])
    return learning


def open_index(store: Store) -> SearchIndex:
    index = SearchIndex(store)
    index.catch_up()
    return index


def person(repo: Any, action: str, lid: str | None, actor: str = PERSON) -> str:
    """The person's actor name for the audit log, or GATE_DENIED (and an audit line saying who tried).

    Both must hold: the caller says a person acts (actor) and nothing in the environment says an
    agent runs this process (CLAUDECODE, a hook-bound session, HALL_ACTOR of a role)."""
    what = f"{action} {lid}" if lid else action
    try:
        if not actors.actor_is_person(actor):
            raise HallError(
                "GATE_DENIED",
                f"Only a person can {what}; the actor here is '{actor}'. What the loop learns reaches no "
                "prompt until a person has approved it.",
                [
                    f"hall library show {lid}" if lid else "hall library list",
                    "ask the person to run: hall library review",
                ],
            )
        who = actors.require_person(f"hall library {what}")
    except HallError as exc:
        audit_denial(repo, action, lid, actor, exc.message)
        raise
    return actor if actor != PERSON else who


def audit_denial(repo: Any, action: str, lid: str | None, actor: str, why: str) -> None:
    try:
        real = actors.current_actor()
        signal = actors.agent_signal() or ""
        store = store_of(repo)
        claimed = os.environ.get("HALL_ACTOR", "").strip() or actor
        journal.append(
            store.audit_path,
            "library_denied",
            item=None,
            actor=real if not actors.actor_is_person(real) else actor,
            lid=lid,
            action=action,
            claimed=claimed,
            signal=signal,
            why=why,
        )
    except Exception:  # noqa: BLE001 - the refusal stands even if its audit line cannot be written
        pass
