"""The raw cdp escape hatch cannot switch the URL policy, downloads or set-up off."""

from __future__ import annotations

import pytest

from tabwarden.errors import InvalidArgument, PolicyDenied
from tabwarden.safety.reserved import RESERVED_METHODS


@pytest.mark.parametrize("method", sorted(RESERVED_METHODS))
async def test_reserved_methods_are_refused_on_browser_and_tab(browser, method):
    with pytest.raises(InvalidArgument, match="cannot be sent through cdp"):
        await browser.cdp(method, {})
    tab = await browser.current_tab()
    with pytest.raises(InvalidArgument, match="cannot be sent through cdp") as info:
        await tab.cdp(method, {})
    assert info.value.hint


async def test_the_policy_still_holds_after_a_refused_fetch_disable(browser, server):
    tab = await browser.current_tab()
    with pytest.raises(InvalidArgument):
        await tab.cdp("Fetch.disable")
    decisions_before = len(browser.policy_decisions(blocked_only=True))
    with pytest.raises(PolicyDenied, match="cloud metadata"):
        await tab.navigate(server.url("/redirect?to=http://169.254.169.254/latest/meta-data/"))
    assert len(browser.policy_decisions(blocked_only=True)) > decisions_before


async def test_ordinary_methods_still_go_through(browser):
    tab = await browser.current_tab()
    reply = await tab.cdp("Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True})
    assert reply["result"]["value"] == 42
