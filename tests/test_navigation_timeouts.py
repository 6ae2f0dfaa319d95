"""A navigation that runs out of time says how far it got, and suggests a stage to wait
for only when the load reached it."""

from __future__ import annotations

import pytest

from tabwarden.calls import writing_calls
from tabwarden.errors import NavigationTimeout
from tabwarden.navigation import navigation_timeout
from tabwarden.tools.call_writers import CommandLineWriter, ToolCallWriter


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


async def _timeout(tab, url: str, wait_until: str) -> NavigationTimeout:
    with pytest.raises(NavigationTimeout) as caught:
        await tab.navigate(url, wait_until=wait_until, timeout_ms=1500)
    return caught.value


async def test_load_that_never_comes_suggests_domcontentloaded_which_came(tab, server):
    error = await _timeout(tab, server.url("/never_loads.html"), "load")
    assert "did not reach 'load'" in error.message
    assert "(it reached commit and domcontentloaded)" in error.message
    assert "firstPaint" not in error.message  # paint events are not stages
    assert "wait_until='domcontentloaded', which it reached" in error.hint
    assert "images, styles, scripts or frames are still loading" in error.hint


async def test_domcontentloaded_that_never_comes_suggests_commit_not_itself(tab, server):
    error = await _timeout(tab, server.url("/blocking_script.html"), "domcontentloaded")
    assert "did not reach 'domcontentloaded'" in error.message
    assert "(it reached commit)" in error.message
    assert "wait_until='commit', which it reached" in error.hint
    assert "domcontentloaded" not in error.hint


async def test_networkidle_that_never_comes_suggests_load(tab, server):
    error = await _timeout(tab, server.url("/polls_forever.html"), "networkidle")
    assert "(it reached commit, domcontentloaded and load)" in error.message
    assert "wait_until='load', which it reached" in error.hint
    assert "keeps the network busy" in error.hint


async def test_nothing_committed_suggests_no_stage(tab, server):
    error = await _timeout(tab, server.url("/slow?ms=5000"), "commit")
    assert "got no response within 1500 ms" in error.message
    assert error.reached == ()
    assert "wait_until='" not in error.hint and "timeout_ms" in error.hint
    # The tab is still usable afterwards.
    assert (await tab.navigate(server.url("/second.html"))).title == "Second page"


def test_the_suggestion_is_written_for_the_surface_in_use():
    reached = ("commit", "DOMContentLoaded")
    with writing_calls(ToolCallWriter()):
        tool = navigation_timeout("http://x/", "load", reached, 1.0).hint
    with writing_calls(CommandLineWriter()):
        cli = navigation_timeout("http://x/", "load", reached, 1.0).hint
    assert '"wait_until": "domcontentloaded"' in tool and "a larger timeout_ms" in tool
    assert "--wait-until domcontentloaded" in cli and "a larger --timeout-ms" in cli
