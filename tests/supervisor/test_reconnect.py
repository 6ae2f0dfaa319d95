"""Reconnecting to an attached browser after its socket dropped, and giving up."""

from __future__ import annotations

import time

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import ConnectionLost
from tests.fakes.cdp_proxy import CDPProxy


async def _until(predicate, what: str, seconds: float = 10) -> None:
    budget = Budget(seconds)
    while not predicate():
        budget.check(what)
        await budget.sleep(0.01)


def _config(give_up_s: float = 300) -> Config:
    config = Config()
    config.browser.reconnect_give_up_s = give_up_s
    config.safety.allow_attach = True  # the user consented to attaching
    return config


@pytest.fixture
async def proxy(browser):
    proxy = CDPProxy(browser.endpoint.ws_url)
    await proxy.start()
    yield proxy
    await proxy.stop()


async def test_dropped_socket_reconnects_keeping_tabs_and_reconciling_dialogs(proxy, server):
    async with tabwarden.attach(proxy.http_url, config=_config()) as guest:
        tab = await guest.new_tab(server.url("/dialogs.html"))
        snap = await tab.snapshot()
        alert = next(n.ref for n in snap.root.walk() if n.name == "Alert")
        dialog = (await tab.click(alert)).dialog
        assert dialog is not None
        await proxy.drop_clients()
        await _until(lambda: guest.state().connection == "reconnecting", "noticing the drop")
        # While reconnecting, what is known is kept and shown.
        assert [d.id for d in guest.supervisor.pending()] == [dialog.id]
        started = time.monotonic()
        await _until(lambda: guest.state().connection == "connected", "reconnecting")
        assert time.monotonic() - started < 5
        assert proxy.connections == 2
        await tab.snapshot()  # the tab is set up again on the new socket
        # Headless Chromium closes a dialog whose client went away: the supervisor says
        # so instead of keeping a phantom.
        assert guest.supervisor.pending() == []
        closed = guest.state(tab).recent_dialogs[-1]
        assert closed.dialog.id == dialog.id and closed.closed_by == "remote"
        assert tab.id in [t.id for t in await guest.tabs()]
        result = await tab.navigate(server.url("/second.html"))  # the same Tab object works
        assert result.title == "Second page"


async def test_calls_during_a_proxy_restart_wait_or_fail_clearly(proxy, server):
    async with tabwarden.attach(proxy.http_url, config=_config()) as guest:
        tab = await guest.new_tab(server.url("/index.html"))
        await proxy.stop()
        await _until(lambda: guest.state().connection == "reconnecting", "noticing the stop")
        with pytest.raises(ConnectionLost) as caught:
            await tab.navigate(server.url("/second.html"), timeout_ms=300)
        assert "reconnecting" in str(caught.value) and "retry" in caught.value.hint
        await proxy.restart()
        result = await tab.navigate(server.url("/second.html"), timeout_ms=15_000)
        assert result.title == "Second page"
        assert guest.state().connection == "connected"


async def test_reconnecting_gives_up_with_a_clear_state(proxy, server):
    async with tabwarden.attach(proxy.http_url, config=_config(give_up_s=1.5)) as guest:
        tab = await guest.new_tab(server.url("/index.html"))
        await proxy.stop()
        await _until(lambda: guest.state().connection == "gave_up", "giving up", seconds=10)
        assert tab.closed
        with pytest.raises(tabwarden.TabClosed) as caught:
            await tab.navigate(server.url("/second.html"))
        assert "gave up reconnecting" in str(caught.value)
