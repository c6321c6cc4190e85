"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat completions shape, for tests.

Each test scripts the answers (``ChatServer.answers``); the server records every
request body and header it receives.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """What the server sends back: a status, a summary text, a finish reason, a delay."""

    content: str | None = "## Task\n- summarized"
    status: int = 200
    finish_reason: str = "stop"
    delay_s: float = 0.0
    raw: str | None = None


@dataclass
class ChatServer:
    """The running server: its URL, the scripted answers and what it received."""

    base_url: str = ""
    answers: list[Answer] = field(default_factory=list)
    default: Answer = field(default_factory=Answer)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def next_answer(self) -> Answer:
        return self.answers.pop(0) if self.answers else self.default


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            server.requests.append(body)
            server.headers.append(dict(self.headers))
            answer = server.next_answer()
            if answer.delay_s:
                time.sleep(answer.delay_s)
            if answer.raw is not None:
                payload = answer.raw.encode()
            elif answer.status >= 400:
                payload = json.dumps({"error": {"message": "upstream is down"}}).encode()
            else:
                message = {"role": "assistant", "content": answer.content}
                choice = {"index": 0, "message": message, "finish_reason": answer.finish_reason}
                payload = json.dumps({"id": "x", "object": "chat.completion", "choices": [choice]})
                payload = payload.encode() if isinstance(payload, str) else payload
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def chat_server() -> Iterator[ChatServer]:
    """Serve on an ephemeral port of 127.0.0.1 until the block ends."""
    state = ChatServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
