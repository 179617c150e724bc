"""The configuration as the gates see it: read from the main checkout, parsed once per change.

Parsing TOML costs ~6 ms of imports on every tool call, so the parsed result (core/config_raw.py:
the one reader and the one set of defaults) is kept as JSON in `<state>/cache/config.json`, keyed by
the file's size, mtime and inode, with its [capture] table already checked against
config_raw.CHOICES. A changed file is parsed and checked again; a missing or broken cache is
rebuilt; a file whose [capture] is invalid is never cached, so every call refuses it again. An
invalid file raises (the gate then fails closed).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths

CONFIG_NAME = ".hallmark.toml"  # config_raw.CONFIG_NAME, not imported on a cache hit (a test checks they agree)
CHECKED = "_capture_checked"  # set in a cached config whose [capture] passed capture()


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
    from hallmark.core.config_raw import load_raw

    data = load_raw(paths.main_checkout)
    try:
        data["capture"] = capture(data)
    except ValueError:
        return data  # not cached: the next call reads and refuses it again
    data[CHECKED] = True
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
    """The [capture] table with every default filled in (config_raw.DEFAULTS) and wrong values
    rejected (config_raw.CHOICES: what the pydantic model allows, without pydantic). A config load()
    cached had it checked already."""
    if config.get(CHECKED) is True and isinstance(config.get("capture"), dict):
        return config["capture"]
    from hallmark.core.config_raw import CHOICES, DEFAULTS

    raw = config.get("capture") or {}
    if not isinstance(raw, dict):
        raise ValueError("[capture] is not a table")
    table = {key: raw.get(key, default) for key, default in DEFAULTS["capture"].items()}
    for key in ("mode", "push_guard"):
        allowed = CHOICES[f"capture.{key}"]
        if table[key] not in allowed:
            raise ValueError(f"[capture] {key} = {table[key]!r} is not {', '.join(allowed[:-1])} or {allowed[-1]}")
    for key in ("free", "push_allow"):
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ValueError(f"[capture] {key} is not a list of strings")
    return table


def never_free(config: dict[str, Any]) -> list[str]:
    """Paths no `[capture] free` glob frees (anchored at the checkout's root): `.hallmark/` (the
    reviewer's rubric, the allowed signers) and the configured `rules` files, which the reviewer and
    the sessions read from the base, so a commit of them outside an item would rewrite the rules."""
    rules = config.get("rules")
    listed = [r for r in rules if isinstance(r, str) and r.strip()] if isinstance(rules, list) else []
    return [".hallmark/", *listed]
