"""The MCP server over streamable HTTP, in this process, driven by the SDK's own client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psutil
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import InvalidArgument, TabwardenError
from tabwarden.surfaces.mcp import MCPOptions, serve_http
from tests.conftest import browser_processes
from tests.local_server import LocalServer

MARKER = f"tabwarden-run-{os.getpid()}-"
"""In this process's browsers' command lines (their throwaway profile folders)."""

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
RAW_TIMEOUT_S = 60.0
"""For raw HTTP requests: httpx's default 5 s is too short on a loaded 2-core machine
(the server shares this process's event loop with the browsers' connections)."""


def raw_http() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=RAW_TIMEOUT_S)


@contextlib.asynccontextmanager
async def serving(options: MCPOptions) -> AsyncIterator[str]:
    """serve_http in a task of this loop; yields its URL, then cancels it (a clean stop)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[str] = loop.create_future()
    task = asyncio.create_task(serve_http(options, ready=ready.set_result))
    await asyncio.wait({ready, task}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    assert ready.done(), "the server did not start"
    try:
        yield ready.result()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest_asyncio.fixture(scope="module")
async def url() -> AsyncIterator[str]:
    async with serving(MCPOptions(http=True, groups=("all",))) as found:
        yield found


@pytest_asyncio.fixture(autouse=True)
async def no_browser_left() -> AsyncIterator[None]:
    """Once a test's clients are gone, so are their browsers (polled, with a deadline)."""
    yield
    budget = Budget(15)
    while browser_processes(MARKER) and not budget.expired:
        await budget.sleep(0.05)
    assert not browser_processes(MARKER), "a client's browser outlived its connection"


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, text(result)
    return text(result)


def ref_of(snapshot: str, label: str) -> str:
    match = re.search(rf'"{re.escape(label)}" \[ref=(e\d+)\]', snapshot)
    assert match, f"no {label!r} in\n{snapshot}"
    return match.group(1)


def mcp_error(exc: BaseException) -> MCPError:
    """The MCPError in what the client raised (its task groups wrap it in a group)."""
    if isinstance(exc, MCPError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            with contextlib.suppress(AssertionError):
                return mcp_error(inner)
    raise AssertionError(f"no MCPError in {exc!r}")


def with_headers(url: str, headers: dict[str, str]) -> Any:
    return streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))


@pytest.mark.browser
async def test_http_end_to_end(url: str, server: LocalServer) -> None:
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    async with Client(url) as client:
        # mode="auto" probes the 2026 era, is told to use the handshake, and does.
        assert client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"browser_navigate", "browser_snapshot", "browser_evaluate"} <= names
        said = await ok(client, "browser_navigate", {"url": server.url("/receipts.html")})
        assert "Receipts" in said
        snapshot = await ok(client, "browser_snapshot", {})
        assert 'button "Change page"' in snapshot
        receipt = await ok(client, "browser_click", {"ref": ref_of(snapshot, "Change page")})
        assert "Renamed" in receipt or "Added" in receipt
        wrong = await client.call_tool("browser_navigate", {"url": 123})
        assert wrong.is_error and "url" in text(wrong)


async def test_http_refuses_foreign_origins_and_hosts(url: str) -> None:
    async with raw_http() as http:
        evil = await http.post(url, json=INIT, headers={**HEADERS, "origin": "https://evil.test"})
        assert evil.status_code == 403
        rebound = await http.post(url, json=INIT, headers={**HEADERS, "host": "evil.test"})
        assert rebound.status_code == 403
        null = await http.post(url, json=INIT, headers={**HEADERS, "origin": "null"})
        assert null.status_code == 403
        local = await http.post(
            url, json=INIT, headers={**HEADERS, "origin": "http://localhost:3000"}
        )
        assert local.status_code == 200
        session = local.headers.get("mcp-session-id")
        assert session
        await http.delete(url, headers={**HEADERS, "mcp-session-id": session})


@pytest.mark.browser
async def test_http_clients_get_isolated_browsers(url: str, server: LocalServer) -> None:
    async with Client(url) as first, Client(url) as second:
        await ok(first, "browser_navigate", {"url": server.url("/set-cookie?name=a&value=1")})
        mine = await ok(first, "browser_navigate", {"url": server.url("/cookies")})
        theirs = await ok(second, "browser_navigate", {"url": server.url("/cookies")})
        assert '"a=1"' in mine
        assert "a=1" not in theirs and "no cookies" in theirs
        assert len({p.pid for p in browser_processes(MARKER) if _is_main(p)}) == 2


def _is_main(proc: Any) -> bool:
    return not any(part.startswith("--type=") for part in proc.cmdline())


@pytest.mark.browser
async def test_http_cancellation_stops_a_hung_evaluation(url: str, server: LocalServer) -> None:
    async with Client(url, mode="legacy") as client:
        await ok(client, "browser_navigate", {"url": server.url("/busy.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        with anyio.move_on_after(1.5) as scope:
            await client.call_tool(
                "browser_evaluate", {"expression": "while (true) {}", "timeout_ms": 120_000}
            )
        assert scope.cancelled_caught
        started = time.monotonic()
        await ok(client, "browser_click", {"ref": ref_of(snapshot, "Click me")})
        assert time.monotonic() - started < 5, "the hung script was not stopped"
        assert "clicked 1" in await ok(client, "browser_evaluate", {"expression": "document.title"})


async def test_http_stateless_era_is_refused_clearly(url: str) -> None:
    with pytest.raises(BaseException) as caught:
        async with Client(url, mode="2026-07-28") as client:
            await client.call_tool("browser_snapshot", {})
    assert "handshake" in str(mcp_error(caught.value))


@pytest.mark.browser
async def test_http_shared_session_serves_stateless_requests(
    server: LocalServer, tmp_path: Path
) -> None:
    options = MCPOptions(http=True, shared_session=True, config=Config())
    options.config.browser.data_dir = tmp_path  # type: ignore[union-attr]
    profile = f"--user-data-dir={tmp_path}"
    async with (
        serving(options) as shared,
        Client(shared, mode="2026-07-28") as one,  # stateless requests are fine here
        Client(shared) as other,
    ):
        await ok(one, "browser_navigate", {"url": server.url("/set-cookie?name=s&value=2")})
        seen = await ok(other, "browser_navigate", {"url": server.url("/cookies")})
        assert '"s=2"' in seen  # one browser for everyone, with the configured profile
        assert browser_processes(profile)
    budget = Budget(15)
    while browser_processes(profile) and not budget.expired:
        await budget.sleep(0.05)
    assert not browser_processes(profile), "the shared browser outlived the server"


@pytest.mark.browser
async def test_http_token(server: LocalServer) -> None:
    options = MCPOptions(http=True, token="s3cret")
    async with serving(options) as secured:
        async with raw_http() as http:
            bare = await http.post(secured, json=INIT, headers=HEADERS)
            assert bare.status_code == 401
            assert bare.headers["www-authenticate"].lower().startswith("bearer")
            wrong = await http.post(
                secured, json=INIT, headers={**HEADERS, "authorization": "Bearer nope"}
            )
            assert wrong.status_code == 401
        with pytest.raises(BaseException) as caught:
            async with Client(secured):
                pass
        mcp_error(caught.value)
        auth = {"authorization": "Bearer s3cret"}
        async with Client(with_headers(secured, auth)) as client:
            said = await ok(client, "browser_navigate", {"url": server.url("/index.html")})
            assert "200" in said


async def test_http_token_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABWARDEN_MCP_TOKEN", "from-env")
    async with serving(MCPOptions(http=True)) as secured, raw_http() as http:
        assert (await http.post(secured, json=INIT, headers=HEADERS)).status_code == 401
        authed = await http.post(
            secured, json=INIT, headers={**HEADERS, "authorization": "Bearer from-env"}
        )
        assert authed.status_code == 200
        await http.delete(
            secured,
            headers={
                **HEADERS,
                "authorization": "Bearer from-env",
                "mcp-session-id": authed.headers["mcp-session-id"],
            },
        )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1", "example.com"])
async def test_http_beyond_loopback_needs_a_token(
    host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABWARDEN_MCP_TOKEN", raising=False)
    with pytest.raises(InvalidArgument) as caught:
        await serve_http(MCPOptions(http=True, host=host))
    assert "token" in str(caught.value) and host in str(caught.value)


async def test_http_everywhere_with_a_token(server: LocalServer) -> None:
    options = MCPOptions(http=True, host="0.0.0.0", token="t0ken")
    async with serving(options) as found:
        assert found.startswith("http://0.0.0.0:")
        local = found.replace("0.0.0.0", "127.0.0.1")
        async with Client(with_headers(local, {"authorization": "Bearer t0ken"})) as client:
            assert "browser_snapshot" in {t.name for t in (await client.list_tools()).tools}


async def test_http_port_in_use_is_a_clear_error(url: str) -> None:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(TabwardenError) as caught:
        await serve_http(MCPOptions(http=True, port=port))
    assert f":{port}" in str(caught.value)


@pytest.mark.browser
async def test_http_stops_cleanly_with_an_open_session(server: LocalServer) -> None:
    async with serving(MCPOptions(http=True)) as found:
        client = Client(found)
        await client.__aenter__()
        await ok(client, "browser_navigate", {"url": server.url("/index.html")})
        assert browser_processes(MARKER)
    # The server stopped under a live session: its browser is closed all the same
    # (no_browser_left checks); the client only sees its connection end.
    with contextlib.suppress(Exception):
        await client.__aexit__(None, None, None)


async def _main_browsers(count: int) -> None:
    """Wait (with a deadline) until this process runs ``count`` browsers."""
    budget = Budget(20)
    while len(_main_pids()) != count and not budget.expired:
        await budget.sleep(0.05)
    assert len(_main_pids()) == count, f"{len(_main_pids())} browsers run, not {count}"


def _main_pids() -> set[int]:
    """This process's browsers (their main processes); one exiting (a zombie) is gone."""
    pids = set()
    for proc in browser_processes(MARKER):
        with contextlib.suppress(psutil.Error):
            if _is_main(proc):
                pids.add(proc.pid)
    return pids


@pytest.mark.browser
async def test_http_a_client_past_the_session_limit_is_told_until_a_slot_frees(
    server: LocalServer,
) -> None:
    config = Config()
    config.browser.max_sessions = 2
    page = {"url": server.url("/index.html")}
    async with (
        serving(MCPOptions(http=True, config=config, workbench=False)) as limited,
        Client(limited) as second,
        Client(limited) as third,
    ):
        async with Client(limited) as first:
            await ok(first, "browser_navigate", page)
            await ok(second, "browser_navigate", page)
            busy = await third.call_tool("browser_navigate", page)
            assert busy.is_error
            said = text(busy)
            assert "2 sessions open" in said and "browser.max_sessions = 2" in said
            assert "retry later" in said
            assert len(_main_pids()) == 2  # the refused call started no browser
        # The first client left: its browser closes, and its place is free.
        await _main_browsers(1)
        assert "200" in await ok(third, "browser_navigate", page)
        await ok(second, "browser_snapshot", {})


@pytest.mark.browser
async def test_http_a_reaped_session_is_told_once_then_starts_anew(server: LocalServer) -> None:
    config = Config()
    config.browser.inactivity_timeout_s = 3
    async with (
        serving(MCPOptions(http=True, config=config, workbench=False)) as reaping,
        Client(reaping) as client,
    ):
        await ok(client, "browser_navigate", {"url": server.url("/receipts.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        await _main_browsers(0)  # closed by the reaper after 3 s without a call
        told = await client.call_tool("browser_click", {"ref": ref_of(snapshot, "Change page")})
        assert told.is_error
        said = text(told)
        assert "was closed after" in said and "without a call" in said
        assert "browser.inactivity_timeout_s" in said and "refs are gone" in said
        assert len(_main_pids()) == 0  # the call that was told ran nowhere
        fresh = await ok(client, "browser_snapshot", {})
        assert "Change page" not in fresh  # a new browser: the old page is gone
        assert len(_main_pids()) == 1
