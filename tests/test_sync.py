"""The sync facade: same names as the async API, from plain synchronous code."""

from __future__ import annotations

import inspect

import pytest

import tabwarden
import tabwarden.firefox
import tabwarden.sync
from tabwarden.errors import NavigationTimeout
from tabwarden.page import is_engine_side
from tests.conftest import browser_processes


@pytest.mark.browser
def test_sync_launch_navigate_and_close_from_plain_code(server):
    with tabwarden.sync.launch(isolated=True) as browser:
        tab = browser.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
        assert tab.url == server.url("/index.html")
        result = tab.navigate(server.url("/status/404"))
        assert result.status == 404
        assert [t.id for t in browser.tabs()] == [tab.id]
        assert browser.active_tab == tab
        with pytest.raises(NavigationTimeout):
            tab.navigate(server.url("/never_loads.html"), timeout_ms=300)
        profile = browser.backend.profile_dir
    assert browser.closed
    assert not browser_processes(profile)


@pytest.mark.browser
def test_sync_session_manager(server):
    config = tabwarden.Config()
    config.browser.isolated = True
    with tabwarden.sync.SessionManager(config) as manager:
        session = manager.get_or_create("one")
        assert session.open(server.url("/second.html")).title == "Second page"
        assert manager.names() == ["one"]
    assert session.closed


@pytest.mark.browser
def test_sync_launch_of_firefox_gives_its_session_and_pages(server):
    with tabwarden.sync.launch(engine="firefox", isolated=True) as firefox:
        assert isinstance(firefox, tabwarden.sync.FirefoxSession)
        page = firefox.new_tab(server.url("/engines.html"))
        assert isinstance(page, tabwarden.sync.FirefoxPage) and page.title == "Engines"
        ref = next(
            line.split("[ref=")[1].split("]")[0]
            for line in page.snapshot().text.splitlines()
            if 'button "Remove"' in line
        )
        receipt = page.click(ref)
        assert receipt.diff is not None and any("Doomed" in line for line in receipt.diff.removed)
        assert page.evaluate("1 + 1").value == 2
        assert firefox.active_tab == page and page in firefox.tabs
        profile = firefox.backend.profile_dir
    assert firefox.closed
    assert not browser_processes(profile)


@pytest.mark.parametrize(
    ("async_type", "sync_type"),
    [
        (tabwarden.BrowserSession, tabwarden.sync.BrowserSession),
        (tabwarden.Tab, tabwarden.sync.Tab),
        (tabwarden.firefox.FirefoxSession, tabwarden.sync.FirefoxSession),
        (tabwarden.firefox.FirefoxPage, tabwarden.sync.FirefoxPage),
        (tabwarden.SessionManager, tabwarden.sync.SessionManager),
    ],
)
def test_every_public_async_member_has_a_sync_twin(async_type, sync_type):
    for name, member in inspect.getmembers(async_type):
        if name.startswith("_") or is_engine_side(inspect.getattr_static(async_type, name)):
            continue  # private, or the engine's side of a tab (not the user's API)
        if inspect.iscoroutinefunction(member) or isinstance(member, property):
            assert hasattr(sync_type, name), f"sync {async_type.__name__} lacks {name}"
            twin = getattr(sync_type, name)
            assert not inspect.iscoroutinefunction(twin)


def test_the_engine_side_of_a_tab_is_not_in_the_sync_api():
    """What the layers below use of a tab (its CDP page) and of a session (the edge of a
    call) is not the user's API: the sync API has no twin for it."""
    assert is_engine_side(inspect.getattr_static(tabwarden.Tab, "page"))
    assert not hasattr(tabwarden.sync.Tab, "page")
    assert is_engine_side(inspect.getattr_static(tabwarden.BrowserSession, "operation"))
    assert not hasattr(tabwarden.sync.BrowserSession, "operation")
    assert hasattr(tabwarden.sync.Tab, "click") and hasattr(tabwarden.sync.Tab, "url")
