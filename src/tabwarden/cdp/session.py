"""A CDP session: the browser itself, or one attached target, on the shared connection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..budget import Budget
from .connection import CDPConnection, EventQueue
from .protocol import EventCallback, Subscription

__all__ = ["CDPSession"]

JSONObject = dict[str, Any]


class CDPSession:
    """Commands and events of one target, routed by ``sessionId`` (flatten mode).

    The browser session has ``session_id=None``; a page, iframe or worker has the
    id that ``Target.attachedToTarget`` gave it.
    """

    def __init__(
        self, connection: CDPConnection, session_id: str | None, target_id: str | None = None
    ) -> None:
        self.connection = connection
        self.session_id = session_id
        self.target_id = target_id

    def __repr__(self) -> str:
        return f"CDPSession(session_id={self.session_id!r}, target_id={self.target_id!r})"

    async def send(
        self, method: str, params: JSONObject | None = None, *, budget: Budget
    ) -> JSONObject:
        return await self.connection.send(method, params, budget=budget, session_id=self.session_id)

    def subscribe(self, method: str, callback: EventCallback) -> Subscription:
        return self.connection.subscribe(method, callback, self.session_id)

    def event_queue(self, methods: Iterable[str]) -> EventQueue:
        return self.connection.event_queue(methods, self.session_id)

    async def attach(self, target_id: str, *, budget: Budget) -> CDPSession:
        """Attach to a target in flatten mode (``Target.attachToTarget``)."""
        reply = await self.connection.send(
            "Target.attachToTarget", {"targetId": target_id, "flatten": True}, budget=budget
        )
        return CDPSession(self.connection, reply["sessionId"], target_id)

    async def detach(self, *, budget: Budget) -> None:
        """Detach (``Target.detachFromTarget``) and drop this session's subscriptions."""
        if self.session_id is None:
            return
        try:
            await self.connection.send(
                "Target.detachFromTarget", {"sessionId": self.session_id}, budget=budget
            )
        finally:
            self.connection.drop_session(self.session_id)
