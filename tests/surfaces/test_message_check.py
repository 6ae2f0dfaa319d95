"""Malformed client messages get a JSON-RPC answer saying what is wrong, on stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tabwarden.budget import Budget
from tabwarden.surfaces.mcp import MCPOptions
from tabwarden.surfaces.message_check import MAX_DEPTH, MAX_MESSAGE_BYTES, screen_message
from tests.surfaces.test_mcp_http import HEADERS, INIT, raw_http, serving

DEEP_ARGUMENTS = '{"x": ' + "[" * 200 + "]" * 200 + "}"
DEEP = '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "browser_tabs", '
DEEP += f'"arguments": {DEEP_ARGUMENTS}}}}}'
MALFORMED: dict[str, tuple[str, int, int | None, str]] = {
    # name: (message, code, id answered, words the message must hold)
    "invalid JSON": ("{nope", -32700, None, "not valid JSON"),
    "a batch": ("[1, 2]", -32600, None, "batch"),
    "a bare number": ("3", -32600, None, "an object"),
    "nested 200 deep": (DEEP, -32600, 5, f"more than {MAX_DEPTH} levels"),
    "no jsonrpc": ('{"id": 9, "method": "ping"}', -32600, 9, '"jsonrpc": "2.0"'),
    "tools/call without params": (
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call"}),
        -32602,
        6,
        "name",
    ),
    "arguments as a string": (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "browser_tabs", "arguments": "abc"},
            }
        ),
        -32602,
        7,
        "arguments",
    ),
}


# ---- the screen itself (no browser, no server) ----------------------------------------------


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_messages_are_refused_with_the_reason(name: str) -> None:
    message, code, ident, words = MALFORMED[name]
    rejection = screen_message(message)
    assert rejection is not None
    answer = json.loads(rejection.to_json())
    assert answer["jsonrpc"] == "2.0" and answer["id"] == ident
    assert answer["error"]["code"] == code
    assert words in answer["error"]["message"]
    assert answer["error"]["data"]["hint"]


def test_nesting_past_pythons_own_limit_is_too_deep_not_a_crash() -> None:
    rejection = screen_message("[" * 100_000 + "]" * 100_000)
    assert rejection is not None and "levels deep" in rejection.message


def test_well_formed_messages_pass() -> None:
    call = {"name": "browser_tabs", "arguments": {"x": [[[1]]]}}
    for message in (
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 4, "result": {}},
    ):
        assert screen_message(json.dumps(message)) is None, message


def test_a_malformed_notification_is_refused_without_an_answer() -> None:
    rejection = screen_message('{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": 3}}')
    assert rejection is not None and not rejection.reply


def test_the_limits_are_stated() -> None:
    rejection = screen_message(DEEP)
    assert rejection is not None
    assert rejection.data["max_depth"] == MAX_DEPTH
    assert rejection.data["max_bytes"] == MAX_MESSAGE_BYTES


# ---- over stdio: a real server process --------------------------------------------------------


class StdioWire:
    """A ``tabwarden mcp`` process over pipes, spoken to line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def send(self, line: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line.encode() if isinstance(line, str) else line) + b"\n")
        await self.proc.stdin.drain()

    async def answer(self, seconds: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), seconds)
        assert line, "the server closed stdout"
        return dict(json.loads(line))


@pytest_asyncio.fixture
async def wire() -> AsyncIterator[StdioWire]:
    run_dir = tempfile.mkdtemp(prefix="twmsg-")
    env = {**os.environ, "TMPDIR": run_dir, "TABWARDEN_DATA_DIR": f"{run_dir}/data"}
    code = "from tabwarden.surfaces.mcp import MCPOptions, run; run(MCPOptions())"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        code,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=1024 * 1024,
    )
    wire = StdioWire(proc)
    await wire.send(json.dumps(INIT))
    assert (await wire.answer())["id"] == 1
    await wire.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield wire
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        shutil.rmtree(run_dir, ignore_errors=True)


async def test_stdio_answers_every_malformed_message_and_keeps_serving(wire: StdioWire) -> None:
    for name, (message, code, ident, words) in MALFORMED.items():
        await wire.send(message)
        answer = await wire.answer()
        assert answer["id"] == ident, name
        assert answer["error"]["code"] == code, (name, answer)
        assert words in answer["error"]["message"], (name, answer)
    await wire.send('{"jsonrpc": "2.0", "id": 11, "method": "ping"}')
    assert await wire.answer() == {"jsonrpc": "2.0", "id": 11, "result": {}}


async def test_stdio_answers_an_oversized_line_then_the_next_request(wire: StdioWire) -> None:
    huge = b'{"jsonrpc": "2.0", "id": 12, "method": "ping", "params": {"x": "'
    huge += b"a" * (MAX_MESSAGE_BYTES + 1024) + b'"}}'
    await wire.send(huge)
    answer = await wire.answer(60)
    assert answer["error"]["code"] == -32600
    assert "bytes" in answer["error"]["message"]
    await wire.send('{"jsonrpc": "2.0", "id": 13, "method": "ping"}')
    assert (await wire.answer())["id"] == 13


async def test_stdio_skips_blank_lines_without_an_answer(wire: StdioWire) -> None:
    await wire.send("")
    await wire.send("   ")
    await wire.send('{"jsonrpc": "2.0", "id": 14, "method": "ping"}')
    assert (await wire.answer())["id"] == 14


# ---- over HTTP -----------------------------------------------------------------------------------


async def test_http_answers_every_malformed_message() -> None:
    async with serving(MCPOptions(http=True)) as url, raw_http() as http:
        opened = await http.post(url, json=INIT, headers=HEADERS)
        headers = {
            **HEADERS,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        budget = Budget(60)
        for name, (message, code, ident, words) in MALFORMED.items():
            reply = await budget.run(http.post(url, content=message, headers=headers))
            assert reply.status_code == (400 if ident is None else 200), name
            answer = reply.json()
            assert answer["id"] == ident, name
            assert answer["error"]["code"] == code, (name, answer)
            assert words in answer["error"]["message"], (name, answer)
        await http.delete(url, headers=headers)
