"""Scripted services on 127.0.0.1 that implement each publish API the notify channels call, and
record every request exactly as it arrived (method, path, headers, body):

- ntfy: `POST /<topic>`; the message is the body, Title/Priority/Tags are headers; answers the
  message's JSON as ntfy does (`{"id", "time", "event": "message", "topic", "message", …}`);
- Telegram: `POST /bot<token>/sendMessage` with a JSON body `{chat_id, text}`; answers
  `{"ok": true, "result": {…}}`, or 401 `{"ok": false, "error_code": 401, "description": "Unauthorized"}`
  for another token, and 400 without chat_id or text;
- Slack incoming webhook: `POST /services/T…/B…/…` with `{"text"}`; answers `ok` (text/plain), or
  400 `invalid_payload`.

`fail` makes every path answer that status (500: the service is broken); `stop()` takes it down.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

TELEGRAM_TOKEN = "123456:ABC-scripted"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Services:
    server: ThreadingHTTPServer
    seen: list[Seen] = field(default_factory=list)
    fail: int | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def on(self, prefix: str) -> list[Seen]:
        return [s for s in self.seen if s.path.startswith(prefix)]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(services: Services) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            services.seen.append(Seen("POST", self.path, {k: v for k, v in self.headers.items()}, body))
            if services.fail:
                return self._answer(services.fail, b'{"error":"scripted failure"}')
            if self.path.startswith("/bot"):
                return self._telegram(body)
            if self.path.startswith("/services/"):
                ok = _json(body).get("text")
                return self._answer(200 if ok else 400, b"ok" if ok else b"invalid_payload", "text/plain")
            topic = self.path.strip("/")
            reply = {"id": "x1", "time": int(time.time()), "event": "message", "topic": topic}
            reply["message"] = body.decode()
            return self._answer(200, json.dumps(reply).encode())

        def _telegram(self, body: bytes) -> None:
            token, _, method = self.path[4:].partition("/")
            if token != TELEGRAM_TOKEN:
                return self._answer(401, b'{"ok":false,"error_code":401,"description":"Unauthorized"}')
            data = _json(body)
            if method != "sendMessage" or not data.get("chat_id") or not data.get("text"):
                return self._answer(400, b'{"ok":false,"error_code":400,"description":"Bad Request"}')
            result = {"message_id": len(services.seen), "chat": {"id": data["chat_id"]}, "text": data["text"]}
            return self._answer(200, json.dumps({"ok": True, "result": result}).encode())

    return Handler


def _json(body: bytes) -> dict:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@pytest.fixture
def services():
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    found = Services(server)
    server.RequestHandlerClass = _handler(found)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield found
    with contextlib.suppress(OSError):
        found.stop()


def user_config(text: str) -> Path:
    """Write the user's config.toml (the isolated data dir every test has)."""
    import os

    path = Path(os.environ["HALLMARK_DATA_DIR"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def phone_config(url: str, *, extra: str = "", channels: str = '["ntfy", "telegram", "slack"]') -> Path:
    return user_config(
        f'[notify]\nchannels = {channels}\ntimeout = "2s"\n{extra}\n'
        f'[notify.ntfy]\nserver = "{url}"\ntopic = "hallmark-t0pic"\n'
        f'[notify.telegram]\napi = "{url}"\ntoken = "{TELEGRAM_TOKEN}"\nchat_id = "42"\n'
        f'[notify.slack]\nwebhook = "{url}/services/T000/B000/XXXX"\n'
    )
