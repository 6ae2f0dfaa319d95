"""A local HTTP server for tests: static pages from tests/pages plus a few dynamic routes."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

PAGES = Path(__file__).parent / "pages"


_SEEN: set[str] = set()
_SEEN_LOCK = threading.Lock()
_MARKS: set[str] = set()


class _Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "tabwarden-test"

    def __init__(self, *args: object, root: Path = PAGES, **kwargs: object) -> None:
        super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

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
            # ?mark=KEY says the request arrived (see /mark); ?status= answers with that status.
            if "mark" in query:
                with _SEEN_LOCK:
                    _MARKS.add(query["mark"])
            time.sleep(min(float(query.get("ms", "1000")) / 1000, 30))
            self._send(int(query.get("status", "200")), "<title>Slow</title><p>slow</p>")
        elif route[0] == "mark":
            # A page says it got somewhere (a synchronous request: before its next step).
            with _SEEN_LOCK:
                _MARKS.add(query.get("key", ""))
            self._send(200, "marked", headers={"Cache-Control": "no-store"})
        elif route[0] == "marked":
            with _SEEN_LOCK:
                seen = query.get("key", "") in _MARKS
            self._send(200, "yes" if seen else "no", headers={"Cache-Control": "no-store"})
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
            # ?ms= holds the redirect back: a hop that comes well after the first.
            time.sleep(min(float(query.get("ms", "0")) / 1000, 30))
            self.send_response(302)
            self.send_header("Location", query.get("to", "/index.html"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif route[0] == "download" and len(route) == 2:
            self._send_download(unquote(route[1]), query)
        elif route[0] == "diag-body":
            # ?bytes= of text (a counting pattern), or of binary with ?kind=binary
            size = int(query.get("bytes", "100"))
            binary = query.get("kind") == "binary"
            data = (bytes(range(256)) if binary else b"0123456789") * (size // 10 + 1)
            self.send_response(200)
            kind = "application/octet-stream" if binary else "text/plain; charset=utf-8"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(size))
            self.send_header("X-Diagnostics", "body")
            self.end_headers()
            self.wfile.write(data[:size])
        elif route[0] == "once-then-redirect":
            # The first visit (per ?key=) is a page that the browser may not keep in its
            # back/forward cache; every later visit redirects to ?to= (a reload, a back).
            key = query.get("key", "")
            with _SEEN_LOCK:
                first = key not in _SEEN
                _SEEN.add(key)
            if first:
                self._send(
                    200,
                    "<title>Once</title><p>first visit</p>",
                    headers={"Cache-Control": "no-store"},
                )
            else:
                self.send_response(302)
                self.send_header("Location", query.get("to", "/index.html"))
                self.send_header("Content-Length", "0")
                self.end_headers()
        elif route[0] == "policy-asset":
            # A subresource that works when it loads: ?kind=svg (an image) or js (a script).
            body, kind = {
                "svg": (
                    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"></svg>',
                    "image/svg+xml",
                ),
                "js": ("window.policyScript = 'ran';", "text/javascript"),
            }[query.get("kind", "svg")]
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(data)
        elif route[0] == "state-headers":
            # What the browser sent: its user agent, languages and cookies, as JSON.
            import json

            seen = {k: self.headers.get(k, "") for k in ("User-Agent", "Accept-Language", "Cookie")}
            data = json.dumps(seen).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)
        else:
            super().do_GET()

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        if parts.path.strip("/") == "slow":
            # A form's request: the body is read and dropped, then answered like GET /slow.
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.do_GET()
        else:
            self.send_error(HTTPStatus.NOT_IMPLEMENTED)

    def _send_download(self, name: str, query: dict[str, str]) -> None:
        """An attachment: ``?body=`` text, ``exe`` (an MZ header), ``sh`` (a shebang);
        ``?drop=1`` promises more bytes than it sends and closes the connection;
        ``?slow_ms=`` dribbles the body out over that long."""
        kind = query.get("body", "text")
        data = {
            "exe": b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 248 + b"This program cannot be run",
            "sh": b"#!/bin/sh\necho hello\n",
        }.get(kind, f"notes for {name}\n".encode() * 20)
        if query.get("slow_ms"):
            data = data * 200
        promised = len(data) * 10 if query.get("drop") else len(data)
        self.send_response(200)
        self.send_header("Content-Type", query.get("type", "application/octet-stream"))
        self.send_header("Content-Disposition", f'attachment; filename="{name}"')
        self.send_header("Content-Length", str(promised))
        self.end_headers()
        if query.get("drop"):
            self.wfile.write(data)
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)  # the server goes away mid-download
            return
        chunks = 20 if query.get("slow_ms") else 1
        step = -(-len(data) // chunks)
        pause = float(query.get("slow_ms", "0")) / 1000 / chunks
        try:
            for start in range(0, len(data), step):
                self.wfile.write(data[start : start + step])
                self.wfile.flush()
                if pause:
                    time.sleep(pause)  # a slow server, not test synchronisation
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser canceled the download

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
    """Serves on ``host`` at a port the OS picks, in a daemon thread; static files come
    from ``root`` (tests/pages unless told)."""

    def __init__(self, host: str = "127.0.0.1", *, root: Path = PAGES) -> None:
        self._server = _QuietServer((host, 0), functools.partial(_Handler, root=root))
        self.host = host
        self.port = self._server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str = "/") -> str:
        return self.base + (path if path.startswith("/") else "/" + path)

    def marked(self, key: str) -> bool:
        """Whether a page requested ``/mark?key=<key>`` (of any of the servers)."""
        with _SEEN_LOCK:
            return key in _MARKS

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
