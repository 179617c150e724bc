"""`hall-hook <event>`: Claude Code's hook protocol, one tiny process per event.

Reads the hook JSON on stdin and answers on stdout in Claude Code's format. The failure policy:
- malformed stdin, or a repo without `hall init`: no output, exit 0 (a line in the hook log);
- an internal error while a gate decides: deny, naming `hall doctor` (fail closed);
- an internal error anywhere else: no output, exit 0, logged (a hook never breaks a session).
Nothing here ever answers `allow`.

Imports stay minimal (json, os, sys here; each event's module on demand) because Claude Code
runs a hook on every prompt and tool call.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing is not imported on the hook path
if TYPE_CHECKING:
    from hallmark.core.paths import RepoPaths

EVENTS = {
    "session-start": "session_start",
    "user-prompt-submit": "user_prompt_submit",
    "pre-tool-use": "pre_tool_use",
    "post-tool-use": "post_tool_use",
    "post-tool-use-failure": "post_tool_use",
    "stop": "stop",
    "notification": "notification",
}
# hall-hook's event names -> Claude Code's (hooks/reply.py answers with these)
EVENT_NAMES = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
    "stop": "Stop",
    "notification": "Notification",
}
GATED_TOOLS = frozenset({"Bash", "Edit", "Write", "MultiEdit", "NotebookEdit"})
ALIASES = {name.replace("-", ""): name for name in EVENTS} | {claude: ours for ours, claude in EVENT_NAMES.items()}


def normalise(name: str) -> str | None:
    if name in EVENTS:
        return name
    return ALIASES.get(name) or ALIASES.get(name.replace("_", "-").lower().replace("-", ""))


def _emit(answer: dict | None) -> None:
    if answer:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False))
        sys.stdout.flush()


def run(event: str, raw: bytes) -> dict | None:
    """The whole hook as a function: (event name, stdin bytes) -> the JSON answer or None."""
    name = normalise(event)
    if name is None:
        return None
    try:
        payload = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (UnicodeDecodeError, ValueError):
        payload = None
    if not isinstance(payload, dict):
        # what it was, never what it said: a payload carries prompts, and prompts carry secrets
        shape = "empty" if not raw.strip() else "not a JSON object" if payload is not None else "not JSON"
        _log_quietly(None, name, f"malformed stdin ({len(raw)} bytes, {shape})")
        return None
    tool = payload.get("tool_name")
    gated = name == "pre-tool-use" and isinstance(tool, str) and tool in GATED_TOOLS
    paths: RepoPaths | None = None
    try:
        cwd = payload.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            if "cwd" in payload and payload["cwd"] is not None:
                _log_quietly(None, name, f"malformed cwd {payload['cwd']!r}")
                return None
            cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        if not os.path.isdir(cwd):
            # the session's directory is gone (its worktree dropped under it): a gate finds the
            # repository from the call's other paths, and denies when it cannot tell
            if not gated:
                return None
            paths = _nearby(cwd, payload)
            if paths is None:
                return _cwd_gone(cwd)
        else:
            from hallmark.core.paths import discover

            paths = discover(cwd, required=False)
            if paths is None or not paths.initialized:
                paths = _nearby(cwd, payload) if gated else None  # a gate never switches off near a repo
            if paths is None or not paths.initialized:
                return None
        import importlib

        module = importlib.import_module(f"hallmark.hooks.{EVENTS[name]}")
        return module.handle(payload, paths, cwd, name)
    except Exception as exc:  # noqa: BLE001 - the failure policy, in one place
        _log_quietly(paths, name, f"internal error: {type(exc).__name__}: {exc}")
        if gated:
            from .reply import gate_failed

            return gate_failed(exc)
        return None


_PATHISH = r"(?:^|[\s=:'\"(;&|<>])((?:~|\.{1,2})?/[^\s'\";&|()<>`$]*|\.\.?)(?=$|[\s'\";&|()<>])"


def _cwd_gone(cwd: str) -> dict:
    """A gated call from a directory that no longer exists, aimed at no repository we can find:
    the gate cannot decide, so it denies (fail closed), saying what to do."""
    from hallmark.core.errors import HallError

    from .reply import deny

    _log_quietly(None, "pre-tool-use", "cwd does not exist; no repository found in the call; denied")
    error = HallError(
        "GATE_DENIED",
        f"This session's working directory {cwd} no longer exists (was its worktree dropped?), and "
        "Hallmark cannot tell which repository the call is aimed at; it denies until the session "
        "works from an existing directory.",
        ["cd <an existing checkout>", "hall doctor"],
    )
    return deny(error.to_json())


def _nearby(cwd: str, payload: dict) -> RepoPaths | None:
    """The Hallmark repo a gated call is aimed at when its cwd finds none: above the cwd past nested
    repos and submodules, above the file an edit tool writes, above the session's transcript, or
    above a path the command names (`git -C <worktree> push`, `cd <repo> && …`, `--git-dir=…`,
    absolute paths)."""
    import re

    from hallmark.core.paths import hallmark_above

    found = hallmark_above(cwd)
    if found is not None:
        return found
    tool_input = raw if isinstance(raw := payload.get("tool_input"), dict) else {}
    candidates: list[str] = []
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            candidates.append(value)
    command = tool_input.get("command")
    if isinstance(command, str):
        candidates += re.findall(_PATHISH, command[:16384])[:32]
        candidates += re.findall(r"-C(/[^\s'\";&|()<>`$]+)", command[:16384])[:8]
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and os.path.isabs(transcript):
        candidates.append(transcript)
    for candidate in candidates:
        path = os.path.expanduser(candidate)
        if not os.path.isabs(path):
            path = os.path.join(cwd, path)
        found = hallmark_above(path)
        if found is not None:
            return found
    return None


def _log_quietly(paths: RepoPaths | None, event: str, message: str) -> None:
    try:
        from hallmark.hooks.common import log

        log(paths, event, message)
    except Exception:  # noqa: BLE001
        pass


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    event = args[0] if args else ""
    if event == "git-pre-push":  # git's hook, not Claude Code's: its own protocol (hooks/git_pre_push.py)
        from hallmark.hooks.git_pre_push import main as git_pre_push

        return git_pre_push(args[1:])
    if event == "statusline":  # Claude Code's statusLine command, not a hook: one line on stdout
        from hallmark.core.statusline import run_stdin

        return run_stdin()
    if normalise(event) is None:
        return 0
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        raw = b""
    try:
        _emit(run(event, raw))
    except BaseException as exc:  # noqa: BLE001 - even KeyboardInterrupt: exit 0, never a traceback on stdout
        if normalise(event) == "pre-tool-use" and any(f'"{t}"'.encode() in raw for t in GATED_TOOLS):
            try:
                from .reply import gate_failed

                _emit(gate_failed(exc))
            except Exception:  # noqa: BLE001
                pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
