"""The workbench's doors: loopback by default, a per-run token on every request but the
page's static files, the MCP server's Host/Origin rules, and a WebSocket only from the
workbench's own page."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx2 as httpx
import pytest
import pytest_asyncio
import websockets

from tabwarden.surfaces.workbench import Workbench, WorkbenchOptions


@pytest_asyncio.fixture(scope="module")
async def bench() -> AsyncIterator[Workbench]:
    async with Workbench() as workbench:
        yield workbench


def _ws_url(bench: Workbench, token: str | None) -> str:
    url = bench.base_url.replace("http://", "ws://") + "/ws"
    return url if token is None else f"{url}?token={token}"


async def test_it_listens_on_loopback_with_a_fresh_token_each_run(bench: Workbench) -> None:
    assert bench.base_url.startswith("http://127.0.0.1:")
    assert bench.url == f"{bench.base_url}/?token={bench.token}"
    async with Workbench() as other:
        assert other.token != bench.token and len(other.token) >= 20


async def test_the_session_list_needs_the_token(bench: Workbench) -> None:
    async with httpx.AsyncClient() as client:
        refused = await client.get(f"{bench.base_url}/api/sessions")
        wrong = await client.get(f"{bench.base_url}/api/sessions?token=x{bench.token}")
        allowed = await client.get(f"{bench.base_url}/api/sessions?token={bench.token}")
        bearer = await client.get(
            f"{bench.base_url}/api/sessions", headers={"Authorization": f"Bearer {bench.token}"}
        )
    assert refused.status_code == 401 and "token" in refused.text
    assert wrong.status_code == 401
    assert allowed.status_code == 200 and allowed.json() == {"sessions": []}
    assert bearer.status_code == 200


async def test_a_rebound_host_name_is_refused_even_with_the_token(bench: Workbench) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.get(
            f"{bench.base_url}/api/sessions?token={bench.token}",
            headers={"Host": "attacker.example"},
        )
    assert reply.status_code == 403 and "DNS rebinding" in reply.text


async def test_a_websocket_without_the_token_is_closed(bench: Workbench) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(_ws_url(bench, None)):
            pass
    assert refused.value.response.status_code == 403  # closed before the handshake


async def test_a_websocket_from_a_foreign_origin_is_closed(bench: Workbench) -> None:
    for origin in ("http://evil.example", "http://127.0.0.1:1"):
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(
                _ws_url(bench, bench.token), origin=websockets.Origin(origin)
            ):
                pass


async def test_the_workbench_page_itself_may_connect(bench: Workbench) -> None:
    origin = websockets.Origin(bench.base_url)
    async with websockets.connect(_ws_url(bench, bench.token), origin=origin) as ws:
        hello = json.loads(await ws.recv())
        assert hello == {"type": "hello", "version": 1, "sessions": [], "consent": []}
        await ws.send("not json")
        assert json.loads(await ws.recv())["type"] == "error"
        await ws.send(json.dumps({"type": "no such thing", "id": 4}))
        reply = json.loads(await ws.recv())
        assert reply["id"] == 4 and reply["ok"] is False
        assert "unknown message type" in reply["error"]["message"]


async def test_another_host_is_explicit_and_still_needs_the_token() -> None:
    async with Workbench(WorkbenchOptions(host="0.0.0.0")) as open_bench:
        port = open_bench.base_url.rsplit(":", 1)[1]
        async with httpx.AsyncClient() as client:
            refused = await client.get(f"http://127.0.0.1:{port}/api/sessions")
            allowed = await client.get(
                f"http://127.0.0.1:{port}/api/sessions?token={open_bench.token}"
            )
    assert refused.status_code == 401 and allowed.status_code == 200
