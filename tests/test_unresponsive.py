"""A call that gets no answer names the real cause: a stopped browser, a long text being
typed, a slow capture, or a busy page; and a session or tab closed under a call says so."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time

import psutil
import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import (
    BrowserNotResponding,
    CDPTimeout,
    DeadlineExceeded,
    PageBusy,
    SessionClosed,
    TabClosed,
)
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tabwarden.unresponsive import explain_timeout

pytestmark = pytest.mark.browser

MARGIN_S = 1.5
"""Slack for a loaded two-core machine on top of a call's deadline and its checks."""


def _ref(snapshot, name: str) -> str:
    refs = [n.ref for n in snapshot.root.walk() if n.name == name and n.ref]
    assert refs, snapshot.text
    return refs[0]


@pytest.fixture
async def busy_page(browser, server):
    tab = await browser.new_tab(server.url("/busy.html"))
    yield tab, await tab.snapshot()
    if not tab.closed:
        await tab.close()


async def _until_sent(browser, count: int) -> None:
    """Until the connection has sent ``count`` more commands (a wait is polling)."""
    start = browser.connection.stats["sent"]
    budget = Budget(10)
    while browser.connection.stats["sent"] < start + count:
        await budget.sleep(0.01)


async def test_a_stopped_browser_is_the_cause_not_the_page(server):
    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab(server.url("/index.html"))
        pid = browser.endpoint.pid
        calls = {
            "snapshot": lambda: tab.snapshot(timeout_ms=1000),
            "tabs": lambda: browser.tabs(timeout_ms=1000),
            "navigate": lambda: tab.navigate(server.url("/second.html"), timeout_ms=1000),
        }
        os.kill(pid, signal.SIGSTOP)
        try:
            for name, make in calls.items():
                started = time.monotonic()
                with pytest.raises(BrowserNotResponding) as caught:
                    await make()
                elapsed = time.monotonic() - started
                assert elapsed < 1.0 + 1.0 + MARGIN_S, (name, elapsed)
                assert not isinstance(caught.value, PageBusy)
                assert str(caught.value).startswith("the browser itself is not answering"), name
                assert f"its process (pid {pid}) is stopped" in caught.value.message
                assert f"kill -CONT {pid}" in caught.value.hint
                assert "terminate_script" not in str(caught.value)
        finally:
            os.kill(pid, signal.SIGCONT)
        # Resumed, it answers again (the navigation sent while it was stopped may land).
        assert (await tab.navigate(server.url("/index.html"))).title == "Test home"
        assert browser.metrics.snapshot()["browser_not_responding"] == 3
    gone = psutil.wait_procs([psutil.Process(pid)], timeout=10)[1] if psutil.pid_exists(pid) else []
    assert not gone, "the browser was left running"


async def test_a_busy_page_is_still_a_busy_page(busy_page):
    tab, snap = busy_page
    await tab.click(_ref(snap, "Spin forever"))
    with pytest.raises(PageBusy) as caught:
        await tab.get_text(timeout_ms=800)
    assert f"tab {tab.id} did not answer" in str(caught.value)
    assert "tab.terminate_script()" in caught.value.hint and "tab.close()" in caught.value.hint
    assert await tab.terminate_script()


async def test_a_busy_page_over_a_tool_call_names_the_tools(server):
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "tools")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/busy.html")})
        snap = (await call_tool(ctx, "browser_snapshot", {})).text
        spin = re.search(r'button "Spin forever" \[ref=(e\d+)\]', snap)
        assert spin, snap
        await call_tool(ctx, "browser_click", {"ref": spin.group(1)})
        with pytest.raises(PageBusy) as caught:
            await call_tool(ctx, "browser_get_text", {"timeout_ms": 800})
        hint = caught.value.hint
        assert 'browser_terminate_script {"tab_id": "t1"}' in hint
        assert 'browser_close_tab {"tab_id": "t1"}' in hint
        assert "tab.terminate_script()" not in hint
        stopped = await call_tool(ctx, "browser_terminate_script", {})
        assert stopped.data["stopped"] and "stopped the script" in stopped.text
        assert "Click me" in (await call_tool(ctx, "browser_get_text", {})).text


async def test_typing_a_huge_text_stops_at_its_deadline_and_offers_fill(busy_page):
    tab, snap = busy_page
    field = _ref(snap, "Field")
    text = "x" * 2_000_000
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded) as caught:
        await tab.type(text, ref=field, timeout_ms=2000)
    assert time.monotonic() - started < 2.0 + MARGIN_S
    error = caught.value
    assert not isinstance(error, PageBusy)
    found = re.search(r"([\d,]+) of 2,000,000 characters were typed", error.message)
    assert found, error.message
    assert "the page answers" in error.message
    assert f"tab.fill(ref='{field}', value='…')" in error.hint
    assert "the rest was not typed" in error.hint
    typed = (await tab.evaluate("document.getElementById('field').value.length")).value
    assert typed == int(found.group(1).replace(",", "")) > 0


async def test_typing_into_a_busy_page_is_a_busy_page(busy_page):
    tab, snap = busy_page
    await tab.click(_ref(snap, "Spin forever"))
    with pytest.raises(PageBusy):
        await tab.type("x" * 1000, ref=_ref(snap, "Field"), timeout_ms=800)
    assert await tab.terminate_script()


async def test_a_slow_capture_is_told_from_a_busy_page(browser, busy_page):
    tab, snap = busy_page
    no_capture = CDPTimeout(
        "Page.captureScreenshot", 1.0, session_id=tab.frames.main_session.session_id
    )
    slow = await explain_timeout(browser, tab, no_capture, Budget(1.0))
    assert not isinstance(slow, PageBusy)
    assert "the capture itself is slow" in slow.message
    assert "full_page=False" in slow.hint and "terminate_script" not in slow.hint
    await tab.click(_ref(snap, "Spin forever"))
    busy = await explain_timeout(browser, tab, no_capture, Budget(1.0))
    assert isinstance(busy, PageBusy) and "Page.captureScreenshot" in busy.message
    assert await tab.terminate_script()


async def test_closing_the_session_during_a_wait_says_the_session_was_closed(server):
    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab(server.url("/index.html"))
        waiting = asyncio.create_task(tab.wait(text="never", timeout_ms=20000))
        await _until_sent(browser, 2)
        started = time.monotonic()
        await browser.close()
        with pytest.raises(SessionClosed) as caught:
            await waiting
        assert time.monotonic() - started < 15
    assert "was closed while this call ran" in str(caught.value)
    assert "-32001" not in str(caught.value)


async def test_closing_the_tab_during_a_wait_says_the_tab_was_closed(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    waiting = asyncio.create_task(tab.wait(text="never", timeout_ms=20000))
    await _until_sent(browser, 2)
    await tab.close()
    with pytest.raises(TabClosed) as caught:
        await waiting
    assert f"tab {tab.id} is closed" in str(caught.value)
