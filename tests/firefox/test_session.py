"""What the Firefox engine does beyond the conformance suite: tabs and popups from
context events, cross-origin frames, console, PDF, dialog policies, and a hung script."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import (
    BrowserCrashed,
    ConnectionLost,
    EvaluateTimeout,
    NoHistoryEntry,
    PolicyDenied,
    TabClosed,
)
from tabwarden.firefox import FirefoxSession
from tests.conftest import browser_processes

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
async def firefox() -> AsyncIterator[FirefoxSession]:
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        yield session


async def _until(check, what: str) -> None:
    budget = Budget(10)
    while not check():
        assert not budget.expired, what
        await budget.sleep(0.02)


async def test_a_popup_is_a_tab_with_its_opener_and_closing_it_is_seen(firefox, server):
    tab = await firefox.new_tab(server.url("/popups.html"))
    before = {t.id for t in firefox.tabs}
    snapshot = (await tab.snapshot()).text
    ref = next(line for line in snapshot.splitlines() if "window.open" in line)
    receipt = await tab.click(ref.split("[ref=")[1].split("]")[0])
    await _until(lambda: len(firefox.tabs) > len(before), "no popup tab appeared")
    popup = next(t for t in firefox.tabs if t.id not in before)
    assert receipt.new_tabs == [popup.id], receipt.text
    assert f"new tab opened: {popup.id}" in receipt.text
    assert popup.opener is tab
    assert firefox.active_tab is popup
    await _until(lambda: popup.url.endswith("/index.html"), "the popup never loaded")
    with contextlib.suppress(TabClosed):  # the tab may close before its reply
        await popup.evaluate("window.close()")
    await _until(lambda: popup.closed, "the popup's close was not seen")
    with pytest.raises(TabClosed):
        await popup.snapshot()
    await tab.close()


async def test_a_cross_origin_iframe_is_walked_and_its_refs_act(firefox, server, other_origin):
    tab = await firefox.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    text = (await tab.snapshot()).text
    assert text.count("- iframe") == 2, text
    cross = text.split('iframe "Cross origin"')[1]
    assert "[ref=e" in cross, text
    await tab.close()


async def test_pdf_screenshot_switch_tab_and_no_history(firefox, server):
    tab = await firefox.new_tab(server.url("/engines.html"))
    pdf = await tab.save_pdf()
    assert pdf.path.read_bytes().startswith(b"%PDF")
    pdf.path.unlink()
    assert (await tab.screenshot()).data.startswith(b"\x89PNG")
    assert await firefox.switch_tab(tab.id) is tab
    with pytest.raises(NoHistoryEntry):
        await tab.forward()
    await tab.close()


async def test_a_script_that_hangs_holds_only_its_tab_and_closing_the_tab_ends_it(
    firefox, server, other_origin
):
    other = await firefox.new_tab(other_origin.url("/engines.html"))
    hung = await firefox.new_tab(server.url("/engines.html"))
    started = time.monotonic()
    with pytest.raises(EvaluateTimeout) as caught:
        await hung.evaluate("while (true) {}", timeout_ms=500)
    assert time.monotonic() - started < 5
    assert caught.value.terminated is False
    assert "close the tab" in caught.value.hint
    assert (await other.evaluate("1 + 1", timeout_ms=5000)).value == 2  # other tabs keep working
    await hung.close(timeout_ms=5000)
    fresh = await firefox.new_tab(server.url("/engines.html"), timeout_ms=10_000)
    assert (await fresh.evaluate("document.title", timeout_ms=5000)).value == "Engines"
    await other.close()
    await fresh.close()


@pytest.mark.parametrize("policy", ["auto_accept", "auto_dismiss"])
async def test_the_dialog_policy_answers_at_once(policy, server):
    config = Config()
    config.browser.dialog_policy = policy
    async with tabwarden.launch(isolated=True, engine="firefox", config=config) as session:
        tab = session.active_tab
        await tab.navigate(server.url("/engines.html"))
        snapshot = (await tab.snapshot()).text
        ref = next(line for line in snapshot.splitlines() if 'button "Confirm"' in line)
        receipt = await tab.click(ref.split("[ref=")[1].split("]")[0])
        assert receipt.dialog is None
        [closed] = receipt.closed_dialogs
        assert closed.closed_by == "auto_policy" and closed.accepted is (policy == "auto_accept")
        assert closed.dialog.message == "Sure?"
        assert session.recent_dialogs(tab.id) == [closed]
        expected = "confirm true" if policy == "auto_accept" else "confirm false"
        budget = Budget(10)
        while (await tab.evaluate("document.title")).value != expected:
            assert not budget.expired
            await budget.sleep(0.05)
        assert tab.pending_dialog is None


async def test_a_browser_that_dies_fails_its_calls_at_once_then_is_relaunched(server):
    session = await tabwarden.launch(isolated=True, engine="firefox")
    profile = session.backend.profile_dir
    try:
        tab = session.active_tab
        await tab.navigate(server.url("/engines.html"))
        pending = asyncio.ensure_future(tab.evaluate("new Promise(() => {})", timeout_ms=30_000))
        await asyncio.sleep(0)  # the command is on its way
        started = time.monotonic()
        os.killpg(session.backend.pid, signal.SIGKILL)
        with pytest.raises((ConnectionLost, TabClosed)):
            await pending
        assert time.monotonic() - started < 5
        with pytest.raises((BrowserCrashed, TabClosed)) as caught:
            await tab.navigate(server.url("/engines.html"))
        assert caught.value.hint
        assert session.browser_lost and session.tabs == []
        with pytest.raises(BrowserCrashed) as crashed:
            _ = session.connection
        assert "relaunch" in (crashed.value.hint or "")
        fresh = await session.new_tab(server.url("/engines.html"))  # relaunches Firefox
        assert not session.browser_lost and fresh.id != tab.id
        assert (await fresh.snapshot()).text.count('button "Confirm"') == 1
        notice = session.take_relaunch_notice()
        assert notice is not None and session.take_relaunch_notice() is None  # told once
        said = notice.describe()
        assert f"tab {tab.id} (" in said and "relaunched it" in said, said
        # How the process ended, once it is reaped (the socket may close a moment before).
        assert "SIGKILL" in said or "connection to Firefox was lost" in said, said
        assert not profile.parent.exists()  # the dead browser's throwaway profile is gone
        relaunched_profile = session.backend.profile_dir
    finally:
        await session.close()
    assert not relaunched_profile.parent.exists()
    assert not browser_processes(relaunched_profile)


async def test_the_url_policy_holds_for_the_agent_and_for_the_page(server, other_origin):
    config = Config()
    config.policy.deny = ["localhost"]  # other_origin's host
    async with tabwarden.launch(isolated=True, engine="firefox", config=config) as session:
        tab = session.active_tab
        with pytest.raises(PolicyDenied) as caught:
            await tab.navigate(other_origin.url("/engines.html"))
        assert "deny list entry localhost" in str(caught.value)
        assert tab.url == "about:blank"  # refused before anything was sent
        # A frame of the page on the denied host is never loaded.
        await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
        text = (await tab.snapshot()).text
        assert "Frame button" in text.split('iframe "Cross origin"')[0]  # the allowed frame
        assert "Frame button" not in text.split('iframe "Cross origin"')[1], text
        assert session.blocked and session.blocked[-1].url.startswith(other_origin.base)
        # The page's own link to the denied host goes nowhere.
        await tab.evaluate(f"location.href = {other_origin.url('/engines.html')!r}")
        budget = Budget(10)
        while len(session.blocked) < 2:
            assert not budget.expired, "the page's navigation was not judged"
            await budget.sleep(0.05)
        assert (await tab.evaluate("location.host")).value != other_origin.base.split("//")[1]


async def test_an_unanswered_dialog_is_dismissed_by_the_watchdog(server):
    config = Config()
    config.browser.dialog_timeout_s = 0.5
    async with tabwarden.launch(isolated=True, engine="firefox", config=config) as session:
        tab = session.active_tab
        await tab.navigate(server.url("/engines.html"))
        snapshot = (await tab.snapshot()).text
        ref = next(line for line in snapshot.splitlines() if 'button "Confirm"' in line)
        receipt = await tab.click(ref.split("[ref=")[1].split("]")[0])
        assert receipt.dialog is not None  # must_respond: left for the agent, for a while
        budget = Budget(10)
        while tab.pending_dialog is not None:
            assert not budget.expired, "the watchdog never dismissed the dialog"
            await budget.sleep(0.05)
        while (await tab.evaluate("document.title")).value != "confirm false":
            assert not budget.expired, "the page never saw the dismissal"
            await budget.sleep(0.05)
        [closed] = session.recent_dialogs(tab.id)
        assert (closed.closed_by, closed.accepted) == ("watchdog", False)
        assert tab.pending_dialog is None
