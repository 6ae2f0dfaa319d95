"""The asyncio CDP connection: one WebSocket, one reader task, many concurrent commands.

This is the only module that touches the socket. Commands are multiplexed by
id (no global queue); each waits within its own Budget, and an expired command
leaves the connection usable. When the socket closes, every pending command
and event queue fails at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any, Self

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ..budget import Budget
from ..errors import CDPTimeout, ConnectionLost, DeadlineExceeded, EndpointError
from .protocol import (
    ANY_SESSION,
    CDPProtocol,
    ErrorReply,
    Event,
    EventCallback,
    EventRouter,
    Reply,
    SessionKey,
    Subscription,
)

__all__ = ["CDPConnection", "EventQueue"]

logger = logging.getLogger("tabwarden.cdp")

JSONObject = dict[str, Any]
LossError = Callable[[str], ConnectionLost]
"""Builds the error a pending command gets when the socket closes under it (arg: method)."""

# Snapshots and screenshots of large pages run to tens of MB: no frame-size cap.
_MAX_FRAME = None
_CLOSE_TIMEOUT_S = 2.0


class CDPConnection:
    """A CDP client over one WebSocket, in flatten mode.

    The socket, the reader, the budgets and the failing of pending commands are the same
    for any protocol of commands by id, replies and events: a subclass swaps the protocol
    (``new_protocol``), its name in messages (``wire``) and its timeout error."""

    wire = "CDP"
    """The protocol's name in messages."""

    def __init__(self, ws: ClientConnection, url: str) -> None:
        self.url = url
        self._ws = ws
        # The one record of the commands in flight, each with the future its caller awaits.
        self._protocol: CDPProtocol[asyncio.Future[JSONObject]] = self.new_protocol()
        self._router = EventRouter()
        self._queues: set[EventQueue] = set()
        self._close_callbacks: list[Callable[[], None]] = []
        self._closing = False
        self._closed = False
        self._close_reason = ""
        self._closed_event = asyncio.Event()
        self.loss_error: LossError = self._default_loss_error
        self._reader = asyncio.get_running_loop().create_task(
            self._read_loop(), name=f"{self.wire.lower()}-reader {url}"
        )

    def new_protocol(self) -> CDPProtocol[asyncio.Future[JSONObject]]:
        """The sans-I/O protocol this connection speaks."""
        return CDPProtocol()

    def timeout_error(
        self, method: str, timeout_s: float, session_id: str | None
    ) -> DeadlineExceeded:
        """The error of a command that got no reply within its budget."""
        return CDPTimeout(method, timeout_s, session_id=session_id)

    @classmethod
    async def connect(cls, url: str, budget: Budget, *, shown_url: str | None = None) -> Self:
        """Open the socket to a ``ws://…/devtools/browser/…`` (or page) URL.

        ``shown_url``: the URL as messages show it (credentials in ``url`` replaced)."""
        shown = shown_url or url
        opening = websockets.connect(
            url,
            max_size=_MAX_FRAME,
            max_queue=1024,
            ping_interval=None,
            compression=None,
            proxy=None,
            open_timeout=None,
            close_timeout=_CLOSE_TIMEOUT_S,
        )
        try:
            ws = await budget.run(opening, what=f"connecting to {shown}")
        except (OSError, websockets.InvalidHandshake, websockets.InvalidURI) as exc:
            detail = str(exc).replace(url, shown)
            raise EndpointError(f"cannot open the {cls.wire} socket {shown}: {detail}") from exc
        return cls(ws, shown)

    # ---- properties ----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def close_reason(self) -> str:
        return self._close_reason

    @property
    def stats(self) -> dict[str, int]:
        s = self._protocol.stats
        return {
            "sent": s.sent,
            "replies": s.replies,
            "events": s.events,
            "late_replies": s.late_replies,
            "malformed": s.malformed,
            "pending": self._protocol.pending_count,
            "subscribers": self._router.subscriber_count(),
        }

    # ---- commands ------------------------------------------------------------------

    async def send(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        budget: Budget,
        session_id: str | None = None,
    ) -> JSONObject:
        """Send one command and wait for its reply within ``budget``."""
        if self._closed or self._ws.transport.is_closing():
            # A socket the browser dropped is closing before the reader hears of it: a
            # write now would only fail again (asyncio warns after a few).
            raise self.loss_error(method)
        budget.check(method)
        future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        command, text = self._protocol.encode_command(method, params, session_id, waiter=future)

        def timeout() -> BaseException:
            return self.timeout_error(method, budget.timeout_s, session_id)

        try:
            await budget.run(self._ws.send(text), what=method, on_timeout=timeout)
            return await budget.run(future, what=method, on_timeout=timeout)
        except ConnectionClosed:
            raise self.loss_error(method) from None
        finally:
            self._protocol.forget(command.id)

    # ---- events --------------------------------------------------------------------

    def subscribe(
        self, method: str, callback: EventCallback, session_id: SessionKey = ANY_SESSION
    ) -> Subscription:
        """Call ``callback(event)`` on the reader for each matching event; must not block."""
        return self._router.subscribe(method, callback, session_id)

    def event_queue(
        self, methods: Iterable[str], session_id: SessionKey = ANY_SESSION
    ) -> EventQueue:
        """Collect matching events from now on; use it as a context manager.

        Open it *before* sending the command whose events you wait for.
        """
        return EventQueue(self, tuple(methods), session_id)

    def fail_session(self, session_id: str, error: Callable[[str], BaseException]) -> int:
        """Fail every command still waiting on one session at once (its target crashed:
        no reply will come), with ``error(method)``. Returns how many."""
        failed = 0
        for command, future in self._protocol.pending_of(session_id):
            if not future.done():
                future.set_exception(error(command.method))
                future.exception()  # a waiter that already gave up must not log it
                failed += 1
        return failed

    def drop_session(self, session_id: str) -> None:
        self._router.drop_session(session_id)

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` once when the socket closes (for any reason)."""
        if self._closed:
            callback()
        else:
            self._close_callbacks.append(callback)

    # ---- closing -------------------------------------------------------------------

    async def wait_closed(self, budget: Budget) -> None:
        """Wait until the socket has closed (e.g. after ``Browser.close``)."""
        await budget.run(
            self._closed_event.wait(), what=f"waiting for the {self.wire} socket to close"
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closing = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._ws.close(), _CLOSE_TIMEOUT_S)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        self._finish("closed by tabwarden")

    # ---- private -------------------------------------------------------------------

    def _default_loss_error(self, method: str) -> ConnectionLost:
        if self._closing:
            return ConnectionLost(
                f"{method}: the {self.wire} connection was closed",
                hint="this session was closed; open a new one",
            )
        return ConnectionLost(
            f"{method}: the {self.wire} connection to {self.url} closed ({self._close_reason})"
        )

    async def _read_loop(self) -> None:
        reason = "the socket closed"
        try:
            async for data in self._ws:
                self._handle(data)
        except ConnectionClosed as exc:
            reason = f"the socket closed: {exc}"
        except asyncio.CancelledError:
            reason = "closed by tabwarden"
            raise
        except Exception as exc:  # a bug in a handler must not leave commands hanging
            logger.exception("%s reader failed", self.wire)
            reason = f"the reader failed: {exc!r}"
        finally:
            self._finish(reason)

    def _handle(self, data: str | bytes) -> None:
        """Route one frame. A waiter already done was failed early (its target crashed):
        its reply changes nothing."""
        message = self._protocol.receive(data)
        if isinstance(message, Event):
            self._router.dispatch(message)
        elif isinstance(message, Reply) and not message.waiter.done():
            message.waiter.set_result(message.result)
        elif isinstance(message, ErrorReply) and not message.waiter.done():
            message.waiter.set_exception(message.error)

    def _finish(self, reason: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        self._closed_event.set()
        for command, future in self._protocol.drain():
            if not future.done():
                future.set_exception(self.loss_error(command.method))
                future.exception()  # a waiter that already gave up must not log it
        for queue in list(self._queues):
            queue._connection_lost(self.loss_error("waiting for events"))
        callbacks, self._close_callbacks = self._close_callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:
                logger.exception("a connection close callback raised")


class EventQueue:
    """Events of some methods from one session, collected until closed."""

    def __init__(
        self, connection: CDPConnection, methods: tuple[str, ...], session_id: SessionKey
    ) -> None:
        self._connection = connection
        self._items: asyncio.Queue[Event | ConnectionLost] = asyncio.Queue()
        self._subscriptions = [
            connection.subscribe(method, self._items.put_nowait, session_id) for method in methods
        ]
        connection._queues.add(self)
        if connection.closed:
            self._items.put_nowait(connection.loss_error("waiting for events"))

    async def get(self, budget: Budget, *, what: str = "waiting for an event") -> Event:
        item = await budget.run(self._items.get(), what=what)
        if isinstance(item, ConnectionLost):
            self._items.put_nowait(item)  # later gets fail the same way
            raise item
        return item

    def ready(self) -> list[Event]:
        """The events received and not taken yet, without waiting."""
        events = []
        while not self._items.empty():
            item = self._items.get_nowait()
            if isinstance(item, ConnectionLost):
                self._items.put_nowait(item)  # later gets fail the same way
                break
            events.append(item)
        return events

    def close(self) -> None:
        for subscription in self._subscriptions:
            subscription.close()
        self._connection._queues.discard(self)

    def __enter__(self) -> EventQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connection_lost(self, error: ConnectionLost) -> None:
        self._items.put_nowait(error)
