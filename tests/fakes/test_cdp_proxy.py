"""The CDP proxy fake against a real Chromium: relaying, dialog auto-dismissal, drops, restarts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import ClientConnection, connect

import tabwarden
from tabwarden.budget import Budget
from tabwarden.errors import EndpointError, TabwardenError
from tests.fakes.cdp_proxy import OWN_ID_BASE, CDPProxy


def _get_json(url: str) -> dict[str, Any]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("application/json")
        data: dict[str, Any] = json.loads(response.read())
        return data


async def _wait_disconnected(session: tabwarden.BrowserSession, what: str) -> None:
    budget = Budget(5)
    while session.connected:
        budget.check(what)
        await budget.sleep(0.02)


async def _close_tabs(owner: tabwarden.BrowserSession, target_ids: list[str]) -> None:
    """Close tabs a session could not close itself (its connection was cut)."""
    for target_id in target_ids:
        with contextlib.suppress(TabwardenError):
            await owner.get_tab(target_id).close(timeout_ms=5000)


async def test_attach_through_the_proxy_opens_a_tab_and_reads_its_title(browser, server):
    proxy = CDPProxy(browser.endpoint.ws_url)
    session = None
    try:
        ws_url = await proxy.start()
        browser_path = urlsplit(browser.endpoint.ws_url).path
        assert ws_url == f"ws://127.0.0.1:{proxy.port}{browser_path}"
        version = await asyncio.to_thread(_get_json, proxy.http_url + "/json/version")
        assert version["webSocketDebuggerUrl"] == ws_url
        assert version["Browser"] == browser.product
        assert version["Protocol-Version"]

        session = await tabwarden.attach(proxy.http_url, consent=True)
        assert session.endpoint.ws_url == ws_url  # the session talks to the proxy
        tab = await session.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
        assert proxy.connections == 1
        assert proxy.messages_up > 0
        assert proxy.messages_down > proxy.messages_up  # replies plus events
        assert proxy.dismissed == []
    finally:
        if session is not None:
            await session.close()
        await proxy.stop()


async def test_auto_dismiss_answers_a_confirm_with_false(browser, server):
    proxy = CDPProxy(browser.endpoint.ws_url, auto_dismiss_dialogs=True)
    session = None
    try:
        await proxy.start()
        session = await tabwarden.attach(proxy.http_url, consent=True)
        tab = await session.new_tab(server.url("/index.html"))
        started = time.monotonic()
        # Without the proxy's answer the evaluation would block until the timeout.
        reply = await tab.cdp(
            "Runtime.evaluate",
            {"expression": "confirm('go?')", "returnByValue": True},
            timeout_ms=5000,
        )
        elapsed = time.monotonic() - started
        assert reply["result"] == {"type": "boolean", "value": False}
        assert elapsed < 2.5  # far from the 5 s timeout
        assert proxy.dismissed == [("confirm", "go?")]
        assert tab.pending_dialog is None  # the client saw the dialog close
    finally:
        if session is not None:
            await session.close()
        await proxy.stop()
    assert proxy.dismiss_errors == []


async def _command(
    ws: ClientConnection,
    seen: list[dict[str, Any]],
    command_id: int,
    method: str,
    params: dict[str, Any] | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """Send one command on a raw socket; collect every frame until its reply."""
    message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
    if session_id is not None:
        message["sessionId"] = session_id
    await ws.send(json.dumps(message))
    async with asyncio.timeout(5):
        while True:
            data = json.loads(await ws.recv())
            seen.append(data)
            if data.get("id") == command_id:
                assert "error" not in data, data
                result: dict[str, Any] = data["result"]
                return result


async def test_prompt_is_dismissed_on_its_session_and_the_proxys_reply_is_swallowed(browser):
    proxy = CDPProxy(browser.endpoint.ws_url, auto_dismiss_dialogs=True)
    target_id = None
    seen: list[dict[str, Any]] = []
    try:
        ws_url = await proxy.start()
        async with connect(ws_url, max_size=None, proxy=None) as ws:
            created = await _command(ws, seen, 1, "Target.createTarget", {"url": "about:blank"})
            target_id = created["targetId"]
            attached = await _command(
                ws, seen, 2, "Target.attachToTarget", {"targetId": target_id, "flatten": True}
            )
            session_id = attached["sessionId"]
            await _command(ws, seen, 3, "Page.enable", session_id=session_id)
            reply = await _command(
                ws,
                seen,
                4,
                "Runtime.evaluate",
                {"expression": "prompt('name?', 'preset')", "returnByValue": True},
                session_id=session_id,
            )
            # A dismissed prompt returns null, whatever its default text.
            assert reply["result"] == {"type": "object", "subtype": "null", "value": None}
            opened = [m for m in seen if m.get("method") == "Page.javascriptDialogOpening"]
            assert [(m["sessionId"], m["params"]["type"]) for m in opened] == [
                (session_id, "prompt")
            ]
            await _command(ws, seen, 5, "Target.closeTarget", {"targetId": target_id})
            target_id = None
        assert proxy.dismissed == [("prompt", "name?")]
        # The client's ids came back unchanged; no reply to the proxy's own command leaked.
        assert [m["id"] for m in seen if "id" in m] == [1, 2, 3, 4, 5]
        assert not any(m.get("id", 0) >= OWN_ID_BASE for m in seen)
    finally:
        if target_id is not None:
            await _close_tabs(browser, [target_id])
        await proxy.stop()


async def test_drop_clients_closes_the_session_but_not_the_browser(browser, server):
    proxy = CDPProxy(browser.endpoint.ws_url)
    sessions: list[tabwarden.BrowserSession] = []
    leftovers: list[str] = []
    owner_tab = None
    try:
        await proxy.start()
        config = tabwarden.Config()
        config.browser.reconnect_give_up_s = 0  # counted connections: no reconnecting
        session = await tabwarden.attach(proxy.http_url, consent=True, config=config)
        sessions.append(session)
        tab = await session.new_tab(server.url("/index.html"))
        leftovers.append(tab.target_id)
        assert session.connected

        await proxy.drop_clients()
        await _wait_disconnected(session, "the dropped session noticing its closed socket")

        # The browser behind the proxy kept running: its owner still drives it.
        owner_tab = await browser.new_tab(server.url("/second.html"))
        assert owner_tab.title == "Second page"
        # The proxy kept listening: a new client gets through.
        again = await tabwarden.attach(proxy.http_url, consent=True)
        sessions.append(again)
        assert (await again.cdp("Browser.getVersion"))["product"] == browser.product
        assert proxy.connections == 2
    finally:
        for each in sessions:
            await each.close()
        await proxy.stop()
        if owner_tab is not None:
            leftovers.append(owner_tab.target_id)
        await _close_tabs(browser, leftovers)


async def test_stop_then_restart_serves_the_same_url_again(browser, server):
    proxy = CDPProxy(browser.endpoint.ws_url)
    sessions: list[tabwarden.BrowserSession] = []
    leftovers: list[str] = []
    try:
        ws_url = await proxy.start()
        port = proxy.port
        config = tabwarden.Config()
        config.browser.reconnect_give_up_s = 0  # counted connections: no reconnecting
        first = await tabwarden.attach(proxy.http_url, consent=True, config=config)
        sessions.append(first)
        leftovers.append((await first.new_tab(server.url("/index.html"))).target_id)

        await proxy.stop()
        await _wait_disconnected(first, "the client noticing the stopped proxy")
        with pytest.raises(EndpointError):
            await tabwarden.attach(f"http://127.0.0.1:{port}", consent=True, timeout_ms=3000)

        assert await proxy.restart() == ws_url
        assert proxy.port == port
        second = await tabwarden.attach(f"http://127.0.0.1:{port}", consent=True)
        sessions.append(second)
        tab = await second.new_tab(server.url("/second.html"))
        assert tab.title == "Second page"
        assert proxy.connections == 2
    finally:
        for each in sessions:
            await each.close()
        await proxy.stop()
        await _close_tabs(browser, leftovers)
