"""DemoSite: the bundled demo pages on a local, threaded HTTP server.

::

    with DemoSite() as site:
        print(site.url("products.html"))   # http://127.0.0.1:<port>/products.html

The OS picks a free port on 127.0.0.1; the server runs on a daemon thread and
logs nothing. Besides the files in ``site/``, ``/status/<code>`` answers with
that HTTP status and a small HTML page (``/status/404``, ``/status/500``…).
"""

from __future__ import annotations

import html
import re
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["SITE_DIR", "DemoSite"]

SITE_DIR = Path(__file__).resolve().parent / "site"
"""The folder of static pages the demo site serves."""

_STATUS_ROUTE = re.compile(r"^/status/(\d{3})/?(?:[?#].*)?$")
_NO_BODY = frozenset({204, 205, 304})


class _Handler(SimpleHTTPRequestHandler):
    """Static files from ``SITE_DIR`` plus the ``/status/<code>`` route; silent."""

    server_version = "tabwarden-demo"
    sys_version = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(SITE_DIR), **kwargs)

    def do_GET(self) -> None:
        if not self._status_route(head=False):
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._status_route(head=True):
            super().do_HEAD()

    def end_headers(self) -> None:
        # Every load reaches the server: a reload is a real reload.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _status_route(self, *, head: bool) -> bool:
        match = _STATUS_ROUTE.match(self.path)
        if match is None:
            return False
        code = int(match[1])
        if not 200 <= code <= 599:
            code = 400
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Unknown status"
        self.send_response(code, phrase)
        if code in _NO_BODY:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        title = html.escape(f"{code} {phrase}")
        body = (
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<title>{title}</title><link rel="icon" href="data:,"></head>\n'
            f"<body><h1>{title}</h1><p>The demo server answered this page with "
            f'status {code}.</p><p><a href="/">Home</a></p></body></html>\n'
        ).encode()
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)
        return True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a browser dropping a connection is not worth a traceback


class DemoSite:
    """Serves the demo pages on ``127.0.0.1`` (port chosen by the OS) from a daemon thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> DemoSite:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.base_url if self._server is not None else "stopped"
        return f"<DemoSite {state}>"

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/`` while running."""
        if self._server is None:
            raise RuntimeError("the demo site is not running; call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def url(self, path: str = "") -> str:
        """The URL of a page of the site, e.g. ``url("products.html")``."""
        return self.base_url + path.lstrip("/")

    def start(self) -> str:
        """Start serving (idempotent) and return the base URL."""
        if self._server is None:
            server = _Server((self.host, self.port), _Handler)
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.1},
                name="tabwarden-demo-site",
                daemon=True,
            )
            thread.start()
            self._server, self._thread = server, thread
        return self.base_url

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)
