"""A crashed page fails calls at once, saying so, and a reload brings it back."""

from __future__ import annotations

import asyncio
import time

import psutil
import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.errors import TabCrashed

pytestmark = pytest.mark.browser


async def test_a_crashed_page_fails_fast_and_reload_recovers(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    other = await browser.new_tab(server.url("/second.html"))
    try:
        started = time.monotonic()
        with pytest.raises(TabCrashed):
            await tab.cdp("Page.crash", timeout_ms=20_000)  # no reply ever comes
        assert time.monotonic() - started < 10  # not the call's 20 s deadline
        started = time.monotonic()
        with pytest.raises(TabCrashed, match="crashed") as info:
            await tab.snapshot(timeout_ms=20_000)
        assert time.monotonic() - started < 3  # not its 20 s deadline
        assert "reload" in info.value.hint
        assert (await other.snapshot()).title == "Second page"  # other tabs are fine
        await tab.reload()
        snap = await tab.snapshot()
        assert snap.title == "Test home"
        with pytest.raises(TabCrashed):
            await tab.cdp("Page.crash")
        await tab.navigate(server.url("/second.html"))  # a navigation recovers it too
        assert (await tab.snapshot()).title == "Second page"
    finally:
        await asyncio.gather(tab.close(), other.close(), return_exceptions=True)


async def _running(session) -> None:
    """Until a call runs on the session (it has entered its page call)."""
    budget = Budget(10)
    while not session.busy:
        budget.check("the call to start")
        await asyncio.sleep(0)


@pytest.mark.parametrize(
    "call",
    [
        lambda tab: tab.wait(text="never there", timeout_ms=12_000),
        lambda tab: tab.wait(time_ms=8_000, timeout_ms=12_000),
        lambda tab: tab.evaluate("new Promise(() => {})", timeout_ms=12_000),
    ],
    ids=["wait for text", "wait a time", "evaluate a promise"],
)
async def test_a_crash_ends_the_calls_running_on_the_tab_at_once(browser, server, call):
    tab = await browser.new_tab(server.url("/index.html"))
    try:
        running = asyncio.ensure_future(call(tab))
        await _running(browser)
        started = time.monotonic()
        with pytest.raises(TabCrashed):
            await tab.cdp("Page.crash", timeout_ms=10_000)
        with pytest.raises(TabCrashed) as caught:
            await running
        assert time.monotonic() - started < 2.0
        assert f"the page of tab {tab.id}" in str(caught.value) and "crashed" in str(caught.value)
        assert "usable again" not in str(caught.value)
        await tab.reload()
        assert (await tab.snapshot()).title == "Test home"
    finally:
        await tab.close()


async def test_killing_the_renderer_ends_a_running_wait(server):
    async with tabwarden.launch(isolated=True) as session:
        tab = await session.new_tab(server.url("/index.html"))
        waiting = asyncio.ensure_future(tab.wait(time_ms=8_000, timeout_ms=12_000))
        await _running(session)
        browser_process = psutil.Process(session.endpoint.pid)
        renderers = [
            child
            for child in browser_process.children(recursive=True)
            if "--type=renderer" in child.cmdline()
        ]
        assert renderers
        started = time.monotonic()
        for renderer in renderers:
            renderer.kill()
        with pytest.raises(TabCrashed):
            await waiting
        assert time.monotonic() - started < 2.0
