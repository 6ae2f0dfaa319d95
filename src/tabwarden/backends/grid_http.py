"""JSON over HTTP to a Selenium Grid (the WebDriver endpoints), and what its answers mean.

Blocking calls with a socket timeout, run in threads by the backend: a create that
outlives its caller's wait must go on in the background until the Grid answers, so
the session it brings can be deleted (backends/grid.py).
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..errors import BrowserError

__all__ = [
    "GRID_START_HINT",
    "GridError",
    "GridFull",
    "GridReply",
    "GridUnreachable",
    "grid_request",
]

GRID_START_HINT = (
    "start it with `java -jar selenium-server-<version>.jar standalone --port 4444` (or a hub "
    "and nodes, or the docker-selenium images: see docs/grid.md), or fix browser.grid.url"
)

_JSON = "application/json; charset=utf-8"
_MAX_BODY = 4_000_000


class GridError(BrowserError):
    """A Selenium Grid refused or failed a request (the message quotes its answer)."""

    default_hint = "check the Grid's log and browser.grid.capabilities (docs/grid.md)"


class GridUnreachable(GridError):
    """No Selenium Grid answers at the configured address."""

    default_hint = GRID_START_HINT


class GridFull(GridError):
    """No session slot: the Grid's are all in use, or this process holds as many sessions
    on it as browser.grid.max_sessions allows."""

    default_hint = "wait for a session to close, or raise --max-sessions on the Grid"


@dataclass(frozen=True, slots=True)
class GridReply:
    """An HTTP answer of the Grid: its status and its JSON ``value`` (None when absent)."""

    status: int
    value: Any
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def error(self) -> str:
        """The W3C error code (``session not created``…), or empty."""
        if isinstance(self.value, dict):
            return str(self.value.get("error") or "")
        return ""

    @property
    def message(self) -> str:
        """The Grid's error message, first line (build info and stack traces follow it)."""
        if isinstance(self.value, dict) and self.value.get("message"):
            text = str(self.value["message"])
        else:
            text = self.text
        return text.strip().split("\n", 1)[0][:500]


def grid_request(
    method: str, grid_url: str, path: str, timeout_s: float, body: Any = None
) -> GridReply:
    """``method`` on ``grid_url`` + ``path``, answered or failed within ``timeout_s`` per
    socket step.

    An HTTP error status is a reply (its body says why); no answer at all raises
    :class:`GridUnreachable`, a socket timeout :class:`TimeoutError`.
    """
    url = grid_url + path
    data = None if body is None else json.dumps(body).encode()
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = _JSON
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    # The Grid is reached directly, as given: an HTTP(S)_PROXY meant for pages must not
    # carry WebDriver commands to a Grid on this machine or its network.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout_s) as response:
            return _reply(response.status, response.read(_MAX_BODY))
    except urllib.error.HTTPError as exc:
        with exc:
            return _reply(exc.code, exc.read(_MAX_BODY))
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise TimeoutError(f"{method} {url} got no answer within {timeout_s:.0f} s") from exc
        raise GridUnreachable(f"no Selenium Grid at {grid_url}: {_reason(exc)}") from exc
    except (ConnectionError, OSError) as exc:
        if isinstance(exc, TimeoutError):
            raise
        raise GridUnreachable(f"no Selenium Grid at {grid_url}: {exc}") from exc


def _reply(status: int, raw: bytes) -> GridReply:
    text = raw.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(text) if text.strip() else None
    except ValueError:
        parsed = None
    value = parsed.get("value") if isinstance(parsed, dict) else None
    return GridReply(status, value, text)


def _reason(exc: urllib.error.URLError) -> str:
    reason = exc.reason
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return f"unknown host ({reason.strerror})"
    return str(reason)
