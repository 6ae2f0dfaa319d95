"""The asyncio WebDriver BiDi connection: CDP's connection with BiDi's protocol.

One WebSocket, one reader task, commands multiplexed by id, each under its own
Budget, every pending command failed at once when the socket closes: all of it is
:class:`~tabwarden.cdp.connection.CDPConnection`. BiDi adds that the browser sends
an event only once the session subscribed to it (``session.subscribe``): a local
subscriber sees nothing until :meth:`BiDiConnection.subscribe_remote` asked for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ..budget import Budget
from ..cdp.connection import CDPConnection
from ..cdp.protocol import CDPProtocol
from ..errors import BiDiTimeout, DeadlineExceeded
from .protocol import BiDiProtocol

__all__ = ["BiDiConnection"]

JSONObject = dict[str, Any]


class BiDiConnection(CDPConnection):
    """A WebDriver BiDi client over one WebSocket (``ws://host:port/session``)."""

    wire = "BiDi"

    def new_protocol(self) -> CDPProtocol[asyncio.Future[JSONObject]]:
        return BiDiProtocol()

    def timeout_error(
        self, method: str, timeout_s: float, session_id: str | None
    ) -> DeadlineExceeded:
        return BiDiTimeout(method, timeout_s)

    async def subscribe_remote(
        self, events: Sequence[str], budget: Budget, *, contexts: Sequence[str] = ()
    ) -> str:
        """Ask the browser to send ``events`` (modules such as ``log`` or single events),
        for every context or only ``contexts``; returns the subscription's id ("" when
        the browser names none)."""
        params: JSONObject = {"events": list(events)}
        if contexts:
            params["contexts"] = list(contexts)
        reply = await self.send("session.subscribe", params, budget=budget)
        subscription = reply.get("subscription")
        return subscription if isinstance(subscription, str) else ""

    async def unsubscribe_remote(self, subscription: str, budget: Budget) -> None:
        """End one subscription made by :meth:`subscribe_remote`."""
        await self.send("session.unsubscribe", {"subscriptions": [subscription]}, budget=budget)
