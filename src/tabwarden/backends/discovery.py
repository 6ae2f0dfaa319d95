"""Finding the browsers on this machine that already run with remote debugging.

Two ways, both read-only and bounded by one short budget, all at once: the usual
DevTools ports on 127.0.0.1 are asked ``GET /json/version``, and the
``DevToolsActivePort`` file a browser writes into its profile folder is read in the
usual folders of Chrome (stable, Beta, Dev, Canary), Chromium and Edge, plus any
folder the configuration names. A port a file names is asked too, so a stale file
(the browser is gone) finds nothing. A port that accepts but never answers costs no
more than the budget: every probe is one asyncio read with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_PORTS",
    "FoundBrowser",
    "discover_browsers",
    "known_profile_dirs",
    "read_active_port",
]

DEFAULT_PORTS = (9222, 9223, 9224, 9229)
"""Where a browser started with ``--remote-debugging-port`` usually listens (9229 is
Node's inspector port, which Chrome users pick too)."""

_HOST = "127.0.0.1"
_MAX_REPLY = 64 * 1024


@dataclass(frozen=True, slots=True)
class FoundBrowser:
    """A browser that answered on a DevTools port of this machine."""

    product: str
    """What its ``/json/version`` says in ``Browser``: ``Chrome/137.0…``, ``Edg/…``."""
    ws_url: str
    """Its browser WebSocket, ``ws://127.0.0.1:<port>/devtools/browser/<id>``."""
    port: int
    where: tuple[str, ...]
    """How it was found: ``port 9222``, ``DevToolsActivePort in <profile folder>``."""
    profile_dirs: tuple[Path, ...] = ()
    """The profile folders whose ``DevToolsActivePort`` named it."""

    @property
    def cdp_url(self) -> str:
        return f"http://{_HOST}:{self.port}"

    def describe(self) -> str:
        """One line: product, port and where it was found."""
        return f"{self.product or 'a browser'} on port {self.port} ({'; '.join(self.where)})"


def known_profile_dirs(
    platform: str | None = None,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Path]:
    """The default profile folders of Chrome, Chrome Beta/Dev/Canary, Chromium and Edge."""
    platform = sys.platform if platform is None else platform
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    if platform == "darwin":
        base = home / "Library" / "Application Support"
        names = [
            "Google/Chrome",
            "Google/Chrome Beta",
            "Google/Chrome Dev",
            "Google/Chrome Canary",
            "Chromium",
            "Microsoft Edge",
            "Microsoft Edge Beta",
            "Microsoft Edge Dev",
            "Microsoft Edge Canary",
        ]
        return [base / name for name in names]
    if platform.startswith("win"):
        local = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
        names = [
            "Google/Chrome/User Data",
            "Google/Chrome Beta/User Data",
            "Google/Chrome Dev/User Data",
            "Google/Chrome SxS/User Data",
            "Chromium/User Data",
            "Microsoft/Edge/User Data",
            "Microsoft/Edge Beta/User Data",
            "Microsoft/Edge Dev/User Data",
            "Microsoft/Edge SxS/User Data",
        ]
        return [local / name for name in names]
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    names = [
        "google-chrome",
        "google-chrome-beta",
        "google-chrome-unstable",
        "google-chrome-canary",
        "chromium",
        "microsoft-edge",
        "microsoft-edge-beta",
        "microsoft-edge-dev",
    ]
    return [config / name for name in names] + [home / "snap/chromium/common/chromium"]


def read_active_port(profile_dir: Path) -> tuple[int, str] | None:
    """The port and browser socket path a profile's ``DevToolsActivePort`` names."""
    try:
        lines = (profile_dir / "DevToolsActivePort").read_text(errors="replace").splitlines()
    except OSError:
        return None
    if not lines or not lines[0].strip().isdigit():
        return None
    port = int(lines[0].strip())
    if not 0 < port < 65536:
        return None
    return port, lines[1].strip() if len(lines) > 1 else ""


async def discover_browsers(
    ports: Sequence[int] = DEFAULT_PORTS,
    profile_dirs: Sequence[Path] = (),
    *,
    timeout_s: float = 1.5,
) -> list[FoundBrowser]:
    """Every browser found on ``ports`` or through a ``DevToolsActivePort`` file in
    ``profile_dirs``, asked at once and within ``timeout_s`` seconds in all; one browser
    found both ways is listed once. Ports come first, in the order given."""
    named: dict[int, list[Path]] = {}
    for folder in profile_dirs:
        found = read_active_port(folder)
        if found is not None:
            named.setdefault(found[0], []).append(folder)
    order = list(dict.fromkeys([*ports, *named]))
    if not order:
        return []
    replies = await asyncio.gather(*(_version(port, timeout_s) for port in order))
    browsers = []
    for port, reply in zip(order, replies, strict=True):
        if reply is None:
            continue
        product, ws_url = reply
        where = [f"port {port}"] if port in ports else []
        folders = tuple(
            folder
            for folder in named.get(port, ())
            if _same_browser(read_active_port(folder), ws_url)
        )
        where += [f"DevToolsActivePort in {folder}" for folder in folders]
        if where:
            browsers.append(FoundBrowser(product, ws_url, port, tuple(where), folders))
    return browsers


def _same_browser(named: tuple[int, str] | None, ws_url: str) -> bool:
    """A file names the browser that answered (not an older one whose port was reused)."""
    if named is None:
        return False
    path = named[1]
    return not path or ws_url.endswith(path)


async def _version(port: int, timeout_s: float) -> tuple[str, str] | None:
    """``(Browser, webSocketDebuggerUrl)`` of ``/json/version`` on the port, or None."""
    try:
        body = await asyncio.wait_for(_get(port, "/json/version"), timeout_s)
        info: Any = json.loads(body)
        ws_url = str(info["webSocketDebuggerUrl"])
        product = str(info.get("Browser", ""))
    except (
        OSError,
        TimeoutError,
        ValueError,
        KeyError,
        TypeError,
        EOFError,
        asyncio.LimitOverrunError,
    ):
        return None
    if not ws_url.startswith(("ws://", "wss://")):
        return None
    # Reached as 127.0.0.1 whatever host the browser names itself by.
    path = ws_url.split("/", 3)[3] if ws_url.count("/") >= 3 else ""
    return product, f"ws://{_HOST}:{port}/{path}"


async def _get(port: int, path: str) -> bytes:
    """One HTTP GET on 127.0.0.1: the body (asyncio, so a deadline cancels it)."""
    reader, writer = await asyncio.open_connection(_HOST, port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {_HOST}:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _MAX_REPLY:
            raise ValueError("headers too large")
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split()
        if len(status) < 2 or status[1] != "200":
            raise ValueError(f"HTTP status {status[1:2]}")
        length = None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:  # no length: the body ends with the connection
            return await reader.read(_MAX_REPLY)
        if length > _MAX_REPLY:
            raise ValueError("reply too large")
        return await reader.readexactly(length)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
