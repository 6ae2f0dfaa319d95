"""A crashed page fails calls at once, saying so, and a reload brings it back."""

from __future__ import annotations

import asyncio
import time

import pytest

from tabwarden.errors import TabCrashed


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
        assert time.monotonic() - started < 1
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
