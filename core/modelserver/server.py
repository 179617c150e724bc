"""The HTTP side: a loopback-only server answering the Messages API from a Script.

`POST /v1/messages` (streaming SSE or one JSON body), `POST /v1/messages/count_tokens`, and a 404
for anything else. Every request is recorded (`received`) so a test can assert what Claude Code
sent: the system prompt, the SessionStart context in the first user message, the tools offered.
"""

from __future__ import annotations

import itertools
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .script import ERROR_TYPES, Script, Turn, conversation_key, system_text

LOOPBACK = "127.0.0.1"
MODEL = "claude-scripted-1"


@dataclass
class Received:
    """One request Claude Code sent, and what the script answered."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    role: str = ""
    status: int = 200
    answer: dict[str, Any] = field(default_factory=dict)

    @property
    def system(self) -> str:
        return system_text(self.body)

    @property
    def tool_names(self) -> list[str]:
        return [str(t.get("name")) for t in self.body.get("tools") or [] if isinstance(t, dict)]

    def user_text(self) -> str:
        """Every text the user side of the conversation holds (prompt, hook context, tool results)."""
        parts: list[str] = []
        for message in self.body.get("messages") or []:
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            parts.extend(_texts(message.get("content")))
        return "\n".join(parts)


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    yield block["text"]
                if "content" in block:
                    yield from _texts(block["content"])


def estimate_tokens(body: dict[str, Any]) -> int:
    """A stable stand-in for the tokenizer: about four characters a token."""
    return max(1, len(json.dumps(body.get("messages", []))) // 4 + len(system_text(body)) // 4)


class ModelServer:
    """Start with `with ModelServer(script) as server:`; `server.url` goes into ANTHROPIC_BASE_URL."""

    def __init__(self, script: Script | None = None, *, host: str = LOOPBACK, model: str = MODEL) -> None:
        if host not in (LOOPBACK, "localhost", "::1"):
            raise ValueError("the scripted model server binds the loopback address only")
        self.script = script or Script()
        self.model = model
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer((host, 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=10)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests(self, role: str | None = None) -> list[Received]:
        """The message requests received (count_tokens and the like left out), optionally of one role."""
        with self._lock:
            found = [r for r in self.received if r.path.split("?")[0] == "/v1/messages"]
        return [r for r in found if role is None or r.role == role]

    def env(self) -> dict[str, str]:
        return claude_env(self.url)

    # -- answering ------------------------------------------------------------------------------

    def record(self, entry: Received) -> None:
        with self._lock:
            self.received.append(entry)

    def message_id(self) -> str:
        return f"msg_scripted_{next(self._ids):06d}_{uuid.uuid4().hex[:8]}"

    def answer(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[str, Turn]:
        role = self.script.classify(body)
        turn = self.script.next_turn(role, conversation_key(body, headers))
        return role, turn or Turn(text=self.script.default_text)

    def message(self, turn: Turn, body: dict[str, Any]) -> dict[str, Any]:
        """The complete assistant message for a turn (the non-streaming answer, and what SSE spells out)."""
        content: list[dict[str, Any]] = []
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        content.extend(
            {
                "type": "tool_use",
                "id": f"toolu_scripted_{uuid.uuid4().hex[:16]}",
                "name": tool["name"],
                "input": tool.get("input", {}),
            }
            for tool in turn.tools
        )
        if not content:
            content.append({"type": "text", "text": self.script.default_text})
        usage = turn.full_usage()
        if "input_tokens" not in turn.usage:
            usage["input_tokens"] = estimate_tokens(body)
        return {
            "id": self.message_id(),
            "type": "message",
            "role": "assistant",
            "model": turn.model or str(body.get("model") or self.model),
            "content": content,
            "stop_reason": "tool_use" if turn.tools else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }


def claude_env(url: str) -> dict[str, str]:
    """The environment that points the real `claude` at a scripted model server."""
    return {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-scripted-model-000",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def sse_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Messages API's streaming events for one complete message."""
    usage = message["usage"]
    start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            text = block["text"]
            for cut in range(0, max(len(text), 1), 200):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": text[cut : cut + 200]},
                    },
                )
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                },
            )
            raw = json.dumps(block["input"])
            for cut in range(0, max(len(raw), 1), 200):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": raw[cut : cut + 200]},
                    },
                )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def error_body(turn: Turn) -> dict[str, Any]:
    status = turn.error or 500
    kind = ERROR_TYPES.get(status, "api_error")
    default = {
        429: "Number of request tokens has exceeded your rate limit.",
        529: "Overloaded",
        500: "Internal server error",
    }.get(status, kind)
    return {
        "type": "error",
        "error": {"type": kind, "message": turn.error_message or default},
        "request_id": f"req_scripted_{uuid.uuid4().hex[:12]}",
    }


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the record is the log
            pass

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                data = json.loads(raw) if raw else {}
            except ValueError:
                data = {"_unparsed": raw.decode("utf-8", "replace")}
            return data if isinstance(data, dict) else {"_body": data}

        def _json(self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.send_header("request-id", f"req_scripted_{uuid.uuid4().hex[:12]}")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            server.record(Received(self.path, _lower(self.headers), {}, status=404))
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            headers = _lower(self.headers)
            body = self._body()
            path = self.path.split("?")[0]
            entry = Received(self.path, headers, body)
            if path == "/v1/messages/count_tokens":
                entry.answer = {"input_tokens": estimate_tokens(body)}
                server.record(entry)
                self._json(200, entry.answer)
                return
            if path != "/v1/messages":
                entry.status = 404
                server.record(entry)
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
                return
            entry.role, turn = server.answer(body, headers)
            if turn.error is not None:
                entry.status, entry.answer = turn.error, error_body(turn)
                server.record(entry)
                self._json(turn.error, entry.answer, turn.headers)
                return
            message = server.message(turn, body)
            entry.answer = message
            server.record(entry)
            if not body.get("stream"):
                self._json(200, message, turn.headers)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", f"req_scripted_{uuid.uuid4().hex[:12]}")
            for name, value in turn.headers.items():
                self.send_header(name, value)
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            for event, data in sse_events(message):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

    return Handler


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}
