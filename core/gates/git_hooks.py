"""The git hooks a command runs, and where git looks for them.

A git subcommand runs the client hooks githooks(5) lists for it; one whose code publishes makes the
command a push (it would publish unstamped). Git runs only executable hooks, so only those count.
`hooks_dir` finds the hooks directory without a git process when no config file could move it
(`core.hooksPath`, an include), and asks git otherwise. Stdlib only.
"""

from __future__ import annotations

import os
import re

from .shell_text import UNKNOWN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

HOOK_NAMES = frozenset(
    {
        "applypatch-msg",
        "pre-applypatch",
        "post-applypatch",
        "pre-commit",
        "pre-merge-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "pre-rebase",
        "post-checkout",
        "post-merge",
        "pre-push",
        "pre-receive",
        "update",
        "proc-receive",
        "post-receive",
        "post-update",
        "reference-transaction",
        "push-to-checkout",
        "pre-auto-gc",
        "post-rewrite",
        "sendemail-validate",
        "fsmonitor-watchman",
        "p4-changelist",
        "p4-prepare-changelist",
        "p4-post-changelist",
        "p4-pre-submit",
        "post-index-change",
    }
)
# the client hooks each subcommand may run (githooks(5)); a subcommand not here and not READ_ONLY may
# run any of them
_REF = ("reference-transaction",)
_INDEX = ("post-index-change",)
_COMMITS = ("prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite", "pre-auto-gc", *_REF, *_INDEX)
HOOKS_RUN_BY: dict[str, tuple[str, ...]] = {
    "commit": ("pre-commit", *_COMMITS),
    "merge": ("pre-merge-commit", "post-merge", *_COMMITS),
    "pull": ("pre-merge-commit", "post-merge", "pre-rebase", "post-checkout", *_COMMITS),
    "rebase": ("pre-rebase", "post-checkout", *_COMMITS),
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch", *_COMMITS),
    "cherry-pick": _COMMITS,
    "revert": _COMMITS,
    "checkout": ("post-checkout", *_REF, *_INDEX),
    "switch": ("post-checkout", *_REF, *_INDEX),
    "worktree": ("post-checkout", *_REF, *_INDEX),
    "clone": ("post-checkout",),
    "reset": _REF + _INDEX,
    "restore": _INDEX,
    "stash": _REF + _INDEX,
    "branch": _REF,
    "tag": _REF,
    "update-ref": _REF,
    "symbolic-ref": _REF,
    "replace": _REF,
    "notes": _REF,
    "fetch": (*_REF, "pre-auto-gc"),
    "gc": ("pre-auto-gc", *_REF),
    "maintenance": ("pre-auto-gc", *_REF),
    "push": ("pre-push", *_REF),
    "send-pack": ("pre-push", *_REF),
    "send-email": ("sendemail-validate",),
    "add": _INDEX,
    "rm": _INDEX,
    "mv": _INDEX,
    "stage": _INDEX,
    "update-index": _INDEX,
    "read-tree": _INDEX,
    "sparse-checkout": _INDEX,
    "status": _INDEX,
    "apply": _INDEX,
    "clean": (),
    "config": (),
    "remote": (),
    "reflog": _REF,
    "pack-refs": (),
    "prune": (),
    "repack": (),
    "bundle": _REF,
    "submodule": ("post-checkout", *_REF),
    "bisect": ("post-checkout", *_REF, *_INDEX),
    "filter-branch": _COMMITS,
    "p4": ("p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit"),
    "init": (),
    "hash-object": (),
    "mktree": (),
    "commit-tree": (),
    "write-tree": (),
    "fast-import": _REF,
}
# hooks skipped by --no-verify (commit, merge, am)
NO_VERIFY_SKIPS = frozenset({"pre-commit", "commit-msg", "pre-merge-commit", "applypatch-msg", "pre-applypatch"})


def probe_env(env: dict[str, str]) -> dict[str, str]:
    """The environment for the gate's own git probes: ours, plus the command's known GIT_* values."""
    full_env = dict(os.environ)
    full_env.update({k: v for k, v in env.items() if k.startswith("GIT_") and v != UNKNOWN})
    full_env["GIT_TERMINAL_PROMPT"] = "0"
    return full_env


# -- hooks -----------------------------------------------------------------------------------------


def git_hooks(an: Analyzer, sub: str, lits: list[str], cmd: Command, cwd: str | None) -> None:
    """The hooks a git command may run (core.hooksPath honoured, husky's `_` wrappers too): one whose
    code publishes makes the command a push. Git skips a hook that is not executable; so does this."""
    skip = set(NO_VERIFY_SKIPS) if {"-n", "--no-verify"} & set(lits) and sub != "push" else set()
    skip.add("pre-push")  # a push is checked for what it sends; Hallmark's own pre-push lives there
    runs = HOOKS_RUN_BY.get(sub)
    for hook, path in an.ctx.hook_files(cwd or an.ctx.cwd):
        if hook in skip or (runs is not None and hook not in runs):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                code = handle.read(65536)
        except OSError:
            continue
        if mentions_publish("\n".join(line for line in code.splitlines() if not line.lstrip().startswith("#"))):
            an.add("push", f"git {sub} (its {hook} hook, {path})", cmd, cwd)
            return


def mentions_publish(text: str) -> bool:
    return bool(
        re.search(
            r"\bgit\b[^\n;|&]*\b(push|send-pack|http-push)\b|\bgh\b[^\n;|&]*\bpr\b[^\n;|&]*\b(create|merge)\b"
            r"|\bnotes\b[^\n;|&]*\b(add|append|edit|copy|remove|merge|prune)\b"
            r"|\b(npm|pnpm|yarn|bun|cargo|poetry|uv|flit|hatch|vsce|dart)\b[^\n;|&]*\bpublish\b"
            r"|\btwine\b[^\n;|&]*\bupload\b|\b(docker|podman)\b[^\n;|&]*\bpush\b",
            text,
        )
    )


def hooks_dir(cwd: str, env: dict[str, str], common_dir: str | None = None) -> str | None:
    """Where git looks for hooks from cwd. Without `hookspath` or an include in any config file, it is
    the common dir's hooks/ (no git call); otherwise git says (`rev-parse --git-path hooks`)."""
    if common_dir and not _config_may_move_hooks(common_dir, env):
        return os.path.join(common_dir, "hooks")
    import subprocess

    if not os.path.isdir(cwd):
        return None
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--git-path", "hooks"],
            cwd=cwd,
            env=probe_env(env),
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = proc.stdout.strip()
    if proc.returncode != 0 or not out:
        return None
    return os.path.normpath(os.path.join(cwd, out))


def _config_may_move_hooks(common_dir: str, env: dict[str, str]) -> bool:
    merged = {**os.environ, **{k: v for k, v in env.items() if v != UNKNOWN}}
    home = merged.get("HOME") or os.path.expanduser("~")
    xdg = merged.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [os.path.join(common_dir, "config"), os.path.join(common_dir, "config.worktree")]
    files += (
        [merged["GIT_CONFIG_GLOBAL"]]
        if merged.get("GIT_CONFIG_GLOBAL")
        else [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    )
    if not merged.get("GIT_CONFIG_NOSYSTEM"):
        files.append(merged.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if any(k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_PARAMETERS")) for k in merged):
        return True
    for path in files:
        try:
            with open(path, "rb") as handle:
                data = handle.read(1_048_576).lower()
        except OSError:
            continue
        if b"hookspath" in data or b"include" in data or b"worktreeconfig" in data:
            return True
    return False
