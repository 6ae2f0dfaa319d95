"""The attach backend: reach a browser that is already running, by its CDP endpoint.

Attaching never launches or kills anything, and needs the user's consent: before
connecting, the browser is described from its read-only HTTP endpoints (product,
open tabs) and, for a browser on this machine, its command line (profile); without
consent that description is the :class:`ConsentRequired` error.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import ipaddress
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..budget import Budget
from ..errors import ConsentRequired, EndpointError, InvalidArgument
from .base import Endpoint

__all__ = [
    "CONSENT_HINT",
    "AttachRequest",
    "CDPEndpoint",
    "ConsentCheck",
    "OpenTab",
    "consent_refused",
    "inspect_endpoint",
    "is_loopback_host",
    "resolve_endpoint",
]

CONSENT_HINT = (
    "ask the user first; once they agree, call again with consent=true (tool or API), or "
    "start with --allow-attach (CLI, MCP server) or safety.allow_attach: true in the config"
)

CONTROL = (
    "read and change every page of it; use its cookies, storage and signed-in sessions; "
    "run scripts in its pages; open, navigate and close its tabs"
)
"""What attaching gives an agent, as a consent request states it."""

_MAX_TABS_SHOWN = 10
_MAX_DOMAINS_SHOWN = 15
_MAX_TITLE = 60
_BROWSER_NAMES = re.compile(r"chrom|msedge|brave|vivaldi|opera|headless_shell", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class OpenTab:
    """A page of the browser, as its ``/json/list`` lists it (read before attaching)."""

    title: str
    url: str

    @property
    def domain(self) -> str:
        parts = urlsplit(self.url)
        return parts.hostname or "" if parts.scheme in ("http", "https") else ""


@dataclass(frozen=True, slots=True)
class AttachRequest:
    """What a consent check is shown before tabwarden attaches to a browser."""

    cdp_url: str
    ws_url: str
    product: str
    is_loopback: bool
    profile: str = "unknown"
    """The browser's profile folder, as its command line says, or ``unknown``."""
    tabs: tuple[OpenTab, ...] | None = None
    """Its open pages; None when the browser did not list them."""

    @property
    def domains(self) -> list[str]:
        """The sites of the open tabs, in the order they first appear."""
        seen = dict.fromkeys(t.domain for t in self.tabs or () if t.domain)
        return list(seen)

    def describe(self) -> str:
        """What attaching would give the agent: browser, profile, tabs, sites, control."""
        where = "on this machine" if self.is_loopback else "on another machine"
        lines = [
            f"browser: {self.product or 'unknown (it did not say)'} at {self.cdp_url} ({where})",
            f"profile: {self.profile}",
        ]
        if self.tabs is None:
            lines.append("open tabs: unknown (the browser did not list them)")
        else:
            lines.append(f"open tabs: {len(self.tabs)}")
            for tab in self.tabs[:_MAX_TABS_SHOWN]:
                title = tab.title if len(tab.title) <= _MAX_TITLE else tab.title[:_MAX_TITLE] + "…"
                where = tab.domain or tab.url[:_MAX_TITLE]
                lines.append(f"  - {json.dumps(title, ensure_ascii=False)} {where}")
            if len(self.tabs) > _MAX_TABS_SHOWN:
                lines.append(f"  - and {len(self.tabs) - _MAX_TABS_SHOWN} more")
            domains = self.domains
            shown = ", ".join(domains[:_MAX_DOMAINS_SHOWN]) or "none"
            hidden = len(domains) - _MAX_DOMAINS_SHOWN
            more = f" and {hidden} more" if hidden > 0 else ""
            lines.append(f"sites: {shown}{more}")
        lines.append(f"control asked for: {CONTROL}")
        return "\n".join(lines)


ConsentCheck = bool | Callable[[AttachRequest], "bool | Awaitable[bool]"]
"""True (the user agreed), or a check shown the :class:`AttachRequest` that returns
True to allow the attach. False, or no consent at all, refuses it with
:class:`ConsentRequired`."""


class CDPEndpoint:
    """Attach to ``http://host:port`` (DevTools HTTP endpoint) or a ``ws://`` browser URL."""

    name = "attach"
    owns_browser = False
    browser_context_id: str | None = None
    """The browser is the session's whole: its default context."""

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
        self.viewport: tuple[int, int] | None = None  # the user's windows keep their size

    def exit_status(self) -> str | None:
        return None

    async def start(self, budget: Budget) -> Endpoint:
        if self.consent is True:
            ws_url, product = await resolve_endpoint(self.cdp_url, budget)
            return Endpoint(ws_url=ws_url, product=product)
        request = await inspect_endpoint(self.cdp_url, budget)
        if callable(self.consent):
            verdict = self.consent(request)
            if inspect.isawaitable(verdict):
                verdict = await budget.run(verdict, what="asking for consent to attach")
            if verdict:
                return Endpoint(ws_url=request.ws_url, product=request.product)
            raise consent_refused(request, checked=True)
        raise consent_refused(request)

    async def reconnect(self, budget: Budget) -> Endpoint:
        """The same browser again (its socket URL is looked up anew: it may have changed).
        Consent was given for this endpoint when it was first attached."""
        ws_url, product = await resolve_endpoint(self.cdp_url, budget)
        return Endpoint(ws_url=ws_url, product=product)

    async def close(self) -> None:
        """Nothing to undo: the browser belongs to someone else."""


def consent_refused(request: AttachRequest, *, checked: bool = False) -> ConsentRequired:
    """The error that says what an attach would control, and how to consent."""
    why = (
        "the consent check refused attaching to this browser"
        if checked
        else "attaching to this browser needs the user's consent first"
    )
    return ConsentRequired(
        f"{why}; it would give this agent:\n{request.describe()}", hint=CONSENT_HINT
    )


async def inspect_endpoint(cdp_url: str, budget: Budget) -> AttachRequest:
    """Describe the browser behind a CDP URL without taking control of it.

    Reads ``/json/version`` and ``/json/list`` (read-only HTTP) and, for a browser on
    this machine, the profile folder from its command line. Raises
    :class:`EndpointError` when the browser cannot be reached.
    """
    _check_url(cdp_url)
    ws_url, product = await resolve_endpoint(cdp_url, budget)
    http_base = _http_base(cdp_url, ws_url)
    loopback = _is_loopback(ws_url)
    port = urlsplit(ws_url).port
    timeout = max(budget.remaining(), 0.001)

    def read() -> tuple[str, tuple[OpenTab, ...] | None, str]:
        found_product = product
        if not found_product:
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                found_product = str(
                    json.loads(_fetch(http_base + "/json/version", timeout))["Browser"]
                )
        tabs = _read_tabs(http_base, timeout)
        profile = _local_profile(port) if loopback and port else None
        return found_product, tabs, profile or "unknown (the browser does not say)"

    found_product, tabs, profile = await budget.run(
        asyncio.to_thread(read), what=f"describing the browser at {cdp_url}"
    )
    return AttachRequest(cdp_url, ws_url, found_product, loopback, profile, tabs)


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


def _http_base(cdp_url: str, ws_url: str) -> str:
    """The DevTools HTTP endpoint of a CDP URL (for a ws:// URL, the same host and port)."""
    given = urlsplit(cdp_url)
    if given.scheme in ("http", "https"):
        return urlunsplit((given.scheme, given.netloc, "", "", "")).rstrip("/")
    ws = urlsplit(ws_url)
    return urlunsplit(("https" if ws.scheme == "wss" else "http", ws.netloc, "", "", ""))


def _read_tabs(http_base: str, timeout: float) -> tuple[OpenTab, ...] | None:
    try:
        listed: Any = json.loads(_fetch(http_base + "/json/list", timeout))
    except (OSError, ValueError):
        return None
    if not isinstance(listed, list):
        return None
    return tuple(
        OpenTab(str(t.get("title", "")), str(t.get("url", "")))
        for t in listed
        if isinstance(t, dict) and t.get("type") == "page"
    )


# ---- the profile of a browser on this machine ----------------------------------------------


def _local_profile(port: int) -> str | None:
    """The profile of the browser process listening on ``port``, from its command line.

    Linux only (``/proc``), and only processes this user may inspect; None otherwise.
    """
    command = _listener_command_line(port)
    if command is None or not _is_browser(command):
        return None
    user_data_dir = _switch(command, "user-data-dir")
    profile_dir = _switch(command, "profile-directory")
    suffix = f" (profile {profile_dir})" if profile_dir else ""
    if user_data_dir is None:
        return (
            f"the browser's default profile folder{suffix}: the user's own profile, with "
            "their cookies and signed-in sessions"
        )
    return f"{user_data_dir}{suffix}"


def _listener_command_line(port: int) -> list[str] | None:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == "0A":  # 0A: LISTEN
                with contextlib.suppress(ValueError):
                    if int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    try:
        processes = [p for p in Path("/proc").iterdir() if p.name.isdigit()]
    except OSError:
        return None
    for process in processes:
        try:
            fds = list((process / "fd").iterdir())
        except OSError:
            continue  # another user's process, or gone
        for fd in fds:
            try:
                if os.readlink(fd) in inodes:
                    raw = (process / "cmdline").read_bytes()
                    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]
            except OSError:
                continue
    return None


def _is_browser(command: list[str]) -> bool:
    if any(arg.startswith("--remote-debugging-p") for arg in command[1:]):
        return True
    return bool(command) and bool(_BROWSER_NAMES.search(Path(command[0]).name))


def _switch(command: list[str], name: str) -> str | None:
    value = None
    for arg in command[1:]:
        for prefix in (f"--{name}=", f"-{name}="):
            if arg.startswith(prefix):
                value = arg[len(prefix) :]  # the last one wins, as in Chromium
    return value


# ---- URLs ----------------------------------------------------------------------------------


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
