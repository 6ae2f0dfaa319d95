"""Storage on Firefox: what differs from Chromium, and what the page cannot fool."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.errors import EngineUnsupported, InvalidArgument
from tabwarden.firefox.session import FirefoxSession

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
async def firefox() -> AsyncIterator[FirefoxSession]:
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        yield session


async def test_a_page_that_replaced_its_storage_cannot_fool_the_read(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_storage.html"))
    await tab.storage("clear", "local")
    await tab.storage("set", "local", name="real", value="1")
    await tab.evaluate(
        "Storage.prototype.getItem = () => 'fooled';"
        "Object.defineProperty(window, 'localStorage', {value: {length: 0}})"
    )
    got = await tab.storage("get", "local")
    assert got.items == ({"name": "real", "value": "1"},)


async def test_state_files_are_refused_and_a_blank_tab_has_no_storage(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_storage.html"))
    with pytest.raises(EngineUnsupported) as caught:
        await tab.storage("save_state")
    assert "save_state" in str(caught.value)
    blank = await firefox.new_tab()
    try:
        with pytest.raises(InvalidArgument) as no_origin:
            await blank.storage("get", "local")
        assert "about:blank" in str(no_origin.value)
    finally:
        await blank.close()


async def test_cookies_of_another_domain_and_with_attributes(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_storage.html"))
    await tab.storage("clear", "cookies", all=True)
    await tab.storage("set", "cookies", name="sid", value="x", same_site="Strict", expires=4e9)
    await tab.storage("set", "cookies", name="elsewhere", value="y", domain="example.test")
    page_cookies = (await tab.storage("get", "cookies")).items
    assert [c["name"] for c in page_cookies] == ["sid"]
    assert page_cookies[0]["sameSite"] == "Strict" and page_cookies[0]["expires"] > 0
    every = {c["name"] for c in (await tab.storage("get", "cookies", all=True)).items}
    assert every == {"sid", "elsewhere"}
    one = await tab.storage("get", "cookies", url="http://example.test/")
    assert [c["name"] for c in one.items] == ["elsewhere"]
    gone = await tab.storage("delete", "cookies", name="elsewhere", domain="example.test")
    assert gone.changed == 1
    cleared = await tab.storage("clear", "cookies", all=True)
    assert cleared.changed == 1
