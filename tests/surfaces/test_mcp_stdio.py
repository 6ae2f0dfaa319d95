"""The MCP server over stdio, driven by the official SDK's own client and a real Chromium."""

from __future__ import annotations

import base64
import re
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
import pytest_asyncio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, ImageContent, TextContent

from tabwarden.budget import Budget
from tabwarden.tools.spec import UNTRUSTED_MARK
from tests.conftest import browser_processes
from tests.local_server import LocalServer

SERVER_CODE = "from tabwarden.surfaces.mcp import MCPOptions, run; run(MCPOptions({args}))"


@pytest_asyncio.fixture
async def run_dir() -> AsyncIterator[str]:
    """The server's TMPDIR: its browsers' profiles live there, so their command lines name it.

    After the test, no browser started under it may be left (polled, with a deadline).
    """
    # Short: Chromium's singleton socket lives there, and socket paths are short.
    tmp_path = Path(tempfile.mkdtemp(prefix="twmcp-"))
    yield str(tmp_path)
    marker = f"{tmp_path}/tabwarden-run-"
    budget = Budget(15)
    while browser_processes(marker) and not budget.expired:
        await budget.sleep(0.05)
    left = browser_processes(marker)
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert not left, f"browsers left behind: {[p.pid for p in left]}"


def params(run_dir: str, groups: tuple[str, ...] | None = ("all",)) -> StdioServerParameters:
    args = "" if groups is None else f"groups={groups!r}"
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVER_CODE.format(args=args)],
        env={"TMPDIR": run_dir, "TABWARDEN_DATA_DIR": f"{run_dir}/data"},
    )


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def ref_of(snapshot: str, label: str) -> str:
    match = re.search(rf'"{re.escape(label)}" \[ref=(e\d+)\]', snapshot)
    assert match, f"no {label!r} in\n{snapshot}"
    return match.group(1)


async def ok(client: Client, name: str, arguments: dict[str, object]) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, text(result)
    return text(result)


@pytest.mark.browser
async def test_stdio_end_to_end(run_dir: str, server: LocalServer) -> None:
    async with Client(params(run_dir)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"browser_snapshot", "browser_evaluate", "browser_upload_file"} <= names
        assert "browser_handle_dialog" not in names  # aliases are callable, not listed

        said = await ok(client, "browser_navigate", {"url": server.url("/receipts.html")})
        assert "200" in said and "Receipts" in said
        snapshot = await ok(client, "browser_snapshot", {})
        assert snapshot.startswith(UNTRUSTED_MARK + "\n")
        receipt = await ok(client, "browser_click", {"ref": ref_of(snapshot, "Change page")})
        assert "Renamed" in receipt or "Added" in receipt, receipt

        await ok(client, "browser_navigate", {"url": server.url("/dialogs.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        receipt = await ok(client, "browser_click", {"ref": ref_of(snapshot, "Confirm")})
        assert "dialog open: d-" in receipt, receipt
        answered = await ok(client, "browser_dialog", {"action": "accept"})
        assert answered.startswith(f"{UNTRUSTED_MARK}\naccepted d-"), answered
        title = await ok(client, "browser_evaluate", {"expression": "document.title"})
        assert "confirm=true" in title

        # An alias is served too.
        await ok(client, "browser_click", {"ref": ref_of(snapshot, "Alert")})
        assert "accepted" in await ok(client, "browser_handle_dialog", {})

        shot = await client.call_tool("browser_screenshot", {})
        assert not shot.is_error
        images = [c for c in shot.content if isinstance(c, ImageContent)]
        assert len(images) == 1 and images[0].mime_type == "image/png"
        assert base64.b64decode(images[0].data).startswith(b"\x89PNG\r\n\x1a\n")
        assert "screenshot of tab" in text(shot)

        # Errors are results, never protocol errors or tracebacks.
        missing = await client.call_tool("browser_click", {})
        assert missing.is_error and "ref" in text(missing) and text(missing).startswith("error: ")
        wrong = await client.call_tool("browser_navigate", {"url": 123})
        assert wrong.is_error and "url" in text(wrong)
        unknown = await client.call_tool("browser_teleport", {})
        assert unknown.is_error and "browser_teleport" in text(unknown)
        stale = await client.call_tool("browser_click", {"ref": "e999"})
        assert stale.is_error and "Traceback" not in text(stale)


async def test_stdio_default_groups_are_core(run_dir: str) -> None:
    async with Client(params(run_dir, None)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "browser_snapshot" in names and "browser_evaluate" not in names
        result = await client.call_tool("browser_evaluate", {"expression": "1"})
        assert result.is_error and "not enabled" in text(result)


@pytest.mark.browser
async def test_stdio_cancellation_stops_a_hung_evaluation(
    run_dir: str, server: LocalServer
) -> None:
    async with Client(params(run_dir)) as client:
        await ok(client, "browser_navigate", {"url": server.url("/busy.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        with anyio.move_on_after(1.5) as scope:  # the SDK sends notifications/cancelled
            await client.call_tool(
                "browser_evaluate", {"expression": "while (true) {}", "timeout_ms": 120_000}
            )
        assert scope.cancelled_caught
        started = time.monotonic()
        await ok(client, "browser_click", {"ref": ref_of(snapshot, "Click me")})
        assert time.monotonic() - started < 5, "the hung script was not stopped"
        assert "clicked 1" in await ok(client, "browser_evaluate", {"expression": "document.title"})


@pytest.mark.browser
async def test_stdio_clients_get_isolated_browsers(run_dir: str, server: LocalServer) -> None:
    # One client in each protocol era the SDK speaks: 2026-07-28 (auto) and the handshake.
    async with Client(params(run_dir)) as first, Client(params(run_dir), mode="legacy") as second:
        await ok(first, "browser_navigate", {"url": server.url("/set-cookie?name=a&value=1")})
        mine = await ok(first, "browser_navigate", {"url": server.url("/cookies")})
        theirs = await ok(second, "browser_navigate", {"url": server.url("/cookies")})
        assert '"a=1"' in mine
        assert "a=1" not in theirs and "no cookies" in theirs


@pytest.mark.browser
async def test_stdio_hints_name_the_tools_to_call(run_dir: str, server: LocalServer) -> None:
    """A busy page and an open dialog, over MCP with the default tools: every hint names
    an MCP tool with its arguments, never a Python method."""
    async with Client(params(run_dir, None)) as client:
        await ok(client, "browser_navigate", {"url": server.url("/busy.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        await ok(client, "browser_click", {"ref": ref_of(snapshot, "Spin forever")})
        busy = await client.call_tool("browser_get_text", {"timeout_ms": 800})
        assert busy.is_error and "did not answer" in text(busy)
        assert 'browser_terminate_script {"tab_id": "t1"}' in text(busy)
        assert 'browser_navigate {"url": "…", "tab_id": "t1"}' in text(busy)
        assert "tab.terminate_script" not in text(busy) and "tab.close()" not in text(busy)
        closing = 'browser_close_tab {"tab_id": "t1"} (in the tabs group, not enabled here)'
        assert closing in text(busy)
        # The way out it names is served by default (core tools).
        assert "stopped the script" in await ok(client, "browser_terminate_script", {})
        assert "Click me" in await ok(client, "browser_get_text", {})

        await ok(client, "browser_navigate", {"url": server.url("/dialogs.html")})
        snapshot = await ok(client, "browser_snapshot", {})
        receipt = await ok(client, "browser_click", {"ref": ref_of(snapshot, "Confirm")})
        answer = 'browser_dialog {"action": "accept" or "dismiss", "dialog_id": "d-1"}'
        assert answer in receipt, receipt
        assert f"answer it with {answer}" in await ok(client, "browser_snapshot", {})
        blocked = await client.call_tool("browser_get_text", {})
        assert blocked.is_error and f"answer it first: {answer}" in text(blocked)
        assert "browser.dialog(" not in text(blocked)
        await ok(client, "browser_dialog", {"action": "dismiss", "dialog_id": "d-1"})


@pytest.mark.browser
async def test_stdio_a_reaped_session_is_told_once_then_starts_anew(
    run_dir: str, server: LocalServer
) -> None:
    reaping = params(run_dir)
    assert reaping.env is not None
    reaping.env["TABWARDEN_BROWSER__INACTIVITY_TIMEOUT_S"] = "3"
    marker = f"{run_dir}/tabwarden-run-"
    async with Client(reaping) as client:
        await ok(client, "browser_navigate", {"url": server.url("/receipts.html")})
        assert browser_processes(marker)
        budget = Budget(20)
        while browser_processes(marker) and not budget.expired:  # the reaper closes it
            await budget.sleep(0.05)
        assert not browser_processes(marker), "the idle session was not closed"
        told = await client.call_tool("browser_snapshot", {})
        assert told.is_error and "without a call" in text(told) and "refs are gone" in text(told)
        assert "Change page" not in await ok(client, "browser_snapshot", {})
