"""Which step the stand-in model plays on this call: the role it was started as, and the scenario's
next step for that role (from a marker in the prompt, or the HALL_STANDIN_SCRIPT file and its
per-role counter). The scenario format is described in standin.py."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"hallmark-standin:\s*(\{.*\})\s*$", re.M)


def role_of(agent: str | None, prompt: str) -> str:
    name = (agent or "").split(":")[-1]
    if name in ("principal-engineer", "reviewer"):
        return "review"
    if name == "fixer":
        return "fix"
    if name == "developer":
        return "dev"
    if name:
        return name
    actor = os.environ.get("HALL_ACTOR", "").split(" ")[0]  # the runner names the role of an agent-less run
    if actor in ("dev", "intake"):
        return actor
    return "review" if "verdict" in prompt.lower() else "dev"


def scenario_step(role: str, prompt: str) -> tuple[dict[str, Any], float | None]:
    """The step for this call, and the scenario's pace if it sets one."""
    marker = MARKER.findall(prompt)
    if marker:
        try:
            return json.loads(marker[-1]), None
        except json.JSONDecodeError:
            pass
    script = os.environ.get("HALL_STANDIN_SCRIPT")
    if not script:
        return {}, None
    path = Path(script)
    data = json.loads(path.read_text(encoding="utf-8"))
    pace = data.get("pace")
    item = os.environ.get("HALL_ITEM", "")
    per_item = (data.get("items") or {}).get(item) or {}
    steps = per_item.get(role) or []
    counter = f"{item}:{role}" if steps else role
    steps = steps or data.get(role) or []
    if not steps:
        return {}, pace
    state_path = path.with_name(path.name + ".state.json")
    from hallmark.core import journal

    with journal.locked(state_path, timeout=30):
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            state = {}
        count = int(state.get(counter, 0))
        state[counter] = count + 1
        state_path.write_text(json.dumps(state), encoding="utf-8")
    return steps[min(count, len(steps) - 1)], pace
