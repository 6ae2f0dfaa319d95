"""A local HTTP server for tests: static pages from tests/pages plus a few dynamic routes."""

from __future__ import annotations

import http.server
import threading
import time
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).parent / "pages"


class _Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "tabwarden-test"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)  # type: ignore[arg-type]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        route = parts.path.strip("/").split("/")
        if route[0] == "status" and len(route) == 2 and route[1].isdigit():
            self._send(int(route[1]), f"<title>Status {route[1]}</title><p>status {route[1]}</p>")
        elif route[0] == "empty-status" and len(route) == 2:
            self.send_response(int(route[1]))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif route[0] == "slow":
            # Holds the response: for deadlines and for killing the browser mid-load.
            time.sleep(min(float(query.get("ms", "1000")) / 1000, 30))
            self._send(200, "<title>Slow</title><p>slow</p>")
        elif route[0] == "set-cookie":
            name, value = query.get("name", "c"), query.get("value", "1")
            self._send(
                200,
                "<title>Cookie set</title>",
                headers={"Set-Cookie": f"{name}={value}; Path=/; Max-Age=3600"},
            )
        elif route[0] == "cookies":
            cookie = self.headers.get("Cookie", "")
            self._send(200, f"<title>{cookie or 'no cookies'}</title><p id=c>{cookie}</p>")
        elif route[0] == "redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", "/index.html"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            super().do_GET()

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(
            status, HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
        )
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A browser that gave up on a slow response (a test's deadline) closes
        # the socket under us: expected, not worth a traceback.
        pass


class LocalServer:
    """Serves on ``host`` at a port the OS picks, in a daemon thread."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._server = _QuietServer((host, 0), _Handler)
        self.host = host
        self.port = self._server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str = "/") -> str:
        return self.base + (path if path.startswith("/") else "/" + path)

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
