"""Tabs of a session: new, list, switch, close, popups, unknown ids."""

from __future__ import annotations

import pytest

from tabwarden.budget import Budget
from tabwarden.errors import InvalidArgument, TabClosed, TabNotFound

pytestmark = pytest.mark.browser


async def _wait_for_tab_count(browser, count: int, seconds: float = 10):
    budget = Budget(seconds)
    while True:
        tabs = await browser.tabs()
        if len(tabs) == count:
            return tabs
        budget.check(f"waiting for {count} tabs (have {len(tabs)})")
        await budget.sleep(0.02)


async def _close_all_but(browser, keep):
    for tab in await browser.tabs():
        if tab is not keep:
            await tab.close()


async def test_first_new_tab_reuses_the_browsers_blank_tab():
    import tabwarden

    async with tabwarden.launch(isolated=True) as session:
        tab = await session.new_tab()
        assert [t.id for t in await session.tabs()] == [tab.id]
        assert repr(session).endswith(" 1 tab>")
        second = await session.new_tab()
        assert [t.id for t in await session.tabs()] == [tab.id, second.id]
        assert session.active_tab is second
        assert repr(session).endswith(" 2 tabs>")


async def test_tabs_switch_and_close_keep_an_active_tab(browser, server):
    first = await browser.new_tab(server.url("/index.html"))
    await _close_all_but(browser, first)
    second = await browser.new_tab(server.url("/second.html"))
    assert browser.active_tab is second
    infos = await browser.tab_infos()
    assert [(i.id, i.title, i.active) for i in infos] == [
        (first.id, "Test home", False),
        (second.id, "Second page", True),
    ]
    assert await browser.switch_tab(first.id) is first
    assert browser.active_tab is first
    await browser.switch_tab(second.target_id)  # the CDP target id works too
    await second.close()
    assert second.closed
    assert browser.active_tab is first
    assert [t.id for t in await browser.tabs()] == [first.id]
    with pytest.raises(TabClosed):
        await second.navigate(server.url("/index.html"))


async def test_unknown_tab_id_lists_the_open_tabs(browser):
    tab = await browser.current_tab()
    with pytest.raises(TabNotFound) as caught:
        await browser.switch_tab("t999")
    assert tab.id in str(caught.value)
    with pytest.raises(InvalidArgument):
        browser.get_tab("")


async def test_target_blank_link_and_window_open_become_tabs(browser, server):
    page = await browser.new_tab(server.url("/popups.html"))
    await _close_all_but(browser, page)
    await page.cdp(
        "Runtime.evaluate",
        {"expression": "document.getElementById('blank').click()", "userGesture": True},
    )
    tabs = await _wait_for_tab_count(browser, 2)
    await page.cdp(
        "Runtime.evaluate",
        {"expression": "document.getElementById('open').click()", "userGesture": True},
    )
    tabs = await _wait_for_tab_count(browser, 3)
    popups = [t for t in tabs if t is not page]
    assert all(t.opener is page for t in popups)
    budget = Budget(10)
    while {t.title for t in await browser.tabs() if t is not page} != {"Second page", "Test home"}:
        budget.check("waiting for the popups to load")
        await budget.sleep(0.02)
    assert browser.active_tab is page  # a popup does not steal the agent's tab
    infos = {i.id: i for i in await browser.tab_infos()}
    assert all(infos[t.id].opener == page.id for t in popups)
    # A popup is a full tab: it navigates like any other.
    result = await popups[0].navigate(server.url("/notitle.html"))
    assert result.status == 200


async def test_closing_the_active_tab_falls_back_to_the_previous_one(browser, server):
    a = await browser.new_tab(server.url("/index.html"))
    b = await browser.new_tab(server.url("/second.html"))
    await browser.switch_tab(a.id)
    await browser.switch_tab(b.id)
    await browser.close_tab()
    assert browser.active_tab is a


async def test_a_session_closed_right_after_it_started_warns_of_nothing(caplog):
    """A page still being set up when its session closes went away with it: its set-up
    commands fail with "session not found", which is not a warning for the user."""
    import logging

    import tabwarden

    caplog.set_level(logging.WARNING, logger="tabwarden")
    for _ in range(8):  # the set-up races the close: several closes meet it
        async with tabwarden.launch(isolated=True):
            pass
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
