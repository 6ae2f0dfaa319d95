"""The asyncio CDP connection against a real Chromium."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.cdp.connection import CDPConnection
from tabwarden.cdp.protocol import Event
from tabwarden.cdp.session import CDPSession
from tabwarden.errors import CDPError, CDPTimeout, ConnectionLost, EndpointError


async def _page_session(browser: tabwarden.BrowserSession) -> CDPSession:
    tab = await browser.current_tab()
    session = await tab.page.ready_session(Budget(5))
    return session


async def _evaluate(session: CDPSession, expression: str, budget: Budget) -> object:
    reply = await session.send(
        "Runtime.evaluate",
        {"expression": expression, "awaitPromise": True, "returnByValue": True},
        budget=budget,
    )
    return reply["result"].get("value")


async def test_replies_arriving_out_of_order_reach_their_own_commands(browser):
    session = await _page_session(browser)
    finished: list[str] = []

    async def run(name: str, expression: str) -> object:
        value = await _evaluate(session, expression, Budget(5))
        finished.append(name)
        return value

    slow = asyncio.ensure_future(run("slow", "new Promise(r => setTimeout(() => r('s'), 400))"))
    fast = asyncio.ensure_future(run("fast", "'f'"))
    assert await asyncio.gather(slow, fast) == ["s", "f"]
    assert finished == ["fast", "slow"]


async def test_many_concurrent_commands_each_get_their_reply(browser):
    session = await _page_session(browser)
    values = await asyncio.gather(*(_evaluate(session, f"{i} * 2", Budget(5)) for i in range(50)))
    assert values == [i * 2 for i in range(50)]


async def test_expired_command_raises_timeout_and_leaves_connection_usable(browser):
    session = await _page_session(browser)
    started = time.monotonic()
    with pytest.raises(CDPTimeout) as caught:
        await _evaluate(session, "new Promise(() => {})", Budget(0.2))
    elapsed = time.monotonic() - started
    assert 0.18 <= elapsed < 1.0
    assert caught.value.method == "Runtime.evaluate"
    assert isinstance(caught.value, TimeoutError)
    assert await _evaluate(session, "40 + 2", Budget(5)) == 42


def _records_of_waiters(connection: CDPConnection) -> list[str]:
    """The connection's own attributes that map anything to futures: a record of the
    commands in flight kept beside the protocol's."""
    return [
        name
        for name, value in vars(connection).items()
        if isinstance(value, dict) and any(isinstance(v, asyncio.Future) for v in value.values())
    ]


async def test_late_reply_after_timeout_is_dropped_and_nothing_stays_pending(browser):
    session = await _page_session(browser)
    connection = session.connection
    late_before = connection.stats["late_replies"]
    slow = "new Promise(r => setTimeout(() => r(1), 300))"
    in_flight = asyncio.ensure_future(_evaluate(session, slow, Budget(0.1)))
    deadline = Budget(5)
    while connection.stats["pending"] == 0:
        deadline.check("waiting for the command to be sent")
        await deadline.sleep(0.005)
    assert _records_of_waiters(connection) == []  # the protocol's record is the only one
    with pytest.raises(CDPTimeout):
        await in_flight
    assert connection.stats["pending"] == 0
    while connection.stats["late_replies"] == late_before:
        deadline.check("waiting for the late reply")
        await deadline.sleep(0.02)
    assert await _evaluate(session, "'still fine'", Budget(5)) == "still fine"
    assert connection.stats["pending"] == 0


async def test_protocol_error_becomes_cdp_error_with_method_and_code(browser):
    session = await _page_session(browser)
    with pytest.raises(CDPError) as caught:
        await session.send("Nope.notAMethod", budget=Budget(5))
    assert caught.value.method == "Nope.notAMethod"
    assert caught.value.code == -32601
    assert caught.value.session_id == session.session_id
    assert "Nope.notAMethod" in str(caught.value)


async def test_large_messages_of_tens_of_megabytes_arrive_whole(browser):
    session = await _page_session(browser)
    size = 30 * 1024 * 1024
    value = await _evaluate(session, f"'x'.repeat({size})", Budget(30))
    assert isinstance(value, str) and len(value) == size


async def test_an_event_reaches_every_subscriber(browser):
    tab = await browser.current_tab()
    session = await tab.page.ready_session(Budget(5))
    seen: dict[str, list[Event]] = {"a": [], "b": []}
    subs = [
        session.subscribe("Runtime.consoleAPICalled", seen["a"].append),
        session.subscribe("Runtime.consoleAPICalled", seen["b"].append),
    ]
    try:
        await session.send("Runtime.enable", budget=Budget(5))
        with session.event_queue(["Runtime.consoleAPICalled"]) as queue:
            await _evaluate(session, "console.log('ping')", Budget(5))
            event = await queue.get(Budget(5))
        assert event.params["args"][0]["value"] == "ping"
        assert [e.params["args"][0]["value"] for e in seen["a"]] == ["ping"]
        assert [e.params["args"][0]["value"] for e in seen["b"]] == ["ping"]
    finally:
        for sub in subs:
            sub.close()
        await session.send("Runtime.disable", budget=Budget(5))


@pytest.mark.browser
async def test_socket_close_fails_every_pending_command_at_once():
    async with tabwarden.launch(isolated=True) as own:
        session = await _page_session(own)
        pending = [
            asyncio.ensure_future(_evaluate(session, "new Promise(() => {})", Budget(30)))
            for _ in range(3)
        ]
        with own.connection.event_queue(["Never.happens"]) as queue:
            waiting = asyncio.ensure_future(queue.get(Budget(30)))
            started = time.monotonic()
            assert own.endpoint is not None and own.endpoint.pid is not None
            os.killpg(own.endpoint.pid, signal.SIGKILL)
            results = await asyncio.gather(*pending, waiting, return_exceptions=True)
        elapsed = time.monotonic() - started
        assert elapsed < 3.0
        assert all(isinstance(r, ConnectionLost) for r in results), results
        assert own.connection.closed
        with pytest.raises(ConnectionLost):
            await own.connection.send("Browser.getVersion", budget=Budget(5))


async def test_connect_to_a_closed_port_raises_endpoint_error(closed_port):
    with pytest.raises(EndpointError) as caught:
        await CDPConnection.connect(f"ws://127.0.0.1:{closed_port}/devtools/browser/x", Budget(5))
    assert "--remote-debugging-port" in caught.value.hint


async def test_a_second_flatten_session_on_the_same_target_is_independent(browser):
    tab = await browser.current_tab()
    root = CDPSession(browser.connection, None)
    extra = await root.attach(tab.target_id, budget=Budget(5))
    assert extra.session_id and extra.session_id != (await _page_session(browser)).session_id
    assert await _evaluate(extra, "6 * 7", Budget(5)) == 42
    seen: list[Event] = []
    extra.subscribe("Runtime.consoleAPICalled", seen.append)
    await extra.detach(budget=Budget(5))
    with pytest.raises(CDPError):
        await extra.send("Runtime.evaluate", {"expression": "1"}, budget=Budget(5))
    assert browser.connection.stats["subscribers"] >= 0
    assert await _evaluate(await _page_session(browser), "'tab unaffected'", Budget(5)) == (
        "tab unaffected"
    )


async def test_a_tab_whose_session_detached_reattaches_on_its_next_call(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    old = await tab.page.ready_session(Budget(5))
    await old.detach(budget=Budget(5))
    budget = Budget(5)
    while tab.page.session is not None:
        budget.check("waiting for the detach event")
        await budget.sleep(0.01)
    result = await tab.navigate(server.url("/second.html"))
    assert result.title == "Second page" and result.status == 200
    assert tab.page.session is not None and tab.page.session.session_id != old.session_id
    await tab.close()
