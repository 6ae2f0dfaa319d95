"""BrowserLink: a session's one connection to its browser, and what happens when it goes.

It starts (or attaches to) the browser through the backend and opens the CDP
connection; the session sets the new connection up (``set_up``). When the connection
closes it tells why: a launched browser that went away is relaunched by the next call
(the loss is remembered with the tabs it took, and told once after the relaunch,
relaunch.py); someone else's browser is reconnected to in the background with backoff,
tabs and pending dialogs kept, until ``browser.reconnect_give_up_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

from .backends.base import Backend, Endpoint
from .budget import Budget
from .cdp.connection import CDPConnection
from .config import Config
from .errors import (
    BrowserCrashed,
    CDPError,
    ConnectionLost,
    DeadlineExceeded,
    SessionClosed,
    TabwardenError,
)
from .relaunch import BrowserLoss, LostTab, Relaunch
from .tasks import TaskOwner

__all__ = ["BrowserLink", "LinkEvents"]

logger = logging.getLogger("tabwarden.session")

_RECONNECT_FIRST_S = 0.5
_RECONNECT_MAX_S = 10.0
_RECONNECT_ATTEMPT_S = 10.0


@dataclasses.dataclass(frozen=True, slots=True)
class LinkEvents:
    """What the session does as the link comes and goes."""

    set_up: Callable[[CDPConnection, Budget], Awaitable[None]]
    """Watch and set up a new connection (raising closes it again)."""
    reconnecting: Callable[[], None]
    """The connection to someone else's browser closed; reconnecting (tabs are kept)."""
    lost: Callable[[str, str, bool], None]
    """The browser is gone for good: why, what every tab's later calls say, and whether
    reconnecting gave up (else the browser went away)."""
    open_tabs: Callable[[], Sequence[LostTab]]
    """The tabs open now (remembered with a loss)."""


class BrowserLink:
    """The connection of one session; see the module docstring."""

    def __init__(
        self, name: str, backend: Backend, config: Config, tasks: TaskOwner, events: LinkEvents
    ) -> None:
        self._name = name
        self._backend = backend
        self._config = config
        self._tasks = tasks
        self._events = events
        self.endpoint: Endpoint | None = None
        self.product = ""
        self.launches = 0
        self.closing = False
        """The session is closing: a closed connection is expected, not a loss."""
        self.last_relaunch: Relaunch | None = None
        self._connection: CDPConnection | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._start = asyncio.Lock()
        self._lost_reason = ""
        self._loss: BrowserLoss | None = None
        self._relaunch_untold = False

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.closed

    @property
    def connection(self) -> CDPConnection:
        if self._connection is None:
            raise SessionClosed(f"session {self._name!r} is not started")
        return self._connection

    @property
    def started(self) -> bool:
        """A connection was made (it may have closed since)."""
        return self._connection is not None

    def take_relaunch_notice(self) -> Relaunch | None:
        """The relaunch not told yet, once; later calls get None."""
        if not self._relaunch_untold:
            return None
        self._relaunch_untold = False
        return self.last_relaunch

    async def ensure(self, budget: Budget) -> None:
        """A live connection: as it is, reconnected (waited for), or a relaunched browser."""
        if self.connected and self._backend.owns_browser and self._backend.exit_status():
            # The browser ended while its socket stays open (a Grid's CDP proxy keeps it):
            # closed here, it is the loss the socket did not report, and is relaunched.
            await self.connection.close()
        if self.connected:
            return
        reconnecting = self._reconnecting
        if reconnecting is not None and not reconnecting.done():
            with contextlib.suppress(DeadlineExceeded):
                await budget.run(asyncio.shield(reconnecting), what="waiting to reconnect")
            if not self.connected:
                raise ConnectionLost(
                    f"session {self._name!r} lost its connection ({self._lost_reason}) and is "
                    "reconnecting",
                    hint="retry in a few seconds; the tabs and pending dialogs are kept",
                )
            return
        async with self._start:
            if self.connected:
                return
            loss = None
            if self._connection is not None:
                logger.warning(
                    "session %r: the browser went away (%s); relaunching",
                    self._name,
                    self._lost_reason,
                )
                self._connection = None
                loss = self.known_loss()
                await self._backend.close()
            await self._connect(budget.child(self._config.timeouts.launch_ms / 1000))
            if loss is not None:
                self.last_relaunch = Relaunch(loss, time.time(), self._backend.owns_browser)
                self._loss = None
                self._relaunch_untold = True

    def known_loss(self) -> BrowserLoss | None:
        """The loss not relaunched yet, saying how the browser process ended once that
        is known (the socket may close before the process is reaped)."""
        loss = self._loss
        status = self._backend.exit_status() if self._backend.owns_browser else None
        if loss is not None and status is not None:
            loss = self._loss = dataclasses.replace(loss, reason=f"the browser {status}")
        return loss

    def stop_reconnecting(self) -> None:
        if self._reconnecting is not None:
            self._reconnecting.cancel()

    async def close_browser(self, budget: Budget, *, wait: bool = True) -> None:
        """``Browser.close``: the browser saves its profile (cookies, storage) and exits.
        ``wait``: until its socket closes too (a proxy in front of a remote browser, a
        Grid's, may keep the socket open after the browser is gone)."""
        with contextlib.suppress(CDPError, ConnectionLost, DeadlineExceeded):
            await self.connection.send("Browser.close", budget=budget)
            if wait:
                await self.connection.wait_closed(budget)

    async def close(self) -> None:
        """Close the connection (the browser itself is the backend's to close)."""
        self.stop_reconnecting()
        if self._connection is not None:
            await self._connection.close()

    # ---- private -------------------------------------------------------------------

    async def _connect(self, budget: Budget, *, again: bool = False) -> None:
        """Start (or, ``again``, reconnect to) the browser and set the connection up."""
        self.endpoint = await (
            self._backend.reconnect(budget) if again else self._backend.start(budget)
        )
        try:
            connection = await CDPConnection.connect(
                self.endpoint.ws_url, budget, shown_url=self.endpoint.shown_url
            )
        except BaseException:
            if not again:
                await self._backend.close()
            raise
        connection.loss_error = self._loss_error
        self._connection = connection
        if not again:
            self.launches += 1
        connection.on_close(lambda: self._on_closed(connection))
        try:
            version = await connection.send("Browser.getVersion", budget=budget)
            self.product = version.get("product", "")
            await self._events.set_up(connection, budget)
        except BaseException:
            await connection.close()
            if not again:
                await self._backend.close()
            self._connection = None
            raise
        logger.info(
            "session %r connected to %s (%s)", self._name, self.product, self.endpoint.shown_url
        )

    def _note_loss(self, reason: str) -> None:
        """The browser went away with the tabs open now: remembered for the relaunch."""
        self._loss = BrowserLoss(reason, time.time(), tuple(self._events.open_tabs()))

    def _loss_error(self, method: str) -> ConnectionLost:
        if self.closing:
            return ConnectionLost(
                f"{method}: session {self._name!r} was closed", hint="open a new session"
            )
        if self._backend.owns_browser:
            status = self._backend.exit_status() or "went away"
            return BrowserCrashed(f"{method}: the browser of session {self._name!r} {status}")
        return ConnectionLost(
            f"{method}: lost the connection to {self.endpoint and self.endpoint.shown_url}"
        )

    def _on_closed(self, connection: CDPConnection) -> None:
        """On the reader (no awaiting): the connection closed."""
        if connection is not self._connection or self.closing:
            return
        owns = self._backend.owns_browser
        status = self._backend.exit_status() if owns else None
        self._lost_reason = connection.close_reason if status is None else f"the browser {status}"
        if not owns and self._config.browser.reconnect_give_up_s > 0:
            # Someone else's browser still runs: keep tabs and dialogs, and reconnect.
            self._events.reconnecting()
            self._reconnecting = self._tasks.spawn(self._reconnect(), f"reconnect {self._name}")
            return
        self._note_loss(
            self._lost_reason
            if status is not None
            else f"the connection to the browser closed ({self._lost_reason})"
        )
        self._events.lost(
            self._lost_reason,
            f"the browser went away ({self._lost_reason}); the next call on session "
            f"{self._name!r} relaunches it — open a new tab",
            False,
        )

    async def _reconnect(self) -> None:
        """Reconnect with exponential backoff (0.5 s doubling to 10 s) until the give-up."""
        give_up = Budget(self._config.browser.reconnect_give_up_s)
        delay = _RECONNECT_FIRST_S
        attempt = 0
        while True:
            attempt += 1
            await give_up.sleep(delay)  # backoff between attempts
            try:
                await self._connect(give_up.child(_RECONNECT_ATTEMPT_S), again=True)
                logger.info("session %r reconnected after %d attempts", self._name, attempt)
                return
            except TabwardenError as exc:
                logger.info("session %r: reconnect attempt %d failed: %s", self._name, attempt, exc)
            if give_up.expired:
                break
            delay = min(delay * 2, _RECONNECT_MAX_S)
        self._lost_reason = (
            f"gave up reconnecting after {give_up.timeout_s:.0f} s ({attempt} attempts)"
        )
        self._note_loss(f"the connection to the browser was lost and tabwarden {self._lost_reason}")
        self._events.lost(
            self._lost_reason, f"the connection was lost and {self._lost_reason}", True
        )
        logger.warning("session %r: %s", self._name, self._lost_reason)
