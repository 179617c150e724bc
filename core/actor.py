"""Who is acting: a person at their own terminal, or an agent.

One owner for the question every person-only action asks (approve, verdict, answer, accept a
learning, start the daemon …). The CLI, the memory store and the hook gate all call
`require_person`; none of them trusts `HALL_ACTOR` alone, because an agent can set it.

This is the first, friendly refusal, not the wall: `env -u CLAUDECODE -u HALL_SESSION_ID` removes
every variable read here. The wall is the capability (core/person_cap.py): a person's decision is
recorded with this machine's signature, which a process without the key (a sandboxed agent) cannot
make, and the loop acts only on decisions that carry it.

Stdlib only: the hook path imports this.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .errors import HallError

PERSON = "you"
# The demo's own steps, taken on the person's behalf inside a repo `hall demo` made.
DEMO_PERSON = "you (demo)"
PERSON_ACTORS = frozenset({PERSON, DEMO_PERSON})
AGENT_ROLES = frozenset({"assayer", "fixer", "shipper", "librarian", "watchman", "agent", "reviewer", "dev"})


def current_actor(environ: Mapping[str, str] | None = None) -> str:
    """HALL_ACTOR when set; 'agent' inside a Claude Code session; otherwise 'you'."""
    env = os.environ if environ is None else environ
    if agent_signal(env) and env.get("HALL_ACTOR", "").strip() in PERSON_ACTORS:
        return "agent"  # an agent that claims to be the person is still an agent
    actor = env.get("HALL_ACTOR", "").strip()
    if actor:
        return actor
    if agent_signal(env):
        return "agent"
    return PERSON


def actor_is_person(actor: str) -> bool:
    return actor in PERSON_ACTORS


def agent_signal(environ: Mapping[str, str] | None = None) -> str | None:
    """Why this process looks like an agent's, or None when nothing says so.

    Claude Code sets CLAUDECODE=1 for every Bash command it runs (interactive and headless);
    Hallmark's SessionStart hook exports HALL_SESSION_ID into the same shells; headless runs get
    HALL_ACTOR set to their role.
    """
    env = os.environ if environ is None else environ
    if env.get("CLAUDECODE", "").strip() not in ("", "0"):
        return "CLAUDECODE is set (Claude Code's Bash tool)"
    if env.get("CLAUDE_CODE_ENTRYPOINT", "").strip():
        return "CLAUDE_CODE_ENTRYPOINT is set (a Claude Code process)"
    if env.get("HALL_SESSION_ID", "").strip():
        return "HALL_SESSION_ID is set (a shell of a Claude Code session)"
    actor = env.get("HALL_ACTOR", "").strip()
    if actor and actor not in PERSON_ACTORS:
        return f"HALL_ACTOR={actor}"
    return None


def require_person(action: str, environ: Mapping[str, str] | None = None) -> str:
    """Return the person's actor name, or raise GATE_DENIED when an agent is acting."""
    env = os.environ if environ is None else environ
    reason = agent_signal(env)
    if reason is not None:
        raise HallError(
            "GATE_DENIED",
            f"{action} is a person's decision, and this process runs under an agent ({reason}). "
            "Ask the person to run it in their own terminal or from the app (`hall`).",
            ["hall status", "hall inbox"],
        )
    actor = env.get("HALL_ACTOR", "").strip()
    return actor if actor in PERSON_ACTORS else PERSON
