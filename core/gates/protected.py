"""What no agent writes: the protected record, as real paths (for the Bash gate and the edit gate).

- git's own directory (the common dir): Hallmark's state and journals, refs and the notes refs,
  packed-refs, hooks, config, every worktree's git dir;
- the main checkout's `.hallmark.toml` (the gates' configuration) and its `.claude/` (where Hallmark
  promotes what a person approved);
- Claude Code's settings in any checkout (`.claude/settings.json`, `.claude/settings.local.json`) and a
  worktree's `.git` file;
- git's hooks dir when `core.hooksPath` puts it elsewhere;
- Claude Code's user settings and plugins, where Hallmark's hooks are installed, and the `hall` and
  `hall-hook` programs themselves.

Stdlib only and import-light: the edit gate asks on every Edit and Write.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hallmark.core.paths import RepoPaths

_ROOTS: dict[str, list[tuple[str, str]]] = {}


def protected_roots(paths: RepoPaths | None) -> list[tuple[str, str]]:
    """(real path, why) of everything a Bash command or an edit tool may not write."""
    key = "\x00".join(
        [
            str(paths.common_dir) if paths is not None else "",
            os.environ.get("CLAUDE_CONFIG_DIR", ""),
            os.path.expanduser("~"),
        ]
    )
    if key in _ROOTS:
        return _ROOTS[key]
    roots: list[tuple[str, str]] = []
    if paths is not None:
        from .git_hooks import hooks_dir

        common = os.path.realpath(paths.common_dir)
        main = os.path.realpath(paths.main_checkout)
        roots += [
            (
                common,
                "git's own directory: Hallmark's journal and state, the refs and the hallmark notes, hooks and config",
            ),
            (os.path.join(main, ".hallmark.toml"), "the main checkout's .hallmark.toml, the gates' configuration"),
            (
                os.path.join(main, ".claude"),
                "the main checkout's .claude/, where Hallmark writes what a person approved",
            ),
        ]
        hooks = hooks_dir(main, {}, str(paths.common_dir))
        if hooks and not hooks.startswith(common + os.sep):
            roots.append((os.path.realpath(hooks), "git's hooks directory"))
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    for name in ("settings.json", "settings.local.json", "hallmark", "plugins"):
        roots.append(
            (
                os.path.realpath(os.path.join(config, name)),
                "Claude Code's user settings and plugins (they load Hallmark's hooks)",
            )
        )
    import sys

    bin_dir = os.path.dirname(sys.executable)
    for program in ("hall", "hall-hook"):
        path = os.path.join(bin_dir, program)
        if os.path.exists(path):
            roots.append((os.path.realpath(path), "Hallmark's own programs"))
    _ROOTS[key] = roots
    return roots


def protected_reason(paths: RepoPaths | None, real: str) -> str | None:
    """Why a real path may not be written by an agent, or None."""
    from hallmark.core.item_lookup import checkout_of, within

    for root, why in protected_roots(paths):
        if within(real, root):
            return why
    if paths is None:
        return None
    base = os.path.basename(real)
    parent = os.path.basename(os.path.dirname(real))
    if (
        parent == ".claude"
        and base in ("settings.json", "settings.local.json")
        and checkout_of(paths, real) is not None
    ):
        return "Claude Code's settings for this repository (they load Hallmark's hooks)"
    if base == ".git" and checkout_of(paths, real) is not None:
        return "a checkout's .git (it says where git's directory is)"
    return None


def holds_protected(paths: RepoPaths | None, real: str) -> str | None:
    """Why a directory a recursive command would sweep holds something no agent may write."""
    from hallmark.core.item_lookup import checkouts, within

    for root, why in protected_roots(paths):
        if within(root, real):
            return f"it holds {why}"
    for checkout in checkouts(paths) if paths is not None else []:
        if within(os.path.join(checkout, ".git"), real) or within(os.path.join(checkout, ".claude"), real):
            return "it holds a checkout's .git or Claude Code's settings"
    return None
