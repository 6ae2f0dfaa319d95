"""The session's viewport in a real Chromium: what pages see, whatever their window."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

import tabwarden
from tabwarden import cli
from tabwarden.backends.local import LocalChromium, LocalOptions
from tabwarden.budget import Budget
from tabwarden.config import Config

pytestmark = pytest.mark.browser

PAGE = "/state_emulation.html"
SIZE = "[innerWidth, innerHeight]"


async def seen(tab) -> tuple[int, int]:
    return tuple((await tab.evaluate(SIZE)).value)


async def popup_of(session, opener):
    budget = Budget(10)
    while not (popups := [t for t in await session.tabs() if t.opener is opener]):
        budget.check("waiting for the popup")
        await budget.sleep(0.02)
    await popups[0].wait(load_state="load")
    return popups[0]


async def test_the_configured_viewport_is_what_pages_see_in_every_tab_and_window(server):
    config = Config()
    config.browser.window_width, config.browser.window_height = 900, 600
    async with tabwarden.launch(isolated=True, config=config) as session:
        tab = await session.new_tab(server.url(PAGE))
        assert await seen(tab) == (900, 600)  # not the window's 900 x (600 - its top bar)
        assert (await tab.screenshot()).height == 600
        await tab.evaluate("document.body.style.height = '4000px'")
        assert (await tab.screenshot(full_page=True)).height >= 4000
        assert await seen(tab) == (900, 600)
        # A window sized otherwise (as a user does in a headed browser) keeps it.
        window = await session.cdp("Browser.getWindowForTarget", {"targetId": tab.target_id})
        bounds = {"width": 700, "height": 500}
        await session.cdp("Browser.setWindowBounds", {**window, "bounds": bounds})
        assert await seen(tab) == (900, 600)
        # New tabs, and popups in windows the opener sized.
        assert await seen(await session.new_tab(server.url(PAGE))) == (900, 600)
        await tab.evaluate(f"window.open({server.url(PAGE)!r}, 'pop', 'width=400,height=300')")
        assert await seen(await popup_of(session, tab)) == (900, 600)


async def test_one_emulated_side_keeps_the_other_and_reset_gives_the_viewport_back(browser, server):
    tab = await browser.new_tab(server.url(PAGE))
    try:
        assert await seen(tab) == (1280, 720)
        await browser.emulate("iphone-15")
        assert await seen(tab) == (393, 852)
        # Leaving the preset with a width of its own: the height is the session's again,
        # not the preset's.
        result = await browser.emulate(device="", width=700)
        assert await seen(tab) == (700, 720)
        assert "viewport: 700x720" in result.text()
        result = await browser.emulate(reset=True)
        assert await seen(tab) == (1280, 720)
        assert "viewport 1280x720" in result.text()
    finally:
        await browser.emulate(reset=True)


async def test_an_attached_browser_keeps_its_windows_size_where_nothing_is_emulated(server):
    backend = LocalChromium(LocalOptions(isolated=True))
    endpoint = await backend.start(Budget(30))
    try:
        async with tabwarden.attach(endpoint.ws_url, consent=True) as guest:
            tab = await guest.new_tab(server.url(PAGE))
            window = await seen(tab)
            assert window[0] == 1280 and window[1] < 720  # the browser's top bar takes some
            await guest.emulate("iphone-15")
            assert await seen(tab) == (393, 852)
            await guest.emulate(device="", width=700)
            assert await seen(tab) == (700, window[1])
            await guest.emulate(reset=True)
            assert await seen(tab) == window
    finally:
        await backend.close()


async def test_the_viewport_size_flag_is_what_pages_see(monkeypatch, server):
    from tabwarden.surfaces import mcp

    options: list[Any] = []
    monkeypatch.setattr(mcp, "run", options.append)
    done = CliRunner().invoke(cli.app, ["mcp", "--isolated", "--viewport-size", "1280x720"])
    assert done.exit_code == 0, done.output
    config = options[0].config
    async with tabwarden.launch(config=config) as session:
        tab = await session.new_tab(server.url(PAGE))
        assert await seen(tab) == (1280, 720)
