"""The attach backend: reach a browser that is already running, by its CDP endpoint.

Attaching never launches or kills anything. Before connecting it asks a consent
hook, so a policy can refuse a real, signed-in browser unless the user said yes.
"""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from ..budget import Budget
from ..errors import ConsentRequired, EndpointError, InvalidArgument
from .base import Endpoint

__all__ = [
    "AttachRequest",
    "CDPEndpoint",
    "ConsentCheck",
    "is_loopback_host",
    "resolve_endpoint",
]


@dataclass(frozen=True, slots=True)
class AttachRequest:
    """What a consent check is shown before tabwarden attaches to a browser."""

    cdp_url: str
    ws_url: str
    product: str
    is_loopback: bool


ConsentCheck = Callable[[AttachRequest], "bool | Awaitable[bool]"]
"""Returns True to allow the attach; False refuses it with ConsentRequired."""


class CDPEndpoint:
    """Attach to ``http://host:port`` (DevTools HTTP endpoint) or a ``ws://`` browser URL."""

    name = "attach"
    owns_browser = False

    def __init__(
        self,
        cdp_url: str,
        *,
        consent: ConsentCheck | None = None,
        needs_dialog_bridge: bool = False,
    ) -> None:
        _check_url(cdp_url)
        self.cdp_url = cdp_url
        self.consent = consent
        self.needs_dialog_bridge = needs_dialog_bridge

    def exit_status(self) -> str | None:
        return None

    async def start(self, budget: Budget) -> Endpoint:
        ws_url, product = await resolve_endpoint(self.cdp_url, budget)
        request = AttachRequest(self.cdp_url, ws_url, product, _is_loopback(ws_url))
        if self.consent is not None:
            verdict = self.consent(request)
            if inspect.isawaitable(verdict):
                verdict = await budget.run(verdict, what="asking for consent to attach")
            if not verdict:
                raise ConsentRequired(f"attaching to {self.cdp_url} ({product}) was not allowed")
        return Endpoint(ws_url=ws_url, product=product)

    async def reconnect(self, budget: Budget) -> Endpoint:
        """The same browser again (its socket URL is looked up anew: it may have changed)."""
        ws_url, product = await resolve_endpoint(self.cdp_url, budget)
        return Endpoint(ws_url=ws_url, product=product)

    async def close(self) -> None:
        """Nothing to undo: the browser belongs to someone else."""


async def resolve_endpoint(cdp_url: str, budget: Budget) -> tuple[str, str]:
    """The browser WebSocket URL and product name behind a CDP URL."""
    scheme = urlsplit(cdp_url).scheme
    if scheme in ("ws", "wss"):
        return cdp_url, ""
    version_url = cdp_url.rstrip("/") + "/json/version"
    timeout = max(budget.remaining(), 0.001)
    try:
        body = await budget.run(
            asyncio.to_thread(_fetch, version_url, timeout), what=f"reading {version_url}"
        )
        info = json.loads(body)
        ws_url = info["webSocketDebuggerUrl"]
    except (OSError, urllib.error.URLError) as exc:
        raise EndpointError(f"cannot reach the CDP endpoint {cdp_url}: {exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise EndpointError(
            f"{version_url} did not return a DevTools version document ({exc!r})"
        ) from exc
    # The browser names its socket by the host it listens on; reach it the way the
    # caller reached the HTTP endpoint (a forwarded port, a container name…).
    http = urlsplit(cdp_url)
    ws = urlsplit(ws_url)
    ws_scheme = "wss" if http.scheme == "https" else "ws"
    return urlunsplit((ws_scheme, http.netloc, ws.path, ws.query, "")), str(info.get("Browser", ""))


def _fetch(url: str, timeout: float) -> bytes:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=timeout) as response:
        data: bytes = response.read(1_000_000)
        return data


def _check_url(cdp_url: str) -> None:
    parts = urlsplit(cdp_url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise InvalidArgument(
            f"{cdp_url!r} is not a CDP endpoint URL",
            hint="give http://host:port (the browser's --remote-debugging-port) or a "
            "ws://host:port/devtools/browser/<id> URL",
        )


def _is_loopback(url: str) -> bool:
    return is_loopback_host(urlsplit(url).hostname or "")


def is_loopback_host(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1 (brackets and a trailing dot allowed)."""
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
