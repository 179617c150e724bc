"""`hall` inside a Bash command: a person's decision (core/person_only.py) is denied to agents
wherever it appears, and so is any `hall` command run with Hallmark's variables overridden
(`HALL_CLAUDE`, `HALL_ACTOR`, `HALLMARK_DATA_DIR` …), which change who acts, which model runs or
whose data it reads. The CLI refuses the same table under an agent; this is the belt."""

from __future__ import annotations

from hallmark.core import person_only

from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

NAMES = frozenset({"hall"})


def run_hall(an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> None:
    overrides = sorted({k for k in [*env, *an.exported] if k.startswith(person_only.OVERRIDE_PREFIXES)})
    if overrides:
        an.add(
            "person",
            f"hall run with {', '.join(overrides)} set (Hallmark's own variables are not the agent's to change)",
            cmd,
            cwd,
        )
        return
    if any(not w.literal for w in args):
        words = [w.text for w in args]
        if any(not w.literal for w in args[:3]):
            an.add("person", f"hall with computed words {' '.join(words)[:60]!r}", cmd, cwd)
            return
    taken = person_only.action([w.text for w in args])
    if taken:
        an.add("person", f"{taken} is a person's decision", cmd, cwd)
