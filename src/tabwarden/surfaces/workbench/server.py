"""The workbench: a local web page where a person sees, follows and takes over what the
agent does, live, in every session of this process.

``Workbench`` serves the page (static files shipped in the package: no build, works
offline), a JSON list of sessions, and one WebSocket per open page (viewer.py). It
watches session managers (the MCP server's, the daemon's) and single sessions (the
Python API), of either engine (Chromium and Firefox, through source.py), and reads the
state the tools read: it opens no connection of its own, and asks the browser only for
what it does not already have (frames, while a page watches; thumbnails, while the list
is shown).

Security: bound to 127.0.0.1 by default, with a random token per run in the URL. Every
request passes the MCP HTTP server's Host/Origin rules (DNS rebinding); the page, the
session list and the WebSocket also need the token, and the WebSocket's Origin must be
the workbench's own. Another host needs an explicit ``host`` and keeps the token.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import secrets
import socket
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ...backends.external import is_loopback_host
from ...config import WorkbenchConfig
from ...errors import SessionNotFound, TabwardenError
from ...manager import SessionManager
from ..http_serving import (
    QuietUvicorn,
    check_host_and_origin,
    host_of,
    listen,
    release_socket,
    stop_server,
    url_of,
)
from .consent import ConsentDesk
from .source import WatchedSession
from .viewer import Viewer
from .views import session_summary

__all__ = ["Workbench", "WorkbenchOptions"]

logger = logging.getLogger("tabwarden.workbench")

STATIC = files("tabwarden.surfaces.workbench") / "static"


@dataclass
class WorkbenchOptions:
    """Where the workbench listens and who may open it."""

    host: str = "127.0.0.1"
    """Anything but loopback is an explicit choice: the token still guards every request."""
    port: int = 0
    """0: any free port."""
    token: str | None = None
    """None: a random one for this run."""
    allowed_origins: tuple[str, ...] = ()
    """Browser origins allowed besides the workbench's own (``http://host:*`` for any port)."""

    @classmethod
    def from_config(cls, config: WorkbenchConfig) -> WorkbenchOptions:
        return cls(
            host=config.host, port=config.port, allowed_origins=tuple(config.allowed_origins)
        )


class Workbench:
    """The workbench server; ``async with Workbench() as bench: print(bench.url)``."""

    def __init__(self, options: WorkbenchOptions | None = None) -> None:
        self.options = options or WorkbenchOptions()
        self.token = self.options.token or secrets.token_urlsafe(18)
        self._managers: list[SessionManager] = []
        self._single: list[WatchedSession] = []
        self._viewers: set[Viewer] = set()
        self._numbers = itertools.count(1)
        self.consent = ConsentDesk(self._broadcast, lambda: len(self._viewers))
        """Attach requests waiting for a person's answer (consent.py)."""
        self._server: QuietUvicorn | None = None
        self._serving: asyncio.Task[None] | None = None
        self._socket: socket.socket | None = None
        self.base_url = ""
        """``http://127.0.0.1:port`` once started."""

    async def __aenter__(self) -> Workbench:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def url(self) -> str:
        """The page's address, token included (empty before ``start``)."""
        return f"{self.base_url}/?token={self.token}" if self.base_url else ""

    @property
    def viewers(self) -> int:
        """Pages open now."""
        return len(self._viewers)

    # ---- what it shows ---------------------------------------------------------------

    def watch_manager(self, manager: SessionManager) -> None:
        """Show every session of ``manager``; attach requests without consent are asked
        here (``manager.ask_person``)."""
        if manager not in self._managers:
            self._managers.append(manager)
            manager.on_change.append(self._sessions_changed)
            manager.ask_person = self.consent.ask
            self._sessions_changed()

    def unwatch_manager(self, manager: SessionManager) -> None:
        if manager in self._managers:
            self._managers.remove(manager)
            with contextlib.suppress(ValueError):
                manager.on_change.remove(self._sessions_changed)
            if manager.ask_person == self.consent.ask:
                manager.ask_person = None
            self._sessions_changed()

    def watch_session(self, session: WatchedSession) -> None:
        """Show one session (the Python API's ``launch()``)."""
        if session not in self._single:
            self._single.append(session)
            self._sessions_changed()

    def sessions(self) -> list[WatchedSession]:
        """Every live session shown, managers' first; a name shown once."""
        seen: dict[str, WatchedSession] = {}
        for manager in self._managers:
            sessions: list[WatchedSession] = [*manager.sessions(), *manager.firefox_sessions()]
            for session in sessions:
                seen.setdefault(session.name, session)
        self._single = [s for s in self._single if not s.closed]
        for session in self._single:
            seen.setdefault(session.name, session)
        return list(seen.values())

    def session(self, name: str) -> WatchedSession:
        for session in self.sessions():
            if session.name == name:
                return session
        known = ", ".join(s.name for s in self.sessions()) or "none"
        raise SessionNotFound(f"no open session {name!r} (open: {known})", hint="pick one")

    def _sessions_changed(self) -> None:
        for viewer in list(self._viewers):
            viewer.sessions_changed()

    def _broadcast(self, message: dict[str, Any]) -> None:
        for viewer in list(self._viewers):
            viewer.send(message)

    # ---- serving ---------------------------------------------------------------------

    async def start(self) -> str:
        """Listen (idempotent); returns the page's URL."""
        if self._server is not None:
            return self.url
        options = self.options
        sock = listen(options.host, options.port)
        port = sock.getsockname()[1]
        self.base_url = url_of(options.host, port)
        app = _Guard(
            self._app(),
            bound_host=options.host,
            port=port,
            token=self.token,
            allowed_origins=options.allowed_origins,
        )
        config = uvicorn.Config(
            app,
            lifespan="off",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            ws="websockets-sansio",
            ws_max_size=32 * 1024 * 1024,  # an annotated screenshot comes back as PNG
            timeout_graceful_shutdown=1,
        )
        started = asyncio.get_running_loop().create_future()

        def listening() -> None:
            if not started.done():
                started.set_result(None)

        self._server = QuietUvicorn(config, listening)
        self._socket = sock
        self._serving = asyncio.create_task(
            self._server.serve(sockets=[sock]), name="tabwarden-workbench"
        )
        done, _ = await asyncio.wait({started, self._serving}, return_when=asyncio.FIRST_COMPLETED)
        if started not in done:
            await self.close()
            raise TabwardenError(
                f"the workbench at {self.base_url} did not start",
                hint="see the log; pick another port",
            )
        logger.info("workbench at %s", self.base_url)
        return self.url

    async def close(self) -> None:
        """Close every page's connection and stop listening."""
        for viewer in list(self._viewers):
            await viewer.close()
        for manager in list(self._managers):
            self.unwatch_manager(manager)
        server, serving, sock = self._server, self._serving, self._socket
        self._server = self._serving = self._socket = None
        if server is not None and serving is not None:
            await stop_server(server, serving)
        if sock is not None:
            release_socket(sock, serving)

    def _app(self) -> Starlette:
        static = StaticFiles(directory=Path(str(STATIC)), check_dir=True)
        return Starlette(
            routes=[
                Route("/", self._index),
                Route("/api/sessions", self._api_sessions),
                WebSocketRoute("/ws", self._websocket),
                Mount("/static", app=static),
            ]
        )

    async def _index(self, request: Request) -> Response:
        page = (STATIC / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(
            page,
            headers={
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",  # the token never leaves in a Referer
                "X-Frame-Options": "DENY",
            },
        )

    async def _api_sessions(self, request: Request) -> Response:
        sessions = [s.redactor.redact_value(session_summary(s)) for s in self.sessions()]
        return JSONResponse({"sessions": sessions}, headers={"Cache-Control": "no-store"})

    async def _websocket(self, socket_: WebSocket) -> None:
        viewer = Viewer(self, socket_, next(self._numbers))
        self._viewers.add(viewer)
        try:
            await viewer.run()
        finally:
            self._viewers.discard(viewer)


class _Guard:
    """Host/Origin checks on every request; the token on all but the static files."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        bound_host: str,
        port: int,
        token: str,
        allowed_origins: tuple[str, ...],
    ) -> None:
        self.app = app
        self.bound_host = bound_host
        self.port = port
        self.token = token
        self.allowed_origins = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = self._check(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, reason = refused
        logger.warning("workbench refused %s: %s", scope.get("path"), reason)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        await PlainTextResponse(reason, status_code=status)(scope, receive, send)

    def _check(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        refused = check_host_and_origin(
            headers, bound_host=self.bound_host, allowed_origins=self.allowed_origins
        )
        if refused is not None:
            return refused
        path = str(scope.get("path", ""))
        if scope["type"] == "websocket" and not self._own_origin(headers.get("origin")):
            return 403, f"origin {headers.get('origin')!r} is not the workbench's own"
        if path.startswith("/static/"):
            return None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [""])[0]
        scheme, _, bearer = (headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "bearer":
            given = given or bearer.strip()
        if not given or not hmac.compare_digest(given.encode(), self.token.encode()):
            return 401, "the workbench needs its token: open the URL it printed (?token=…)"
        return None

    def _own_origin(self, origin: str | None) -> bool:
        """A WebSocket must come from the workbench's own page (or an allowed origin)."""
        if origin is None:
            return True  # not a browser: the token alone decides
        parts = urlsplit(origin.strip().lower())
        if parts.hostname is None:
            return False
        ours = is_loopback_host(parts.hostname) or parts.hostname == host_of(self.bound_host)
        if ours and parts.port == self.port:
            return True
        normal = origin.strip().rstrip("/").lower()
        return any(
            normal == allowed.strip().rstrip("/").lower() for allowed in self.allowed_origins
        )
