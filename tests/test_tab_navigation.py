"""Tab navigation against local pages: statuses, stages, errors, history, dialogs on load."""

from __future__ import annotations

import time

import pytest

from tabwarden.errors import (
    InvalidArgument,
    InvalidURL,
    NavigationFailed,
    NavigationTimeout,
    NoHistoryEntry,
)


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


async def test_navigate_reports_url_title_status_and_tab(tab, server):
    result = await tab.navigate(server.url("/index.html"))
    assert result.url == server.url("/index.html")
    assert result.title == "Test home"
    assert result.status == 200 and result.ok
    assert result.tab_id == tab.id
    assert result.reached[:3] == ("commit", "DOMContentLoaded", "load")
    assert tab.url == server.url("/index.html") and tab.title == "Test home"


@pytest.mark.parametrize("status", [404, 500, 503])
async def test_http_errors_are_reported_with_their_status_not_raised(tab, server, status):
    result = await tab.navigate(server.url(f"/status/{status}"))
    assert result.status == status
    assert not result.ok
    assert result.title == f"Status {status}"
    assert result.to_dict()["ok"] is False


async def test_http_error_with_an_empty_body_still_reports_the_status(tab, server):
    result = await tab.navigate(server.url("/empty-status/404"))
    assert result.status == 404 and not result.ok


async def test_redirect_reports_the_final_url_and_status(tab, server):
    result = await tab.navigate(server.url("/redirect?to=/second.html"))
    assert result.url == server.url("/second.html")
    assert result.status == 200
    assert result.title == "Second page"


async def test_a_page_without_title_has_an_empty_title(tab, server):
    result = await tab.navigate(server.url("/notitle.html"))
    assert result.title == ""


async def test_same_document_navigation_is_reported_as_such(tab, server):
    await tab.navigate(server.url("/index.html"))
    result = await tab.navigate(server.url("/index.html#part"))
    assert result.same_document
    assert result.url == server.url("/index.html#part")
    assert result.status is None


async def test_bare_host_gets_a_scheme(tab, server):
    result = await tab.navigate(f"127.0.0.1:{server.port}/second.html")
    assert result.url == server.url("/second.html")


@pytest.mark.parametrize("bad", ["", "   ", "not a url", "javascript:alert(1)", "ftp://x/"])
async def test_invalid_urls_are_refused_before_the_browser_sees_them(tab, bad):
    with pytest.raises(InvalidURL) as caught:
        await tab.navigate(bad)
    assert caught.value.hint


async def test_connection_refused_says_nothing_listens(tab, closed_port):
    with pytest.raises(NavigationFailed) as caught:
        await tab.navigate(f"http://127.0.0.1:{closed_port}/")
    assert caught.value.net_error == "net::ERR_CONNECTION_REFUSED"
    assert "nothing is listening" in str(caught.value)
    assert "server is running" in caught.value.hint


async def test_dns_failure_is_reported_as_such(tab):
    started = time.monotonic()
    with pytest.raises(NavigationFailed) as caught:
        await tab.navigate("http://no-such-host.invalid/", timeout_ms=10_000)
    assert caught.value.net_error in (
        "net::ERR_NAME_NOT_RESOLVED",
        "net::ERR_NAME_RESOLUTION_FAILED",
    )
    assert "could not be resolved" in str(caught.value)
    assert time.monotonic() - started < 10


async def test_navigation_past_its_deadline_raises_promptly_saying_what_it_reached(tab, server):
    started = time.monotonic()
    with pytest.raises(NavigationTimeout) as caught:
        await tab.navigate(server.url("/never_loads.html"), timeout_ms=1500)
    elapsed = time.monotonic() - started
    assert 1.45 <= elapsed < 3.0  # well before a navigation left to run on
    assert caught.value.wait_until == "load"
    assert "DOMContentLoaded" in caught.value.reached
    assert isinstance(caught.value, TimeoutError)
    # The tab is still usable afterwards.
    assert (await tab.navigate(server.url("/second.html"))).title == "Second page"


async def test_wait_until_stages_return_at_their_stage(tab, server):
    committed = await tab.navigate(server.url("/never_loads.html"), wait_until="commit")
    assert committed.reached[0] == "commit" and "load" not in committed.reached
    dom = await tab.navigate(server.url("/never_loads.html"), wait_until="domcontentloaded")
    assert "DOMContentLoaded" in dom.reached and "load" not in dom.reached


async def test_networkidle_waits_for_requests_after_load(tab, server):
    loaded = await tab.navigate(server.url("/busy_network.html"), wait_until="load")
    idle = await tab.navigate(server.url("/busy_network.html"), wait_until="networkidle")
    assert "networkIdle" in idle.reached
    # three chained 300 ms fetches run after load, then 500 ms of quiet
    assert idle.elapsed_ms >= loaded.elapsed_ms + 900


async def test_bad_wait_until_and_timeout_are_refused(tab, server):
    with pytest.raises(InvalidArgument) as caught:
        await tab.navigate(server.url("/index.html"), wait_until="idle")
    assert "networkidle" in caught.value.hint
    for timeout in (0, -5, float("nan"), 10_000_000):
        with pytest.raises(InvalidArgument):
            await tab.navigate(server.url("/index.html"), timeout_ms=timeout)


async def test_back_forward_and_reload(tab, server):
    await tab.navigate(server.url("/index.html"))
    await tab.navigate(server.url("/second.html"))
    back = await tab.back()
    assert back.url == server.url("/index.html") and back.title == "Test home"
    forward = await tab.forward()
    assert forward.url == server.url("/second.html")
    reloaded = await tab.reload()
    assert reloaded.url == server.url("/second.html") and reloaded.status == 200
    with pytest.raises(NoHistoryEntry):
        await tab.forward()


async def test_back_with_no_history_says_so(browser):
    tab = await browser.new_tab()
    try:
        with pytest.raises(NoHistoryEntry) as caught:
            await tab.back()
        assert "navigate" in caught.value.hint
    finally:
        await tab.close()


async def test_alert_during_load_does_not_hang_navigate(tab, server):
    started = time.monotonic()
    result = await tab.navigate(server.url("/alert_on_load.html"), timeout_ms=10_000)
    assert time.monotonic() - started < 3
    assert result.dialog is not None
    assert result.dialog.type == "alert"
    assert result.dialog.message == "loaded and blocking"
    assert "load" not in result.reached
    assert tab.pending_dialog == result.dialog
    assert tab.info().dialog == result.dialog
    # Navigating away is still possible and clears the dialog.
    after = await tab.navigate(server.url("/second.html"), timeout_ms=10_000)
    assert after.title == "Second page"
    assert tab.pending_dialog is None
