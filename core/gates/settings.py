"""The configuration as the gates see it: read from the main checkout, parsed once per change.

Parsing TOML costs ~6 ms of imports on every tool call, so the parsed result is kept as JSON in
`<state>/cache/config.json`, keyed by the file's size, mtime and inode. A changed file is parsed
again; a missing or broken cache is rebuilt. An invalid file raises (the gate then fails closed).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..paths import RepoPaths

CONFIG_NAME = ".hallmark.toml"


def _key(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def load(paths: RepoPaths) -> dict[str, Any]:
    source = os.path.join(paths.main_checkout, CONFIG_NAME)
    key = _key(source)
    cache = paths.state_dir / "cache" / "config.json"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(cached, dict) and cached.get("key") == key and isinstance(cached.get("data"), dict):
            return cached["data"]
    except (OSError, ValueError):
        pass
    from ..config_raw import load_raw

    data = load_raw(paths.main_checkout)
    if not paths.state_dir.is_dir():
        return data  # never create the state dir: its existence is what marks a repo as set up
    try:
        cache.parent.mkdir(exist_ok=True)
        tmp = cache.with_name(f".config.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "data": data}, default=str), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass
    return data


def capture(config: dict[str, Any]) -> dict[str, Any]:
    """The [capture] table with every default filled in and wrong types rejected."""
    raw = config.get("capture") or {}
    if not isinstance(raw, dict):
        raise ValueError("[capture] is not a table")
    mode = raw.get("mode", "gate")
    free = raw.get("free", ["docs/", "*.md"])
    guard = raw.get("push_guard", "strict")
    allow = raw.get("push_allow", [])
    if mode not in ("gate", "ask", "off"):
        raise ValueError(f"[capture] mode = {mode!r} is not gate, ask or off")
    if guard not in ("strict", "parse"):
        raise ValueError(f"[capture] push_guard = {guard!r} is not strict or parse")
    if not isinstance(free, list) or not all(isinstance(x, str) for x in free):
        raise ValueError("[capture] free is not a list of strings")
    if not isinstance(allow, list) or not all(isinstance(x, str) for x in allow):
        raise ValueError("[capture] push_allow is not a list of strings")
    return {"mode": mode, "free": free, "push_guard": guard, "push_allow": allow}
