"""A real WebSocket proxy in front of a browser's CDP socket, for cases a browser alone cannot make.

It stands in for what sits between an agent and a remote browser in the real
world: a cloud browser backend's CDP gateway. Such gateways relay CDP frames
both ways, answer ``GET /json/version`` themselves, drop sockets (network
blips, gateway restarts) and some auto-dismiss native JavaScript dialogs
(``alert``/``confirm``/``prompt``) shortly after the page opens them, so a
headless page never hangs on one. Pointing tabwarden at this proxy, instead of
at the browser, reproduces those cases with a real Chromium behind it.

It is plain code on real sockets, not a mock: clients speak WebSocket to it, it
speaks WebSocket to the browser, and the frames are the browser's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import urllib.request
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

__all__ = ["OWN_ID_BASE", "CDPProxy"]

OWN_ID_BASE = 2_000_000_000
"""Ids of commands the proxy itself sends upstream start here (far above any client's)."""

_CLOSE_TIMEOUT_S = 2.0
"""How long a close handshake may take before the socket is simply dropped."""

_OPEN_TIMEOUT_S = 10.0

# Close codes that describe a closure but may not be sent in a close frame (RFC 6455 7.4.1).
_UNSENDABLE = {CloseCode.NO_STATUS_RCVD, CloseCode.ABNORMAL_CLOSURE, CloseCode.TLS_HANDSHAKE}


@dataclass(eq=False)
class _Link:
    """One client connection and the upstream connection opened for it."""

    client: ServerConnection
    upstream: ClientConnection | None = None
    own_ids: set[int] = field(default_factory=set)
    """Ids of the proxy's own commands on this link whose replies are still due."""
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the link's handler has closed both sides and returned."""

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class CDPProxy:
    """Relays CDP between clients and the browser at ``upstream_ws_url``.

    ``start()`` returns the browser WebSocket URL to give clients; the same port
    answers ``GET /json/version``, so ``tabwarden.attach("http://127.0.0.1:<port>")``
    works. Each client gets its own upstream connection; when either side
    closes, the other is closed too.

    With ``auto_dismiss_dialogs`` the proxy answers every JavaScript dialog the
    way auto-dismissing cloud backends do: it forwards
    ``Page.javascriptDialogOpening`` to the client, then ``dismiss_delay_s``
    later sends ``Page.handleJavaScriptDialog`` upstream itself (dismiss;
    ``beforeunload`` is accepted, so the page can leave) and swallows the reply.

    With ``keep_browser`` the proxy answers ``Browser.close`` itself and closes that
    client's link, as a gateway that hands each client a browser of its own does: the
    browser behind it (shared by the tests of a module) keeps running. ``browser_closes``
    counts them.

    Counters: ``connections`` (clients accepted), ``messages_up`` (client to
    browser), ``messages_down`` (browser to client; the proxy's own traffic is
    not counted), ``dismissed`` (``(type, message)`` per dialog it dismissed) and
    ``dismiss_errors`` (error replies to its dismissals, e.g. when the client
    answered the dialog first).
    """

    def __init__(
        self,
        upstream_ws_url: str,
        *,
        auto_dismiss_dialogs: bool = False,
        dismiss_delay_s: float = 0.005,
        keep_browser: bool = False,
    ) -> None:
        parts = urlsplit(upstream_ws_url)
        if parts.scheme not in ("ws", "wss") or not parts.netloc:
            raise ValueError(f"{upstream_ws_url!r} is not a ws:// browser URL")
        self.upstream_ws_url = upstream_ws_url
        self.auto_dismiss_dialogs = auto_dismiss_dialogs
        self.dismiss_delay_s = dismiss_delay_s
        self.keep_browser = keep_browser
        self.browser_closes = 0
        self.port: int | None = None
        """The listening port, kept across ``stop()`` so ``restart()`` reuses it."""
        self.connections = 0
        self.messages_up = 0
        self.messages_down = 0
        self.dismissed: list[tuple[str, str]] = []
        self.dismiss_errors: list[dict[str, Any]] = []
        self._server: Server | None = None
        self._links: set[_Link] = set()
        self._ids = itertools.count(OWN_ID_BASE)
        self._version: dict[str, str] = {}

    # ---- life ----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def ws_url(self) -> str:
        """The browser WebSocket URL clients should use (valid once started)."""
        if self.port is None:
            raise RuntimeError("the proxy has not been started")
        path = urlsplit(self.upstream_ws_url).path
        return f"ws://127.0.0.1:{self.port}{path}"

    @property
    def http_url(self) -> str:
        """The DevTools HTTP endpoint of the proxy, for ``tabwarden.attach``."""
        if self.port is None:
            raise RuntimeError("the proxy has not been started")
        return f"http://127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> str:
        """Listen on 127.0.0.1:``port`` (0: the OS picks) and return the proxy's browser URL."""
        if self._server is not None:
            raise RuntimeError(f"the proxy already listens on port {self.port}")
        if not self._version:
            self._version = await asyncio.to_thread(self._upstream_version)
        self._server = await serve(
            self._handle,
            "127.0.0.1",
            port,
            process_request=self._process_request,
            max_size=None,
            compression=None,
            # The proxy must not drop a quiet client on its own: only the tests do that.
            ping_interval=None,
            close_timeout=_CLOSE_TIMEOUT_S,
        )
        # asyncio's create_server sets SO_REUSEADDR, so a restart can bind the same
        # port again although connections of the previous run linger in TIME_WAIT.
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.ws_url

    async def stop(self) -> None:
        """Stop listening and close every client and upstream connection (idempotent)."""
        server, self._server = self._server, None
        if server is None:
            return
        # Closes the listening socket, closes each client with 1001 (going away)
        # and waits for the handlers, which close the upstream sides on the way out.
        server.close()
        await server.wait_closed()

    async def restart(self) -> str:
        """Stop if running, then listen again on the same port; returns the same URL."""
        if self.port is None:
            raise RuntimeError("restart() needs a proxy that was started before")
        await self.stop()
        return await self.start(self.port)

    async def drop_clients(self) -> None:
        """Cut every current client socket (no close handshake), keep listening.

        What a client sees when the network between it and the gateway fails.
        Returns once each dropped link has also closed its upstream connection.
        """
        links = list(self._links)
        for link in links:
            link.client.transport.abort()
        # Bounded: each handler needs at most one close handshake with the browser.
        async with asyncio.timeout(_OPEN_TIMEOUT_S + 2 * _CLOSE_TIMEOUT_S):
            for link in links:
                await link.done.wait()

    # ---- HTTP ----------------------------------------------------------------------

    def _upstream_version(self) -> dict[str, str]:
        """``Browser`` and ``Protocol-Version`` from the browser's own ``/json/version``.

        A browser reached by a ws:// URL may have no HTTP endpoint (a gateway that
        only relays the socket): then the proxy names itself, as gateways do.
        """
        parts = urlsplit(self.upstream_ws_url)
        scheme = "https" if parts.scheme == "wss" else "http"
        url = urlunsplit((scheme, parts.netloc, "/json/version", "", ""))
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(url, timeout=5) as response:
                info = json.loads(response.read(1_000_000))
            return {
                "Browser": str(info["Browser"]),
                "Protocol-Version": str(info["Protocol-Version"]),
            }
        except (OSError, ValueError, KeyError, TypeError):
            return {"Browser": "CDPProxy", "Protocol-Version": "1.3"}

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer ``GET /json/version`` as plain HTTP; let everything else upgrade."""
        if urlsplit(request.path).path.rstrip("/") != "/json/version":
            return None  # a WebSocket handshake (or a bad request websockets rejects)
        body = {**self._version, "webSocketDebuggerUrl": self.ws_url}
        response = connection.respond(HTTPStatus.OK, json.dumps(body, indent=2) + "\n")
        # respond() makes a text/plain response; the DevTools endpoint serves JSON.
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "application/json; charset=UTF-8"
        return response

    # ---- relaying ------------------------------------------------------------------

    def _upstream_for(self, client_path: str) -> str:
        """The browser URL for a client: the browser's host, the path the client asked for.

        Clients normally ask for the browser path; a ``/devtools/page/<id>`` path
        reaches that page's socket on the browser, as it would without the proxy.
        """
        parts = urlsplit(self.upstream_ws_url)
        return urlunsplit((parts.scheme, parts.netloc, client_path, "", ""))

    async def _handle(self, client: ServerConnection) -> None:
        self.connections += 1
        link = _Link(client)
        self._links.add(link)
        try:
            try:
                link.upstream = await connect(
                    self._upstream_for(client.request.path if client.request else "/"),
                    max_size=None,
                    ping_interval=None,
                    compression=None,
                    proxy=None,
                    open_timeout=_OPEN_TIMEOUT_S,
                    close_timeout=_CLOSE_TIMEOUT_S,
                )
            except (OSError, TimeoutError, InvalidHandshake) as exc:
                await client.close(CloseCode.TRY_AGAIN_LATER, f"upstream unreachable: {exc}"[:100])
                return
            up = asyncio.create_task(self._pump_up(link.client, link.upstream))
            down = asyncio.create_task(self._pump_down(link, link.upstream))
            try:
                # Whichever side closes first ends the link.
                await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (up, down, *link.tasks):
                    task.cancel()
                await asyncio.gather(up, down, *link.tasks, return_exceptions=True)
                await self._close_both(link)
        finally:
            self._links.discard(link)
            link.done.set()

    async def _close_both(self, link: _Link) -> None:
        """Close each side with the code the other side closed with (when it may be sent)."""
        upstream = link.upstream
        assert upstream is not None
        client = link.client
        if upstream.close_code is not None and client.close_code is None:
            code, reason = _relayed(upstream)
            await client.close(code, reason)
        elif client.close_code is not None and upstream.close_code is None:
            code, reason = _relayed(client)
            await upstream.close(code, reason)
        await asyncio.gather(client.close(), upstream.close())

    async def _pump_up(self, client: ServerConnection, upstream: ClientConnection) -> None:
        """Client to browser, frame for frame: client ids pass through untouched."""
        with contextlib.suppress(ConnectionClosed):
            async for message in client:
                if self.keep_browser and _is_browser_close(message):
                    self.browser_closes += 1
                    command_id = json.loads(message).get("id")
                    await client.send(json.dumps({"id": command_id, "result": {}}))
                    await client.close()
                    return
                await upstream.send(message)
                self.messages_up += 1

    async def _pump_down(self, link: _Link, upstream: ClientConnection) -> None:
        """Browser to client; spots dialogs and swallows replies to the proxy's own commands."""
        with contextlib.suppress(ConnectionClosed):
            async for message in upstream:
                data = self._inspect(link, message)
                if data is not None and data.get("id") in link.own_ids:
                    link.own_ids.discard(data["id"])
                    if "error" in data:
                        self.dismiss_errors.append(data["error"])
                    continue  # the client never sent this command: it must not see the reply
                await link.client.send(message)
                self.messages_down += 1
                if data is not None and data.get("method") == "Page.javascriptDialogOpening":
                    # Forwarded first, answered later: the client sees the dialog open
                    # (and then close), as it would behind an auto-dismissing backend.
                    params = data.get("params", {})
                    link.spawn(
                        self._dismiss(
                            link,
                            upstream,
                            data.get("sessionId"),
                            str(params.get("type", "")),
                            str(params.get("message", "")),
                        )
                    )

    def _inspect(self, link: _Link, message: str | bytes) -> dict[str, Any] | None:
        """The decoded frame when the proxy has to act on it, else None (relayed blindly).

        Only frames that can matter are decoded: a dialog event, or any frame while
        a reply to one of the proxy's own commands is due.
        """
        if not self.auto_dismiss_dialogs or not isinstance(message, str):
            return None
        if not link.own_ids and "Page.javascriptDialogOpening" not in message:
            return None
        try:
            data = json.loads(message)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def _dismiss(
        self,
        link: _Link,
        upstream: ClientConnection,
        session_id: str | None,
        dialog_type: str,
        message: str,
    ) -> None:
        # The delay is the behaviour being simulated (backends answer a beat
        # after the dialog opens), not a wait for anything.
        await asyncio.sleep(self.dismiss_delay_s)
        command_id = next(self._ids)
        params: dict[str, Any] = {"accept": dialog_type == "beforeunload"}
        if dialog_type == "prompt":
            params["promptText"] = ""
        command: dict[str, Any] = {
            "id": command_id,
            "method": "Page.handleJavaScriptDialog",
            "params": params,
        }
        if session_id is not None:
            command["sessionId"] = session_id  # flatten mode: the page's session
        link.own_ids.add(command_id)
        try:
            await upstream.send(json.dumps(command))
        except ConnectionClosed:
            link.own_ids.discard(command_id)
            return
        self.dismissed.append((dialog_type, message))


def _is_browser_close(message: str | bytes) -> bool:
    if not isinstance(message, str) or '"Browser.close"' not in message:
        return False
    try:
        data = json.loads(message)
    except ValueError:
        return False
    return (
        isinstance(data, dict) and data.get("method") == "Browser.close" and "sessionId" not in data
    )


def _relayed(closed: ServerConnection | ClientConnection) -> tuple[int, str]:
    """A close code and reason to pass on to the other side of a link."""
    code = closed.close_code
    if code == CloseCode.NO_STATUS_RCVD:
        return CloseCode.NORMAL_CLOSURE, ""
    if code is None or code in _UNSENDABLE:
        return CloseCode.INTERNAL_ERROR, "the other side of the proxy went away"
    return code, closed.close_reason or ""
