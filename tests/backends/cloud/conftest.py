"""Fixtures of the cloud provider tests: a fake of each provider's API on loopback handing
out the module's real Chromium, behind a CDP gateway where the provider has one."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from tests.fakes.cdp_proxy import CDPProxy
from tests.fakes.cloud_api import API_KEYS, FakeProviderAPI

ENV_KEYS = {
    "browserbase": "BROWSERBASE_API_KEY",
    "browser-use": "BROWSER_USE_API_KEY",
    "firecrawl": "FIRECRAWL_API_KEY",
    "steel": "STEEL_API_KEY",
}


@pytest.fixture(autouse=True)
def _provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each provider's key in its documented variable (a test may take one away)."""
    for provider, env in ENV_KEYS.items():
        monkeypatch.setenv(env, API_KEYS[provider])
    monkeypatch.delenv("BROWSERBASE_PROJECT_ID", raising=False)


@pytest_asyncio.fixture(scope="module")
async def gateway(browser) -> AsyncIterator[CDPProxy]:
    """The module's Chromium behind a gateway that closes native dialogs within ~5 ms and
    keeps the browser when a client sends Browser.close (Browserbase's connectUrl)."""
    proxy = CDPProxy(
        browser.endpoint.ws_url, auto_dismiss_dialogs=True, dismiss_delay_s=0.005, keep_browser=True
    )
    await proxy.start()
    yield proxy
    await proxy.stop()


@pytest_asyncio.fixture(scope="module")
async def plain_gateway(browser) -> AsyncIterator[CDPProxy]:
    """The module's Chromium behind a gateway that only keeps the browser on Browser.close
    (a CDP service reached by a URL template)."""
    proxy = CDPProxy(browser.endpoint.ws_url, keep_browser=True)
    await proxy.start()
    yield proxy
    await proxy.stop()


def endpoint_for(provider: str, browser, gateway: CDPProxy) -> Callable[[str], str]:
    """Where each fake's browsers are: the gateway for Browserbase, the Chromium's DevTools
    HTTP base for Browser Use (its cdpUrl is one), the socket itself for the others."""
    ws_url = browser.endpoint.ws_url
    if provider == "browserbase":
        return lambda session_id: gateway.ws_url
    if provider == "browser-use":
        host = urlsplit(ws_url).netloc
        return lambda session_id: f"http://{host}"
    return lambda session_id: ws_url


@pytest.fixture
def fake_api(browser, gateway) -> Iterator[Callable[[str], FakeProviderAPI]]:
    """``fake_api(provider)``: a started fake of that provider's API (stopped after the test)."""
    started: list[FakeProviderAPI] = []

    def make(provider: str) -> FakeProviderAPI:
        fake = FakeProviderAPI(provider, endpoint_for(provider, browser, gateway)).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()


@pytest.fixture
def bare_api(closed_port) -> Iterator[Callable[[str], FakeProviderAPI]]:
    """``bare_api(provider)``: a fake API whose browsers cannot be reached (a closed port),
    for what happens before and around connecting; no Chromium runs."""
    started: list[FakeProviderAPI] = []
    nowhere = f"ws://127.0.0.1:{closed_port}/devtools/browser/gone"

    def make(provider: str) -> FakeProviderAPI:
        fake = FakeProviderAPI(provider, lambda session_id: nowhere).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()
