"""Serving HTTP on this machine, shared by the MCP server and the workbench: one listening
socket bound before uvicorn starts (so the port is known at once, 0 picks a free one),
uvicorn without its signal handlers (the caller owns the process's signals), a bounded
stop, and the Host/Origin rules against DNS rebinding."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

import anyio
import uvicorn

from ..backends.external import is_loopback_host
from ..errors import TabwardenError

__all__ = [
    "STOP_S",
    "QuietUvicorn",
    "check_host_and_origin",
    "host_allowed",
    "host_of",
    "is_ip",
    "listen",
    "origin_allowed",
    "release_socket",
    "stop_server",
    "url_of",
]

logger = logging.getLogger("tabwarden.http")

STOP_S = 10.0
"""Bound on a graceful HTTP shutdown (open streams, then closing the browsers)."""


def check_host_and_origin(
    headers: Mapping[str, str], *, bound_host: str, allowed_origins: Iterable[str] = ()
) -> tuple[int, str] | None:
    """Why a request is refused, as (status, reason); None when it may pass.

    DNS rebinding: the Host must be a loopback name or address, the bound host, or
    (when listening on every interface) an IP address; an Origin, when sent, must be
    a loopback origin or an allowed one.
    """
    host = headers.get("host")
    if not host or not host_allowed(host_of(host), bound_host):
        return 403, f"host {host!r} is not allowed (DNS rebinding protection)"
    origin = headers.get("origin")
    if origin is not None and not origin_allowed(origin, allowed_origins):
        return 403, f"origin {origin!r} is not allowed"
    return None


def url_of(host: str, port: int, path: str = "") -> str:
    """``http://host:port/path``, with an IPv6 host in brackets."""
    host = host.strip("[]")
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def host_of(header: str) -> str:
    """The host of a Host header (``[::1]:8000`` → ``::1``), lowercased."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def host_allowed(host: str, bound_host: str) -> bool:
    bound = bound_host.strip("[]").lower()
    if is_loopback_host(host) or host == bound:
        return True
    # Listening everywhere: an address typed as such cannot be a rebound DNS name.
    return bound in ("0.0.0.0", "::", "") and is_ip(host)


def origin_allowed(origin: str, allowed: Iterable[str]) -> bool:
    normal = origin.strip().rstrip("/").lower()
    parts = urlsplit(normal)
    if parts.scheme in ("http", "https") and parts.hostname and is_loopback_host(parts.hostname):
        return True
    for pattern in allowed:
        pattern = pattern.strip().rstrip("/").lower()
        if normal == pattern:
            return True
        if pattern.endswith(":*") and normal.startswith(pattern[:-1]):
            port = normal[len(pattern) - 1 :]
            if port.isdigit():
                return True
    return False


class QuietUvicorn(uvicorn.Server):
    """Uvicorn that leaves signals to its caller and says when it listens."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            self._on_started()


def listen(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(128)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
    except OSError as exc:
        raise TabwardenError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            hint="pick another port, or 0 for any free one",
        ) from None
    return sock


def release_socket(sock: socket.socket, serving: asyncio.Task[None] | None) -> None:
    """Close the listening socket once uvicorn no longer serves on it.

    Closed while the event loop still watches it, its descriptor would leave the epoll
    set but not the loop's own map: the next server given that descriptor number would
    be registered in the map only, and never accept a connection.
    """
    if serving is None or serving.done():
        sock.close()
        return

    def stopped(task: asyncio.Task[None]) -> None:
        sock.close()
        if not task.cancelled() and task.exception() is not None:
            logger.debug("the HTTP server stopped late: %r", task.exception())

    serving.add_done_callback(stopped)


async def stop_server(web: uvicorn.Server, serving: asyncio.Task[None]) -> None:
    """Wait for uvicorn to stop (bounded), even while being cancelled again."""
    web.should_exit = True
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_S
    cancelled = False
    while not serving.done() and loop.time() < deadline:
        try:
            with anyio.CancelScope(shield=True):
                await asyncio.wait({serving}, timeout=deadline - loop.time())
        except asyncio.CancelledError:
            cancelled = True  # already stopping: finish that first (bounded)
    if not serving.done():
        web.force_exit = True
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({serving}, timeout=1.0)
    if cancelled:
        raise asyncio.CancelledError
    if serving.done() and not serving.cancelled():
        serving.result()
