"""A stand-in for a Selenium Grid's HTTP side, for tests without a browser: it records the
requests it gets and answers each path with what the test set."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any


class FakeGrid:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.answers: dict[tuple[str, str], tuple[int, Any]] = {}
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                fake.requests.append((self.command, self.path))
                status, body = fake.answers.get((self.command, self.path), (404, None))
                data = json.dumps({"value": body}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _answer

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeGrid:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
