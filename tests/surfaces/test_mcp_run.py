"""``run()``: a signal (Ctrl-C, SIGTERM) stops the server cleanly and closes its browsers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from tabwarden.budget import Budget
from tests.conftest import browser_processes
from tests.local_server import LocalServer

RUN = "from tabwarden.surfaces.mcp import MCPOptions, run; run(MCPOptions({args}))"


@pytest_asyncio.fixture
async def run_dir() -> AsyncIterator[str]:
    """The server's TMPDIR, which its browsers' command lines name; none may be left."""
    # Short: Chromium's singleton socket lives there, and socket paths are short.
    tmp_path = Path(tempfile.mkdtemp(prefix="twmcp-"))
    yield str(tmp_path)
    left = not await gone(f"{tmp_path}/tabwarden-run-")
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert not left, "browsers left behind"


async def gone(marker: str, seconds: float = 15) -> bool:
    budget = Budget(seconds)
    while browser_processes(marker) and not budget.expired:
        await budget.sleep(0.05)
    return not browser_processes(marker)


def env(run_dir: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", run_dir),
        "TMPDIR": run_dir,
        "TABWARDEN_DATA_DIR": f"{run_dir}/data",
    }


async def navigate(client: Client, url: str) -> None:
    result = await client.call_tool("browser_navigate", {"url": url})
    assert not result.is_error, [c.text for c in result.content if isinstance(c, TextContent)]


@pytest.mark.browser
async def test_http_server_stops_on_ctrl_c(run_dir: str, server: LocalServer) -> None:
    code = RUN.format(args="http=True")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, env=env(run_dir), stderr=asyncio.subprocess.PIPE
    )
    assert proc.stderr is not None
    try:
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        assert "listening at http://127.0.0.1:" in line, line
        url = line.rsplit(" ", 1)[1].strip()
        client = Client(url)
        await client.__aenter__()
        try:
            await navigate(client, server.url("/index.html"))
            assert browser_processes(f"{run_dir}/tabwarden-run-")
            proc.send_signal(signal.SIGINT)  # with a client still connected
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        finally:
            with contextlib.suppress(Exception):  # its connection died with the server
                await client.__aexit__(None, None, None)
        errors = (await proc.stderr.read()).decode()
        assert "Traceback" not in errors, errors
        assert await gone(f"{run_dir}/tabwarden-run-")
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.browser
async def test_stdio_server_stops_on_sigterm(run_dir: str, server: LocalServer) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", RUN.format(args="")], env=env(run_dir)
    )
    marker = f"{run_dir}/tabwarden-run-"
    async with Client(params) as client:
        await navigate(client, server.url("/index.html"))
        browsers = browser_processes(marker)
        # The browser's own helpers (zygote, renderers) carry the profile path too;
        # the root of the tree is the one whose parent is not among them.
        pids = {p.pid for p in browsers}
        root = next(p for p in browsers if p.ppid() not in pids and p.ppid() != 1)
        mcp_server = psutil.Process(root.ppid())
        assert "tabwarden.surfaces.mcp" in " ".join(mcp_server.cmdline())
        mcp_server.send_signal(signal.SIGTERM)
        assert await gone(marker), "SIGTERM left the browser running"
        budget = Budget(15)
        while mcp_server.is_running() and mcp_server.status() != psutil.STATUS_ZOMBIE:
            assert not budget.expired, "the server did not exit on SIGTERM"
            await budget.sleep(0.05)


def test_a_client_gone_mid_call_is_one_log_line(run_dir: str, server: LocalServer) -> None:
    """The client closes its end while a reply is on its way: normal, not a crash."""
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN.format(args="")],
        env=env(run_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    client = {"name": "x", "version": "0"}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
    navigate = {"name": "browser_navigate", "arguments": {"url": server.url("/index.html")}}
    wait = {"name": "browser_wait", "arguments": {"time_ms": 1000}}
    try:
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": navigate},
        ):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()
        assert b'"id":2' in proc.stdout.readline()
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": wait}
        proc.stdin.write(json.dumps(call).encode() + b"\n")
        proc.stdin.flush()
        proc.stdout.close()  # gone: the wait's answer meets a broken pipe
        assert proc.wait(timeout=60) == 0
        said = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "bug" not in said and "Traceback" not in said, said
    announced, *logged = said.splitlines()
    assert announced.startswith("tabwarden workbench: http://127.0.0.1:"), said
    assert len(logged) == 1 and "client closed the connection" in logged[0], said
