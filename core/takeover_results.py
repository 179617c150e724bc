"""What `hall takeover` (core/takeover.py) answers: how to resume the run's Claude Code session
by hand, and what was stopped, released and pulled back first. The CLI adds `next`, and `ran` and
`exit_code` once it ran the command (tui/cli/trace.py)."""

from __future__ import annotations

from .results import Result


class Takeover(Result):
    """`hall takeover`: the run taken over, its session, and the command (and shell line) resuming it."""

    item: str
    run: str
    session_id: str
    command: list[str]
    cwd: str
    env: dict[str, str]
    stopped: bool
    lease_released: bool
    pulled_back: bool
    shell: str
