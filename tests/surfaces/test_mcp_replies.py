"""MCP replies as a client reads them, from a real Chromium: the untrusted-content marker
only on replies that carry page text, and structured content only from tools that
declare an output schema, smaller than the text."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from tabwarden.config import Config
from tabwarden.surfaces.mcp import UNTRUSTED_META, MCPOptions, build_server
from tabwarden.tools.spec import UNTRUSTED_MARK
from tests.local_server import LocalServer


def _text(result: CallToolResult) -> str:
    assert not result.is_error, result.content
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def _marked(result: CallToolResult) -> bool:
    """Marked, consistently: the text's first line, and _meta for the harness."""
    text = _text(result)
    marked = text.startswith(UNTRUSTED_MARK + "\n")
    assert text.count(UNTRUSTED_MARK) == int(marked), text
    assert result.meta == {UNTRUSTED_META: marked}
    return marked


def _structured_chars(result: CallToolResult) -> int:
    assert result.structured_content is not None
    return len(json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False))


def _client() -> Client:
    return Client(build_server(MCPOptions(groups=("all",), config=Config())), mode="legacy")


@pytest.mark.browser
async def test_only_replies_that_carry_page_text_are_marked(server: LocalServer) -> None:
    async with _client() as client:

        async def call(name: str, **arguments: Any) -> CallToolResult:
            return await client.call_tool(name, arguments)

        navigated = await call("browser_navigate", url=server.url("/order_form.html"))
        assert _marked(navigated) and '"Order"' in _text(navigated)  # the page's title
        snapshot = await call("browser_snapshot")
        assert _marked(snapshot)
        refs = dict(re.findall(r'"([^"]*)" \[ref=(e\d+)\]', _text(snapshot)))

        # A receipt names the element by the name the page gave it: page text.
        filled = await call("browser_fill", ref=refs["Name"], value="Ada")
        assert _text(filled).startswith(
            f'{UNTRUSTED_MARK}\nfill {refs["Name"]} (textbox "Name"): set to "Ada"'
        )
        quiet = await call("browser_click", ref=refs["Count quietly"])
        assert "no visible change" in _text(quiet) and _marked(quiet)
        # One that reports what the page wrote is marked.
        noted = await call("browser_click", ref=refs["Add a note"])
        assert 'text appeared: "Gift wrap requested"' in _text(noted) and _marked(noted)

        assert _marked(await call("browser_get_text"))
        assert _marked(await call("browser_evaluate", expression="document.title"))
        assert not _marked(await call("browser_wait", time_ms=1))


@pytest.mark.browser
async def test_structured_content_comes_only_with_an_output_schema(server: LocalServer) -> None:
    async with _client() as client:
        declared = {t.name for t in (await client.list_tools()).tools if t.output_schema}
        assert {"browser_navigate", "browser_evaluate"} <= declared

        async def call(name: str, **arguments: Any) -> CallToolResult:
            # The SDK's client checks structured content against the listed schema.
            result = await client.call_tool(name, arguments)
            assert (result.structured_content is not None) is (name in declared), name
            return result

        url = server.url("/order_form.html")
        navigated = await call("browser_navigate", url=url)
        assert navigated.structured_content == {
            "tab_id": "t1",
            "url": url,
            "title": "Order",
            "status": 200,
            "ok": True,
        }
        reloaded = await call("browser_reload")
        evaluated = await call("browser_evaluate", expression="[document.title, 1 + 1]")
        assert evaluated.structured_content == {"value": ["Order", 2], "type": "object"}
        for result in (navigated, reloaded, evaluated):
            assert _structured_chars(result) < len(_text(result))
            assert _text(result) not in json.dumps(result.structured_content)

        snapshot = await call("browser_snapshot")
        refs = dict(re.findall(r'"([^"]*)" \[ref=(e\d+)\]', _text(snapshot)))
        await call("browser_click", ref=refs["Add a note"])
        await call("browser_tabs")
        await call("browser_network")
