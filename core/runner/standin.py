"""`hall-standin-claude`: the stand-in model, an executable that answers like `claude -p`.

It accepts the flags Hallmark passes to `claude -p`, runs REAL commands in its working directory
(git log, git diff, the fixer's edits, `git commit`, `hall fixed`) and writes real-format
stream-json: a `system/init` line, assistant text and tool_use lines, user tool_result lines with
the real output, and a `result` line with `usage`, `modelUsage` and, when `--json-schema` was
passed, `structured_output`. It labels itself everywhere: the model is "hallmark-standin", the
cost is 0 and its text says that no model ran. Hallmark never claims a model ran when none did.

What it decides comes from a scenario:
- `HALL_STANDIN_SCRIPT` names a JSON file {"review": [step, …], "fix": [step, …], "pace": 0};
  each call of a role takes the next step (the last one repeats). A counter file beside the
  script (`<script>.state.json`) remembers how many calls each role made.
  A scenario may also key steps by item: {"items": {"H-0001": {"review": [...]}}} is used for the
  run whose HALL_ITEM is H-0001 (its own counter); roles it does not list fall back to the top level.
- or a marker in the prompt: `hallmark-standin: {json step}` on one line;
- otherwise a small heuristic: the reviewer flags every added diff line holding TODO or FIXME
  (a major finding) and approves when there is none; the fixer deletes those lines and commits.

A review step: {"verdict": {...}} (the structured output), "omit_structured_output": true,
"exit_code": N, "subtype": "error_max_budget_usd", "die_after_lines": N (exit without a result
line), "usage": {"input_tokens": …, "output_tokens": …}, "sleep": seconds, "commands": [extra read-only
commands run before the verdict], "say": [text lines said before the verdict].
Any other role (dev, librarian, intake): {"say": […], "edits": […], "message": "commit message",
"commands": [...], "text": "last words", "structured_output": {...}} (returned when --json-schema was
passed, as the real CLI does).
A fix step: {"edits": [{"file", "append"|"write"|"remove_lines_containing"}], "message": "…",
"fixed": ["F-1"], "dispute": {"F-2": "reason"}, "commit": true, "no_submit": false, "commands": [...]}.
`HALL_STANDIN_PACE` (seconds between lines, default 0.05) sets the pace; tests set 0.
`--resume <id>` continues that session as the real CLI does: the stream keeps the session id, the
role is "dev" unless --agent says otherwise, and the first words repeat the message it was resumed
with. A step with "no_conversation": true answers like a session id the CLI does not know
(`No conversation found with session ID: …` on stderr, exit 1, no stream).
Each role's player is in standin_roles.py, the step it plays is picked in standin_scenario.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from .standin_roles import play
from .standin_scenario import role_of, scenario_step

MODEL = "hallmark-standin"
VERSION = "hallmark-standin"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="claude", add_help=False)
    p.add_argument("-p", "--print", dest="print_mode", action="store_true")
    p.add_argument("--output-format", default="text")
    p.add_argument("--input-format", default="text")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--json-schema")
    p.add_argument("--max-budget-usd")
    p.add_argument("--max-turns")
    p.add_argument("--agent")
    p.add_argument("--plugin-dir", action="append", default=[])
    p.add_argument("--setting-sources")
    p.add_argument("--settings")
    p.add_argument("--strict-mcp-config", action="store_true")
    p.add_argument("--mcp-config", action="append", default=[])
    p.add_argument("--model")
    p.add_argument("--fallback-model")
    p.add_argument("--permission-mode")
    p.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", nargs="*", default=[])
    p.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", nargs="*", default=[])
    p.add_argument("--tools", nargs="*", default=[])
    p.add_argument("--append-system-prompt")
    p.add_argument("--system-prompt")
    p.add_argument("--add-dir", action="append", default=[])
    p.add_argument("--resume", "-r")
    p.add_argument("--session-id")
    p.add_argument("--continue", "-c", dest="cont", action="store_true")
    p.add_argument("--fork-session", action="store_true")
    p.add_argument("--no-session-persistence", action="store_true")
    p.add_argument("--include-partial-messages", action="store_true")
    p.add_argument("--dangerously-skip-permissions", action="store_true")
    p.add_argument("--bare", action="store_true")
    p.add_argument("--version", "-v", action="store_true")
    p.add_argument("prompt", nargs="*")
    args, _unknown = p.parse_known_args(argv)
    return args


class Stream:
    """Writes stream-json lines to stdout at the configured pace, counting them."""

    def __init__(self, pace: float, die_after: int | None) -> None:
        self.pace = pace
        self.die_after = die_after
        self.lines = 0
        self.session_id = str(uuid.uuid4())

    def emit(self, record: dict[str, Any]) -> None:
        if self.die_after is not None and self.lines >= self.die_after:
            sys.stdout.flush()
            os._exit(137)  # killed mid-stream: no result line
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        self.lines += 1
        if self.pace > 0:
            time.sleep(self.pace)


class Model:
    """One run of the stand-in: assistant messages, real tool calls, and the accounting."""

    def __init__(self, stream: Stream, cwd: Path) -> None:
        self.s = stream
        self.cwd = cwd
        self.turns = 0
        self.output_chars = 0

    def _assistant(self, block: dict[str, Any]) -> None:
        self.turns += 1
        text = json.dumps(block)
        self.output_chars += len(text)
        self.s.emit(
            {
                "type": "assistant",
                "message": {
                    "model": MODEL,
                    "id": f"msg_standin_{uuid.uuid4().hex[:20]}",
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": 0,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                        "output_tokens": max(1, len(text) // 4),
                        "service_tier": "standard",
                    },
                },
                "parent_tool_use_id": None,
                "session_id": self.s.session_id,
                "uuid": str(uuid.uuid4()),
            }
        )

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text})

    def bash(self, command: str, description: str = "") -> tuple[int, str]:
        """Run a real command in the working directory and stream the call and its result."""
        tool_id = f"toolu_standin_{uuid.uuid4().hex[:20]}"
        self._assistant(
            {
                "type": "tool_use",
                "id": tool_id,
                "name": "Bash",
                "input": {"command": command, "description": description or command},
            }
        )
        try:
            proc = subprocess.run(
                ["sh", "-c", command],
                cwd=str(self.cwd),
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            code, out, err = 124, "", "timed out after 300 s"
        content = (out + (("\n" + err) if err else "")).strip() or "(no output)"
        if code != 0:
            content = f"Exit code {code}\n{content}"
        self.s.emit(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": code != 0}
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": self.s.session_id,
                "uuid": str(uuid.uuid4()),
                "tool_use_result": {"stdout": out, "stderr": err, "interrupted": False, "isImage": False},
            }
        )
        return code, out

    def write_file(self, rel: str, text: str, *, append: bool) -> None:
        tool_id = f"toolu_standin_{uuid.uuid4().hex[:20]}"
        path = self.cwd / rel
        name = "Edit" if path.exists() else "Write"
        self._assistant(
            {"type": "tool_use", "id": tool_id, "name": name, "input": {"file_path": str(path), "content": text}}
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        if append and path.exists():
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(text)
        else:
            path.write_text(text, encoding="utf-8")
        self.s.emit(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tool_id,
                            "type": "tool_result",
                            "content": f"The file {path} has been updated.",
                            "is_error": False,
                        }
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": self.s.session_id,
                "uuid": str(uuid.uuid4()),
            }
        )


def minimal_instance(node: Any, root: dict[str, Any]) -> Any:
    """The smallest value a JSON Schema accepts (required keys only): the default answer of roles
    the stand-in has no behaviour for, so their runs still end with a valid structured_output."""
    if not isinstance(node, dict):
        return None
    if "$ref" in node:
        target: Any = root
        for part in str(node["$ref"]).lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return minimal_instance(target, root)
    if "default" in node:
        return node["default"]
    if "const" in node:
        return node["const"]
    if node.get("enum"):
        return node["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if node.get(key):
            return minimal_instance(node[key][0], root)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in node:
        props = node.get("properties") or {}
        return {k: minimal_instance(props.get(k, {}), root) for k in node.get("required") or []}
    if kind == "array":
        return [minimal_instance(node.get("items", {}), root) for _ in range(int(node.get("minItems", 0)))]
    if kind == "string":
        return "x" * int(node.get("minLength", 0)) if node.get("minLength") else "stand-in"
    if kind in ("integer", "number"):
        return node.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


# -- main ------------------------------------------------------------------------------------


def _usage_numbers(step: dict[str, Any], prompt: str, model: Model) -> dict[str, int]:
    given = step.get("usage") or {}
    return {
        "input_tokens": int(given.get("input_tokens", max(1, len(prompt) // 4))),
        "output_tokens": int(given.get("output_tokens", max(1, model.output_chars // 4))),
        "cache_read_input_tokens": int(given.get("cache_read_tokens", 0)),
        "cache_creation_input_tokens": int(given.get("cache_write_tokens", 0)),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.version:
        print(f"0.0.0 ({VERSION}: Hallmark's stand-in for Claude Code; no model runs)")
        return 0
    if args.output_format == "stream-json" and args.print_mode and not args.verbose:
        sys.stderr.write("Error: When using --print, --output-format=stream-json requires --verbose\n")
        return 1
    schema: dict[str, Any] | None = None
    if args.json_schema:
        parsed = _json_schema(args.json_schema)
        if isinstance(parsed, str):
            sys.stderr.write(parsed)
            return 1
        schema = parsed
    prompt = " ".join(args.prompt)
    if not prompt and not sys.stdin.isatty():
        prompt = sys.stdin.read()
    role = "dev" if args.resume and not args.agent else role_of(args.agent, prompt)
    try:
        step, scenario_pace = scenario_step(role, prompt)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"hallmark-standin: cannot read the scenario: {exc}\n")
        return 1
    pace_env = os.environ.get("HALL_STANDIN_PACE")
    pace = float(pace_env) if pace_env else (float(scenario_pace) if scenario_pace is not None else 0.05)
    if step.get("sleep"):
        time.sleep(float(step["sleep"]))
    if args.resume and step.get("no_conversation"):
        sys.stderr.write(f"No conversation found with session ID: {args.resume}\n")
        return 1
    stream = Stream(pace, step.get("die_after_lines"))
    if args.resume:
        stream.session_id = args.resume  # with --resume the same session_id is reused
    elif args.session_id:
        stream.session_id = args.session_id  # --session-id names a new session, as the real CLI does
    cwd = Path.cwd()
    started = time.monotonic()
    stream.emit(
        {
            "type": "system",
            "subtype": "init",
            "cwd": str(cwd),
            "session_id": stream.session_id,
            "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"],
            "mcp_servers": [],
            "model": MODEL,
            "permissionMode": args.permission_mode or "default",
            "slash_commands": [],
            "apiKeySource": "none",
            "claude_code_version": VERSION,
            "output_style": "default",
            "agents": [args.agent] if args.agent else [],
            "skills": [],
            "plugins": [{"name": "hallmark", "path": d} for d in args.plugin_dir],
            "uuid": str(uuid.uuid4()),
        }
    )
    model = Model(stream, cwd)
    if args.resume:
        model.say(f"Resumed session {args.resume} with: {prompt}")
    structured = play(model, role, step, prompt)
    duration_ms = int((time.monotonic() - started) * 1000)
    result = _result(step, prompt, model, stream, duration_ms)
    if schema is not None and not step.get("omit_structured_output"):
        if "structured_output" in step:
            structured = step["structured_output"]
        elif structured is None:
            structured = minimal_instance(schema, schema)
        result["structured_output"] = structured
    stream.emit(result)
    return int(step.get("exit_code", 0 if result["subtype"] == "success" else 1))


def _json_schema(given: str) -> dict[str, Any] | str:
    """--json-schema (inline JSON or a file) as Claude Code reads it, or the error it prints."""
    raw = given
    if not raw.lstrip().startswith("{") and Path(raw).is_file():
        raw = Path(raw).read_text(encoding="utf-8")
    try:
        schema = json.loads(raw)
        if not isinstance(schema, dict):
            raise ValueError
    except ValueError:
        return "Error: --json-schema is not a valid JSON Schema\n"
    declared = schema.get("$schema")
    if isinstance(declared, str) and "draft-07" not in declared:  # as Claude Code's Ajv (draft-07) does
        return f'Error: --json-schema is not a valid JSON Schema: no schema with key or ref "{declared}"\n'
    return schema


def _result(step: dict[str, Any], prompt: str, model: Model, stream: Stream, duration_ms: int) -> dict[str, Any]:
    """The run's closing `result` line, as the real CLI writes it (without structured_output)."""
    usage = _usage_numbers(step, prompt, model)
    earlier = step.get("session_usage") or {}
    subtype = step.get("subtype", "success")
    result: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": bool(step.get("is_error", subtype != "success")),  # a limit ends `success`, is_error
        "duration_ms": duration_ms,
        "duration_api_ms": 0,
        "num_turns": max(1, model.turns),
        "stop_reason": "end_turn",
        "session_id": stream.session_id,
        "total_cost_usd": 0,
        "usage": {
            **usage,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
        },
        "modelUsage": {  # a resumed session's is cumulative: the scenario's `session_usage` is the earlier turns
            MODEL: {
                "inputTokens": usage["input_tokens"] + int(earlier.get("input_tokens", 0)),
                "outputTokens": usage["output_tokens"] + int(earlier.get("output_tokens", 0)),
                "cacheReadInputTokens": usage["cache_read_input_tokens"],
                "cacheCreationInputTokens": usage["cache_creation_input_tokens"],
                "webSearchRequests": 0,
                "costUSD": 0,
                "contextWindow": 200000,
                "maxOutputTokens": 64000,
            }
        },
        "permission_denials": list(step.get("permission_denials") or []),  # a scenario's denied tool calls
        "uuid": str(uuid.uuid4()),
    }
    if step.get("api_error_status"):
        result["api_error_status"] = step["api_error_status"]
    if subtype == "success":
        result["result"] = str(step.get("result_text") or "Stand-in run finished (hallmark-standin: no model ran).")
    else:
        result["errors"] = [f"stand-in scenario ended the run with {subtype}"]
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
