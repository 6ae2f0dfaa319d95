"""Every way a session with a cloud browser ends releases that browser at the provider: the
idle reaper, interpreter exit, SIGTERM; and what a dropped socket does per provider."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.manager import SessionManager
from tests.fakes.cdp_proxy import CDPProxy
from tests.fakes.cloud_api import API_KEYS, Answer, FakeProviderAPI

ROOT = Path(__file__).resolve().parents[3]


def _config(fake: FakeProviderAPI, **browser: object) -> Config:
    config = Config()
    config.browser.backend = fake.provider
    config.cloud.api_url = fake.api_url
    for key, value in browser.items():
        setattr(config.browser, key, value)
    return config


async def test_429_then_a_browser_the_session_uses(fake_api, server):
    fake = fake_api("firecrawl")
    fake.answer_next(Answer(429, {"error": "rate limited"}, {"Retry-After": "0.2"}))
    async with tabwarden.launch(backend="firecrawl", cloud={"api_url": fake.api_url}) as session:
        tab = await session.new_tab(server.url("/index.html"))
        assert tab.url.endswith("/index.html")
        browser_id = session.backend.browser.id
    assert len(fake.calls_to("POST", "/v2/browser")) == 2
    assert fake.released == [browser_id]


async def test_a_managed_session_keeps_its_browser_and_the_idle_reaper_releases_it(fake_api):
    fake = fake_api("steel")
    async with SessionManager(_config(fake, inactivity_timeout_s=0.4)) as manager:
        first = await manager.get_or_create("task")
        assert await manager.get_or_create("task") is first  # the same browser, not a new one
        assert len(fake.created) == 1
        budget = Budget(15)
        while "task" not in manager.reaped:
            budget.check("waiting for the idle reaper")
            await budget.sleep(0.05)
    assert await asyncio.to_thread(fake.wait_released, fake.created[0])
    assert fake.released == fake.created


def _child(fake: FakeProviderAPI, body: str) -> subprocess.Popen[str]:
    """A Python process that starts a session with the fake's provider and runs ``body``."""
    script = textwrap.dedent(
        """
        import sys
        import tabwarden.sync
        session = tabwarden.sync.launch(timeout_ms=20_000)
        print("ready", session.backend.browser.id, flush=True)
        """
    ) + textwrap.dedent(body)
    env = {
        **os.environ,
        "TABWARDEN_BROWSER__BACKEND": fake.provider,
        "TABWARDEN_CLOUD__API_URL": fake.api_url,
        "STEEL_API_KEY": API_KEYS["steel"],
        "BROWSER_USE_API_KEY": API_KEYS["browser-use"],
    }
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ready(child: subprocess.Popen[str]) -> str:
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.startswith("ready "):
        child.kill()
        raise AssertionError(f"the child did not start: {line!r} {child.communicate()[1]}")
    return line.split()[1]


async def test_a_process_that_exits_without_closing_releases_its_browser(fake_api):
    fake = fake_api("steel")
    child = _child(fake, "sys.exit(0)  # no close: the exit releases it\n")
    browser_id = await asyncio.to_thread(_ready, child)
    assert await asyncio.to_thread(child.wait, 30) == 0
    assert await asyncio.to_thread(fake.wait_released, browser_id)


async def test_sigterm_releases_the_browser_before_the_process_dies(fake_api):
    fake = fake_api("browser-use")
    child = _child(fake, "sys.stdin.read()  # until killed\n")
    browser_id = await asyncio.to_thread(_ready, child)
    assert fake.released == []
    child.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(child.wait, 30) == -signal.SIGTERM
    assert await asyncio.to_thread(fake.wait_released, browser_id)


async def test_a_dropped_socket_is_reconnected_when_the_provider_keeps_the_browser(browser, server):
    proxy = CDPProxy(browser.endpoint.ws_url, keep_browser=True)
    await proxy.start()
    fake = FakeProviderAPI("steel", lambda session_id: proxy.ws_url).start()
    try:
        async with tabwarden.launch(backend="steel", cloud={"api_url": fake.api_url}) as session:
            tab = await session.new_tab(server.url("/index.html"))
            await proxy.drop_clients()
            budget = Budget(15)
            while proxy.connections < 2 or not session.connected:
                budget.check("waiting for the session to reconnect")
                await budget.sleep(0.05)
            assert (await tab.evaluate("location.pathname")).value == "/index.html"
            assert fake.created == [session.backend.browser.id] and fake.released == []
        assert fake.released == fake.created
    finally:
        fake.stop()
        await proxy.stop()


async def test_a_dropped_socket_ends_a_browserbase_browser_and_the_next_call_makes_another(
    fake_api, gateway, server
):
    fake = fake_api("browserbase")
    async with tabwarden.launch(backend="browserbase", cloud={"api_url": fake.api_url}) as session:
        first = session.backend.browser.id
        await session.new_tab(server.url("/index.html"))
        await gateway.drop_clients()
        budget = Budget(10)
        while session.connected:
            budget.check("waiting for the session to see the loss")
            await budget.sleep(0.02)
        tab = await session.new_tab(server.url("/second.html"))  # creates another browser
        assert session.last_relaunch is not None
        assert fake.released == [first]
        second = session.backend.browser.id
        assert second != first and fake.created == [first, second]
        assert tab.url.endswith("/second.html")
    assert fake.released == [first, second]


@pytest.mark.parametrize("provider", ["steel"])
async def test_closing_twice_releases_once(provider, fake_api):
    fake = fake_api(provider)
    session = await tabwarden.launch(backend=provider, cloud={"api_url": fake.api_url})
    await session.close()
    await session.close()
    await session.backend.close()
    assert len(fake.released) == 1 and len(fake.calls_to("POST", "/release")) == 1


async def test_the_mcp_server_started_with_backend_releases_on_sigterm(fake_api, server):
    import psutil
    from mcp import Client, StdioServerParameters
    from mcp_types import TextContent

    fake = fake_api("steel")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tabwarden", "mcp", "--backend", "steel"],
        env={
            **os.environ,
            "STEEL_API_KEY": API_KEYS["steel"],
            "TABWARDEN_CLOUD__API_URL": fake.api_url,
        },
    )
    async with Client(params) as client:
        result = await client.call_tool("browser_navigate", {"url": server.url("/index.html")})
        assert not result.is_error, [c.text for c in result.content if isinstance(c, TextContent)]
        assert len(fake.created) == 1 and fake.released == []
        (mcp_server,) = [
            p
            for p in psutil.Process().children(recursive=True)
            if "mcp" in p.cmdline() and "--backend" in p.cmdline()
        ]
        mcp_server.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(fake.wait_released, fake.created[0])
        budget = Budget(15)
        while mcp_server.is_running() and mcp_server.status() != psutil.STATUS_ZOMBIE:
            budget.check("waiting for the server to exit on SIGTERM")
            await budget.sleep(0.05)
