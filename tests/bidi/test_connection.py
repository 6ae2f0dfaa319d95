"""The BiDi connection against a tiny local WebSocket server that answers as Firefox does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from tabwarden.bidi.connection import BiDiConnection
from tabwarden.budget import Budget
from tabwarden.cdp.protocol import Event
from tabwarden.errors import BiDiError, BiDiTimeout, ConnectionLost, EndpointError


@dataclass
class FakeBrowser:
    """Answers commands by method: ``replies[method](params)`` returns the result, raises
    ``KeyError`` for an error reply, or returns ``None`` to never answer."""

    url: str = ""
    received: list[dict[str, Any]] = field(default_factory=list)
    replies: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = field(
        default_factory=dict
    )
    clients: list[ServerConnection] = field(default_factory=list)

    async def handle(self, ws: ServerConnection) -> None:
        self.clients.append(ws)
        async for text in ws:
            message = json.loads(text)
            self.received.append(message)
            answer = self.replies.get(message["method"], lambda params: {})
            try:
                result = answer(message["params"])
            except KeyError as exc:
                reply = {
                    "type": "error",
                    "id": message["id"],
                    "error": str(exc.args[0]),
                    "message": "refused",
                }
                await ws.send(json.dumps(reply))
                continue
            if result is None:
                continue
            delay = result.pop("_delay", 0)
            if delay:
                asyncio.get_running_loop().call_later(
                    delay,
                    lambda m=message, r=result: asyncio.ensure_future(
                        ws.send(json.dumps({"type": "success", "id": m["id"], "result": r}))
                    ),
                )
                continue
            await ws.send(json.dumps({"type": "success", "id": message["id"], "result": result}))

    async def event(self, method: str, params: dict[str, Any]) -> None:
        for ws in self.clients:
            await ws.send(json.dumps({"type": "event", "method": method, "params": params}))


@pytest.fixture
async def fake() -> AsyncIterator[FakeBrowser]:
    browser = FakeBrowser()
    async with serve(browser.handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        browser.url = f"ws://127.0.0.1:{port}/session"
        yield browser


async def test_a_command_gets_its_reply(fake):
    fake.replies["session.status"] = lambda params: {"ready": False, "message": "busy"}
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    try:
        reply = await connection.send("session.status", budget=Budget(5))
    finally:
        await connection.close()
    assert reply == {"ready": False, "message": "busy"}
    assert fake.received[0]["params"] == {}


async def test_replies_out_of_order_reach_their_own_commands(fake):
    fake.replies["script.evaluate"] = lambda params: {
        "_delay": params["delay"],
        "value": params["expression"],
    }
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    try:
        slow = connection.send(
            "script.evaluate", {"expression": "slow", "delay": 0.3}, budget=Budget(5)
        )
        fast = connection.send(
            "script.evaluate", {"expression": "fast", "delay": 0.0}, budget=Budget(5)
        )
        results = await asyncio.gather(slow, fast)
    finally:
        await connection.close()
    assert [r["value"] for r in results] == ["slow", "fast"]


async def test_an_error_reply_raises_bidi_error(fake):
    def refuse(params: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("no such frame")

    fake.replies["browsingContext.close"] = refuse
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    try:
        with pytest.raises(BiDiError) as caught:
            await connection.send("browsingContext.close", {"context": "x"}, budget=Budget(5))
        # The connection stays usable after an error.
        assert await connection.send("session.status", budget=Budget(5)) == {}
    finally:
        await connection.close()
    assert caught.value.error == "no such frame"


async def test_a_command_out_of_budget_times_out_and_leaves_the_connection_usable(fake):
    fake.replies["script.evaluate"] = lambda params: None  # never answered
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    try:
        with pytest.raises(BiDiTimeout) as caught:
            await connection.send("script.evaluate", {}, budget=Budget(0.2))
        assert caught.value.method == "script.evaluate"
        assert connection.stats["pending"] == 0
        assert await connection.send("session.status", budget=Budget(5)) == {}
    finally:
        await connection.close()


async def test_events_reach_subscribers_once_subscribed_remotely(fake):
    fake.replies["session.subscribe"] = lambda params: {"subscription": "sub-1"}
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    try:
        subscription = await connection.subscribe_remote(
            ["log.entryAdded"], Budget(5), contexts=["ctx"]
        )
        with connection.event_queue(["log.entryAdded"]) as queue:
            await fake.event("log.entryAdded", {"text": "hello"})
            event = await queue.get(Budget(10))
        await connection.unsubscribe_remote(subscription, Budget(5))
    finally:
        await connection.close()
    assert subscription == "sub-1"
    assert event == Event("log.entryAdded", {"text": "hello"}, None)
    sent = [(m["method"], m["params"]) for m in fake.received]
    assert sent == [
        ("session.subscribe", {"events": ["log.entryAdded"], "contexts": ["ctx"]}),
        ("session.unsubscribe", {"subscriptions": ["sub-1"]}),
    ]


async def test_the_socket_closing_fails_every_pending_command_at_once(fake):
    fake.replies["script.evaluate"] = lambda params: None
    connection = await BiDiConnection.connect(fake.url, Budget(5))
    pending = [
        asyncio.ensure_future(connection.send("script.evaluate", {}, budget=Budget(30)))
        for _ in range(3)
    ]
    with connection.event_queue(["never.happens"]) as queue:
        waiting = asyncio.ensure_future(queue.get(Budget(30)))
        while len(fake.received) < 3:
            await asyncio.sleep(0.01)
        await fake.clients[0].close()
        results = await asyncio.wait_for(
            asyncio.gather(*pending, waiting, return_exceptions=True), 10
        )
    assert all(isinstance(r, ConnectionLost) for r in results), results
    assert "BiDi connection" in str(results[0])
    with pytest.raises(ConnectionLost):
        await connection.send("session.status", budget=Budget(5))


async def test_connecting_to_a_closed_port_raises_endpoint_error(closed_port):
    with pytest.raises(EndpointError) as caught:
        await BiDiConnection.connect(f"ws://127.0.0.1:{closed_port}/session", Budget(5))
    assert "BiDi socket" in str(caught.value)
