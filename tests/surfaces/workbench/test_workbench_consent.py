"""An attach request without consent is shown at the workbench; the person's answer
reaches the waiting tool call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
import websockets

import tabwarden
from tabwarden.config import Config, load_config
from tabwarden.errors import ConsentRequired
from tabwarden.surfaces.workbench import Workbench
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser


def _isolated() -> Config:
    """The tests' configuration (its workspace a temporary folder), with throwaway profiles."""
    config = load_config()
    config.browser.isolated = True
    return config


@pytest_asyncio.fixture(scope="module")
async def owner(server: Any) -> AsyncIterator[tabwarden.BrowserSession]:
    """Someone's running browser, with a page of theirs open."""
    async with tabwarden.launch(isolated=True) as session:
        await session.new_tab(server.url("/index.html"))
        yield session


def _http_url(session: tabwarden.BrowserSession) -> str:
    assert session.endpoint is not None
    port = session.endpoint.ws_url.split(":")[2].split("/")[0]
    return f"http://127.0.0.1:{port}"


@pytest_asyncio.fixture
async def manager() -> AsyncIterator[tabwarden.SessionManager]:
    async with tabwarden.SessionManager(_isolated()) as sessions:
        yield sessions


async def _consent_answered(
    bench: Workbench, ctx: ToolContext, owner: tabwarden.BrowserSession, allow: bool
) -> Any:
    url = bench.base_url.replace("http://", "ws://") + f"/ws?token={bench.token}"
    async with websockets.connect(url, origin=websockets.Origin(bench.base_url)) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        attaching = asyncio.create_task(
            call_tool(ctx, "browser_attach", {"cdp_url": _http_url(owner), "timeout_ms": 20_000})
        )
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if message["type"] == "consent":
                break
        request = message["request"]
        assert request["cdp_url"] == _http_url(owner)
        assert "Test home" in request["description"] and request["tabs"]
        await ws.send(
            json.dumps({"type": "consent", "id": 1, "request_id": request["id"], "allow": allow})
        )
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if message["type"] == "consent_closed":
                assert message["allowed"] is allow
                break
        return await asyncio.wait_for(asyncio.gather(attaching, return_exceptions=True), 30)


async def test_the_person_allows_and_the_waiting_call_attaches(
    manager: tabwarden.SessionManager, owner: tabwarden.BrowserSession
) -> None:
    async with Workbench() as bench:
        bench.watch_manager(manager)
        ctx = ToolContext(manager, "agent")
        (result,) = await _consent_answered(bench, ctx, owner, allow=True)
        assert not isinstance(result, BaseException), result
        assert result.data["tabs"] >= 1
        await ctx.close()
    assert await owner.tabs(), "detaching closed the owner's tabs"


async def test_the_person_denies_and_the_call_is_refused(
    manager: tabwarden.SessionManager, owner: tabwarden.BrowserSession
) -> None:
    async with Workbench() as bench:
        bench.watch_manager(manager)
        ctx = ToolContext(manager, "agent")
        (result,) = await _consent_answered(bench, ctx, owner, allow=False)
        assert isinstance(result, ConsentRequired)
        assert "refused" in result.message and "do not retry" in result.hint
        assert "agent" not in manager.names()


async def test_with_no_page_open_the_request_is_refused_at_once(
    manager: tabwarden.SessionManager, owner: tabwarden.BrowserSession
) -> None:
    async with Workbench() as bench:
        bench.watch_manager(manager)
        ctx = ToolContext(manager, "agent")
        with pytest.raises(ConsentRequired) as caught:
            await asyncio.wait_for(
                call_tool(ctx, "browser_attach", {"cdp_url": _http_url(owner)}), 15
            )
        assert "Test home" in caught.value.message
    assert manager.ask_person is None  # the workbench let go of the manager
