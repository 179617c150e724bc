"""`hall-hook git-pre-push <hook path> <remote> <url>`: git's pre-push hook (installed by `hall init`).

Git gives the hook the remote's name and URL as arguments and one line per ref on stdin. Hallmark
decides first (core/gates/prepush.py); when it lets the push go, the hook that was installed before
it (`pre-push.hallmark-chained` beside it) runs with the same arguments and the same stdin, and its
exit code is the answer. Any internal error refuses the push and names `hall doctor`: this wall
fails closed. `git push --no-verify` skips every pre-push hook, this one too (the hook gate denies
that flag to agents).
"""

from __future__ import annotations

import os
import sys

CHAINED_SUFFIX = ".hallmark-chained"


def chained(hook_path: str) -> str | None:
    """The user's own hook that ours replaced, when it is there and git would have run it."""
    path = hook_path + CHAINED_SUFFIX
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _run_chained(path: str, args: list[str], stdin: bytes) -> int:
    import subprocess

    try:
        return subprocess.run([path, *args], input=stdin, check=False).returncode
    except OSError as exc:
        sys.stderr.write(f"Hallmark's pre-push hook could not run the hook it chains ({path}): {exc}\n")
        return 1


def main(argv: list[str]) -> int:
    hook_path, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        stdin = sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        stdin = b""
    try:
        from hallmark.core.gates import prepush

        code, message = prepush.run(args, stdin)
    except Exception as exc:  # noqa: BLE001 - the wall fails closed
        code, message = (
            1,
            (
                f"Hallmark's pre-push hook failed ({type(exc).__name__}: {exc}); it refuses the push "
                "until this is fixed: run `hall doctor`."
            ),
        )
    if message:
        sys.stderr.write(message.rstrip("\n") + "\n")
    if code != 0:
        return code
    other = chained(hook_path) if hook_path else None
    return _run_chained(other, args, stdin) if other else 0
