"""Sans-I/O Chrome DevTools Protocol: command ids, replies, errors and event routing.

No sockets and no awaits here: text in, parsed messages out, so every rule of
the wire format is unit-tested without a browser. The protocol is the one record
of the commands waiting for a reply, each with what its caller waits on (a
``waiter``, opaque here: the connection's future). Flatten mode is assumed:
child-target traffic shares the socket and is told apart by ``sessionId``
(see ``Target.attachToTarget`` with ``flatten: true``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from ..errors import CDPError, TabwardenError

__all__ = [
    "ANY_SESSION",
    "CDPProtocol",
    "Command",
    "ErrorReply",
    "Event",
    "EventRouter",
    "LateReply",
    "Message",
    "ProtocolStats",
    "Reply",
    "Subscription",
    "decode_json",
    "gc_paused",
]

logger = logging.getLogger("tabwarden.cdp")

JSONObject = dict[str, Any]
W = TypeVar("W")


class _AnySession:
    def __repr__(self) -> str:
        return "ANY_SESSION"


ANY_SESSION: Final = _AnySession()
"""Subscribe to an event from every session (browser and all attached targets)."""

SessionKey = str | None | _AnySession


@dataclass(frozen=True, slots=True)
class Command:
    id: int
    method: str
    session_id: str | None


@dataclass(frozen=True, slots=True)
class Reply(Generic[W]):
    command: Command
    result: JSONObject
    waiter: W


@dataclass(frozen=True, slots=True)
class ErrorReply(Generic[W]):
    command: Command
    error: TabwardenError
    """The protocol's error (``CDPError`` here; ``BiDiError`` from the BiDi protocol)."""
    waiter: W


@dataclass(frozen=True, slots=True)
class Event:
    method: str
    params: JSONObject
    session_id: str | None


@dataclass(frozen=True, slots=True)
class LateReply:
    """A reply whose command was forgotten (timed out) or never sent by us."""

    id: int


Message = Reply[W] | ErrorReply[W] | Event | LateReply


@dataclass(slots=True)
class ProtocolStats:
    sent: int = 0
    replies: int = 0
    events: int = 0
    late_replies: int = 0
    malformed: int = 0


_LARGE_FRAME = 1 << 20


def decode_json(data: str | bytes) -> Any:
    """``json.loads``, with the cyclic GC paused for large frames.

    Decoding a snapshot reply (megabytes, hundreds of thousands of small dicts)
    triggers full collections that cost more than the decoding itself; JSON makes
    no reference cycles, so pausing the collector for it leaks nothing.
    """
    if len(data) < _LARGE_FRAME:
        return json.loads(data)
    with gc_paused():
        return json.loads(data)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (re-enabled only if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class CDPProtocol(Generic[W]):
    """Encodes commands and matches replies to them by id.

    Each command waiting for a reply is kept with its caller's ``waiter`` until the
    reply comes (handed back in it), the caller forgets it, or the socket closes.
    """

    def __init__(self) -> None:
        self._next_id = 1
        self._pending: dict[int, tuple[Command, W]] = {}
        self.stats = ProtocolStats()

    # ---- sending -------------------------------------------------------------------

    def encode_command(
        self,
        method: str,
        params: JSONObject | None = None,
        session_id: str | None = None,
        *,
        waiter: W,
    ) -> tuple[Command, str]:
        """Register a command, waited on by ``waiter``; return it with the text to put on
        the socket."""
        command = Command(self._next_id, method, session_id)
        self._next_id += 1
        message = self._command_message(command, params)
        self._pending[command.id] = (command, waiter)
        self.stats.sent += 1
        return command, json.dumps(message, separators=(",", ":"))

    def _command_message(self, command: Command, params: JSONObject | None) -> JSONObject:
        """The wire form of one command (another protocol on the same rules overrides it)."""
        message: JSONObject = {"id": command.id, "method": command.method}
        if params:
            message["params"] = params
        if command.session_id is not None:
            message["sessionId"] = command.session_id
        return message

    def forget(self, command_id: int) -> None:
        """Stop waiting for a command (its deadline passed); a late reply is then dropped."""
        self._pending.pop(command_id, None)

    def pending_of(self, session_id: str) -> list[tuple[Command, W]]:
        """The commands still waiting for a reply on one session, with their waiters."""
        return [entry for entry in self._pending.values() if entry[0].session_id == session_id]

    def drain(self) -> list[tuple[Command, W]]:
        """Remove and return every pending command with its waiter (the socket closed)."""
        pending = list(self._pending.values())
        self._pending.clear()
        return pending

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    # ---- receiving -----------------------------------------------------------------

    def receive(self, data: str | bytes) -> Message[W] | None:
        """Parse one incoming frame. Returns None for a frame that is not CDP."""
        try:
            message = decode_json(data)
        except ValueError:
            self.stats.malformed += 1
            logger.warning("dropped a CDP frame that is not JSON (%d bytes)", len(data))
            return None
        if not isinstance(message, dict):
            self.stats.malformed += 1
            return None
        if self._is_reply(message):
            return self._receive_reply(message)
        method = message.get("method")
        if not isinstance(method, str):
            self.stats.malformed += 1
            return None
        self.stats.events += 1
        params = message.get("params")
        return Event(
            method, params if isinstance(params, dict) else {}, self._event_session(message)
        )

    def _is_reply(self, message: JSONObject) -> bool:
        return "id" in message

    def _event_session(self, message: JSONObject) -> str | None:
        """The session an event belongs to (CDP's flatten mode names it; None: the browser)."""
        session_id = message.get("sessionId")
        return session_id if isinstance(session_id, str) else None

    def _failure(self, command: Command, message: JSONObject) -> TabwardenError | None:
        """The error a reply carries, or None when the command succeeded."""
        error = message.get("error")
        if error is None:
            return None
        code = error.get("code", 0) if isinstance(error, dict) else 0
        text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        data = error.get("data") if isinstance(error, dict) else None
        if data:
            text = f"{text}: {data}"
        return CDPError(command.method, code, text, command.session_id)

    def _receive_reply(self, message: JSONObject) -> Message[W]:
        command_id = message["id"]
        pending = self._pending.pop(command_id, None) if isinstance(command_id, int) else None
        if pending is None:
            self.stats.late_replies += 1
            return LateReply(command_id if isinstance(command_id, int) else -1)
        command, waiter = pending
        self.stats.replies += 1
        failure = self._failure(command, message)
        if failure is not None:
            return ErrorReply(command, failure, waiter)
        result = message.get("result")
        return Reply(command, result if isinstance(result, dict) else {}, waiter)


EventCallback = Callable[[Event], None]


@dataclass(eq=False)
class Subscription:
    """A handle to one subscription; ``close()`` ends it (idempotent)."""

    router: EventRouter
    key: tuple[str, SessionKey]
    callback: EventCallback
    active: bool = field(default=True)

    def close(self) -> None:
        if self.active:
            self.active = False
            self.router._remove(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventRouter:
    """Routes events to subscribers by ``(method, sessionId)``.

    ``method="*"`` subscribes to every event. Callbacks run synchronously on
    whatever calls :meth:`dispatch` (the connection's reader), so they must not
    block or await; one that raises is logged and the others still run.
    """

    def __init__(self) -> None:
        self._subscriptions: dict[tuple[str, SessionKey], list[Subscription]] = {}

    def subscribe(
        self, method: str, callback: EventCallback, session_id: SessionKey = ANY_SESSION
    ) -> Subscription:
        subscription = Subscription(self, (method, session_id), callback)
        self._subscriptions.setdefault(subscription.key, []).append(subscription)
        return subscription

    def dispatch(self, event: Event) -> int:
        """Call every matching subscriber; returns how many were called."""
        called = 0
        for key in (
            (event.method, event.session_id),
            (event.method, ANY_SESSION),
            ("*", event.session_id),
            ("*", ANY_SESSION),
        ):
            for subscription in tuple(self._subscriptions.get(key, ())):
                if not subscription.active:
                    continue
                called += 1
                try:
                    subscription.callback(event)
                except Exception:
                    logger.exception("a subscriber to %s raised", event.method)
        return called

    def drop_session(self, session_id: str) -> None:
        """Forget every subscription bound to one session (it detached)."""
        for key in [k for k in self._subscriptions if k[1] == session_id]:
            for subscription in self._subscriptions.pop(key):
                subscription.active = False

    def subscriber_count(self) -> int:
        return sum(len(subs) for subs in self._subscriptions.values())

    def _remove(self, subscription: Subscription) -> None:
        subs = self._subscriptions.get(subscription.key)
        if subs is None:
            return
        if subscription in subs:
            subs.remove(subscription)
        if not subs:
            del self._subscriptions[subscription.key]
