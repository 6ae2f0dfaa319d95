"""The Selenium Grid backend: a Chrome from a Selenium Grid 4, driven over the Grid's CDP proxy.

Starting asks the Grid for a WebDriver session (``POST /session``) and takes the
``se:cdp`` capability of its answer, the Grid's CDP proxy for that browser; the
session layer runs on it as on a local browser. Closing deletes the WebDriver
session (``DELETE /session/<id>``), which frees the Grid's slot; so does an error
during start, and the exit of the process (grid_sessions.py). A create the start
gave up on (its budget ran out while the Grid queued it) is still awaited in the
background, and the session it brings is deleted as soon as the Grid answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..budget import Budget
from ..config import Config
from ..counting import counted
from ..errors import (
    BrowserLaunchError,
    Cancelled,
    ConfigError,
    DeadlineExceeded,
    TabwardenError,
)
from .base import Endpoint
from .grid_http import GRID_START_HINT, GridError, GridFull, GridReply, grid_request
from .grid_sessions import SessionWatch, delete_session, ledger
from .grid_status import GridCapacity, read_capacity

__all__ = ["GridOptions", "SeleniumGrid", "grid_backend", "grid_capabilities"]

_STATUS_S = 5.0
"""At most this long for ``GET /status`` (a Grid that answers at all answers it at once)."""
_DELETE_S = 10.0
"""At most this long for ``DELETE /session/<id>`` (the node quits the browser first)."""

# Chromium on a Grid node: headless unless asked otherwise, quiet (the node may have no
# internet), and as root in a container it needs --no-sandbox.
_NODE_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


@dataclass
class GridOptions:
    url: str
    """The Grid's address: ``http://host:4444`` (with its sub-path, if it has one)."""
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    """More W3C capabilities, merged into tabwarden's own (:func:`grid_capabilities`)."""
    max_sessions: int = 4
    """Sessions this process may hold on the Grid at once (``browser.grid.max_sessions``)."""
    session_timeout_s: float = 300.0
    """How long a new-session request may stay unanswered (``browser.grid.session_timeout``)."""
    headless: bool = True
    window_size: tuple[int, int] = (1280, 720)
    extra_args: Sequence[str] = field(default_factory=tuple)
    """More Chromium switches (a proxy, a user agent)."""
    session_name: str = "default"


def grid_capabilities(options: GridOptions) -> dict[str, Any]:
    """The ``alwaysMatch`` capabilities of a new session: tabwarden's, then the configured.

    Mappings merge key by key, ``goog:chromeOptions.args`` are appended to tabwarden's
    switches, and any other configured value replaces tabwarden's.
    """
    width, height = options.window_size
    args = [*(["--headless=new"] if options.headless else []), *_NODE_FLAGS]
    args += [f"--window-size={width},{height}", *options.extra_args]
    own: dict[str, Any] = {
        "browserName": "chrome",
        "webSocketUrl": True,
        # tabwarden's supervisor answers dialogs (browser.dialog_policy); the driver must
        # leave them to it.
        "unhandledPromptBehavior": "ignore",
        "goog:chromeOptions": {"args": args},
        "se:name": f"tabwarden {options.session_name}",
    }
    return _merged(own, options.capabilities)


def _merged(own: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(own)
    for key, value in given.items():
        mine = merged.get(key)
        if key == "args" and isinstance(mine, list) and isinstance(value, list):
            merged[key] = [*mine, *value]
        elif isinstance(mine, Mapping) and isinstance(value, Mapping):
            merged[key] = _merged(mine, value)
        else:
            merged[key] = value
    return merged


def grid_backend(config: Config, session_name: str = "default") -> SeleniumGrid:
    """The Selenium Grid backend configured by ``config.browser.grid`` (and the window
    size, headless, proxy and user agent of ``config.browser``)."""
    browser = config.browser
    grid = browser.grid
    if not grid.url:
        raise ConfigError(
            "browser.grid.url is not set: no Selenium Grid to take a browser from",
            hint="set browser.grid.url in the config file (or TABWARDEN_BROWSER__GRID__URL) "
            "to the Grid's address, e.g. http://localhost:4444",
        )
    extra: list[str] = []
    if browser.proxy_server:
        extra.append(f"--proxy-server={browser.proxy_server}")
        if browser.proxy_bypass:
            extra.append(f"--proxy-bypass-list={';'.join(browser.proxy_bypass)}")
    if browser.user_agent:
        extra.append(f"--user-agent={browser.user_agent}")
    return SeleniumGrid(
        GridOptions(
            url=grid.url,
            capabilities=dict(grid.capabilities),
            max_sessions=grid.max_sessions,
            session_timeout_s=grid.session_timeout,
            headless=browser.headless,
            window_size=(browser.window_width, browser.window_height),
            extra_args=tuple(extra),
            session_name=session_name,
        )
    )


class SeleniumGrid:
    """A browser from a Selenium Grid 4; ``close()`` deletes its WebDriver session."""

    name = "grid"
    owns_browser = True
    """The browser lives as long as the session: a lost one is replaced by a new Grid
    session on the next call, as a local browser is relaunched."""
    browser_context_id: str | None = None
    """The browser is the session's whole: its default context."""
    needs_dialog_bridge = False

    def __init__(self, options: GridOptions) -> None:
        self.options = options
        self.url = options.url.rstrip("/")
        self.viewport: tuple[int, int] | None = options.window_size
        self.session_id: str | None = None
        """The WebDriver session held now (None before start and after close)."""
        self.capabilities: dict[str, Any] = {}
        """What the Grid answered the session was created with."""
        self._endpoint: Endpoint | None = None
        self._claimed = False
        self._watch: SessionWatch | None = None

    def exit_status(self) -> str | None:
        """How the browser ended, once the Grid says its session is gone (the Grid's CDP
        proxy keeps our socket open after the browser dies, so the socket cannot say)."""
        return self._watch.gone if self._watch is not None else None

    async def start(self, budget: Budget) -> Endpoint:
        if self.session_id is not None or self._claimed:
            await self.close()
        ledger.claim(self.url, self.options.max_sessions)
        self._claimed = True
        try:
            capacity = await self.capacity(budget)
            if capacity.slots == 0:
                # A full Grid is not ready either (its /status says so): it queues the
                # request. One with no node for Chrome would only let it time out.
                raise GridError(
                    f"the Selenium Grid at {self.url} cannot start a Chrome: "
                    + capacity.describe(),
                    hint="start a node with Chrome (docs/grid.md), or wait for one to "
                    "register; check browser.grid.capabilities",
                )
            reply = await self._create(budget)
            return self._accept(reply)
        except BaseException:
            await self.close()
            raise

    async def reconnect(self, budget: Budget) -> Endpoint:
        """The same Grid session's CDP proxy again, while the session is held."""
        if self._endpoint is None:
            raise BrowserLaunchError("the Grid session is gone; a new one is started instead")
        return self._endpoint

    async def close(self) -> None:
        """Delete the WebDriver session (the Grid frees its slot) and give back the claim."""
        session_id, self.session_id, self._endpoint = self.session_id, None, None
        claimed, self._claimed = self._claimed, False
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.stop()
        try:
            if session_id is not None:
                with contextlib.suppress(DeadlineExceeded, Cancelled):
                    await Budget(_DELETE_S).run(
                        asyncio.to_thread(delete_session, self.url, session_id, _DELETE_S),
                        what=f"deleting the Grid session {session_id}",
                    )
                ledger.closed(self.url, session_id)
        finally:
            if claimed:
                ledger.release(self.url)

    async def capacity(self, budget: Budget) -> GridCapacity:
        """What the Grid's ``/status`` says of its Chrome slots (raises when no Grid answers)."""
        wait = budget.child(_STATUS_S)
        reply = await wait.run(
            asyncio.to_thread(grid_request, "GET", self.url, "/status", _STATUS_S),
            what=f"reading the status of the Selenium Grid at {self.url}",
        )
        if not reply.ok:
            raise GridError(
                f"{self.url}/status answered HTTP {reply.status} ({reply.message}): is it "
                "a Selenium Grid 4?",
                hint=GRID_START_HINT,
            )
        return read_capacity(reply.value, "chrome")

    # ---- private -------------------------------------------------------------------

    async def _create(self, budget: Budget) -> GridReply:
        body = {"capabilities": {"alwaysMatch": grid_capabilities(self.options)}}
        pending = _PendingCreate(self.url, body, self.options.session_timeout_s)
        try:
            reply = await budget.run(
                asyncio.wrap_future(pending.future),
                what=f"waiting for the Selenium Grid at {self.url} to start a browser",
            )
        except DeadlineExceeded:
            pending.abandon()
            raise await self._no_session_in_time(budget) from None
        except BaseException:
            pending.abandon()
            raise
        if not reply.ok:
            raise await self._refused(reply)
        return reply

    def _accept(self, reply: GridReply) -> Endpoint:
        value = reply.value if isinstance(reply.value, dict) else {}
        session_id = str(value.get("sessionId") or "")
        capabilities = value.get("capabilities")
        if not session_id or not isinstance(capabilities, dict):
            raise GridError(f"the Grid at {self.url} answered a new session without an id")
        self.session_id = session_id
        ledger.opened(self.url, session_id)
        self.capabilities = capabilities
        cdp = capabilities.get("se:cdp")
        if not isinstance(cdp, str) or not cdp.startswith(("ws://", "wss://")):
            raise GridError(
                f"the Grid's session {session_id} has no CDP endpoint (no se:cdp capability)",
                hint="tabwarden needs Selenium Grid 4 with a Chromium-based browser "
                "(browserName chrome or MicrosoftEdge in browser.grid.capabilities)",
            )
        version = capabilities.get("browserVersion") or capabilities.get("se:cdpVersion")
        self._endpoint = Endpoint(ws_url=self._reachable(cdp), product=f"Chrome/{version}")
        self._watch = SessionWatch(self.url, session_id)
        return self._endpoint

    def _reachable(self, cdp_url: str) -> str:
        """The CDP proxy at the address the Grid was reached by: the Grid names it by the
        host it thinks it has (a container's name, an internal address), and the same
        router that answered the new session serves it."""
        grid = urlsplit(self.url)
        cdp = urlsplit(cdp_url)
        scheme = "wss" if grid.scheme == "https" else "ws"
        return urlunsplit((scheme, grid.netloc, cdp.path, cdp.query, ""))

    async def _no_session_in_time(self, budget: Budget) -> TabwardenError:
        waited = f"{budget.timeout_s * 1000:.0f} ms"
        try:
            capacity = await self.capacity(Budget(_STATUS_S))
        except (GridError, DeadlineExceeded) as exc:
            return DeadlineExceeded(
                f"the Selenium Grid at {self.url} gave no session within {waited}, and its "
                f"status is unknown now ({exc.message})",
                hint=GRID_START_HINT,
            )
        if capacity.free == 0:
            return _grid_full(capacity, f"no slot came free within {waited}")
        return DeadlineExceeded(
            f"the Selenium Grid at {self.url} did not start a browser within {waited} "
            f"({capacity.describe()})",
            hint="retry with a larger timeouts.launch_ms, or see the Grid node's log",
        )

    async def _refused(self, reply: GridReply) -> TabwardenError:
        message = reply.message
        if "timed out" in message.lower():
            # The Grid's own queue gave up (its --session-request-timeout) first.
            with contextlib.suppress(GridError, DeadlineExceeded):
                capacity = await self.capacity(Budget(_STATUS_S))
                return _grid_full(capacity, f"the Grid's queue gave up: {message}")
        return GridError(
            f"the Selenium Grid at {self.url} did not create a session "
            f"(HTTP {reply.status}, {reply.error or 'error'}): {message}",
            hint="check browser.grid.capabilities against the Grid's nodes (their "
            "stereotypes are listed at /status), and the node's log",
        )


def _grid_full(capacity: GridCapacity, why: str) -> GridFull:
    return GridFull(
        f"the Grid has no free slot: {counted(capacity.in_use, 'session')} in use "
        f"({counted(capacity.slots, 'slot')} on {counted(capacity.nodes, 'node')}); {why}",
        hint="wait for one to close and retry, or raise --max-sessions on the Grid (or add nodes)",
    )


class _PendingCreate:
    """A ``POST /session`` in a thread of its own: it outlives a caller that gives up, and
    deletes the session the Grid creates after that."""

    def __init__(self, grid_url: str, body: dict[str, Any], timeout_s: float) -> None:
        self.future: concurrent.futures.Future[GridReply] = concurrent.futures.Future()
        self._grid_url = grid_url
        self._lock = threading.Lock()
        self._abandoned = False
        thread = threading.Thread(
            target=self._run,
            args=(body, timeout_s),
            name="tabwarden-grid-create",
            daemon=True,  # exiting does not wait for a Grid's queue
        )
        thread.start()

    def abandon(self) -> None:
        """The caller stopped waiting: a session that came (or comes later) is deleted."""
        with self._lock:
            self._abandoned = True
            late = self._created()
        if late is not None:  # answered as the wait ended: nobody took the session
            threading.Thread(
                target=delete_session,
                args=(self._grid_url, late, _DELETE_S),
                name="tabwarden-grid-delete",
                daemon=True,
            ).start()

    def _run(self, body: dict[str, Any], timeout_s: float) -> None:
        try:
            reply = grid_request("POST", self._grid_url, "/session", timeout_s, body)
        except BaseException as exc:
            with self._lock:
                if not self.future.done():
                    self.future.set_exception(exc)
            return
        with self._lock:
            if not self._abandoned and not self.future.done():
                self.future.set_result(reply)
                return
        session_id = _session_id(reply)
        if session_id is not None:
            delete_session(self._grid_url, session_id, _DELETE_S)

    def _created(self) -> str | None:
        """The session of a reply already handed over (under the lock)."""
        future = self.future
        if not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return _session_id(future.result())


def _session_id(reply: GridReply) -> str | None:
    if reply.ok and isinstance(reply.value, dict) and reply.value.get("sessionId"):
        return str(reply.value["sessionId"])
    return None
