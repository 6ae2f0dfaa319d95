"""Page-derived text is marked as untrusted data: every tool that returns some says so,
in its text, its result, and the MCP result's _meta; replies without any are not marked."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent

import tabwarden
import tabwarden.surfaces.mcp as mcp_surface
from tabwarden.config import Config
from tabwarden.surfaces.mcp import UNTRUSTED_META, MCPOptions, build_server
from tabwarden.tools.catalog import TOOLS
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tabwarden.tools.spec import UNTRUSTED_MARK, ToolResult

MARK = UNTRUSTED_MARK

PAGE_DERIVED = {
    # navigation results carry the page's title (and any dialog's message)
    "browser_navigate",
    "browser_back",
    "browser_forward",
    "browser_reload",
    # page text
    "browser_snapshot",
    "browser_get_text",
    "browser_get_content",
    "browser_get_images",
    # what pages wrote: dialogs, titles, console, requests, script results, storage, files
    "browser_dialog",
    "browser_tabs",
    "browser_switch_tab",
    "browser_console",
    "browser_network",
    "browser_evaluate",
    "browser_cdp",
    "browser_storage",
    "browser_downloads",
}
RECEIPTS = {
    # marked when they report what the page wrote (titles, dialog messages, console
    # errors, requests, the diff of the page beyond the element acted on)
    "browser_click",
    "browser_hover",
    "browser_fill",
    "browser_type",
    "browser_press",
    "browser_select",
    "browser_check",
    "browser_scroll",
    "browser_drag",
    "browser_act_batch",
    "browser_upload_file",
}
OWN_WORDS = {
    # tabwarden's own words only: sizes, paths, ids, counters, settings
    "browser_screenshot",
    "browser_wait",
    "browser_terminate_script",
    "browser_close_tab",
    "browser_close",
    "browser_metrics",
    "browser_attach",
    "browser_save_pdf",
    "browser_trace_start",
    "browser_trace_stop",
    "browser_record_start",
    "browser_record_stop",
    "browser_emulate",
}


def test_every_tool_is_classified():
    names = {spec.name for spec in TOOLS}
    unclassified = names - PAGE_DERIVED - RECEIPTS - OWN_WORDS
    assert not unclassified, f"say whether these return page content: {unclassified}"
    assert not PAGE_DERIVED & OWN_WORDS and not RECEIPTS & (PAGE_DERIVED | OWN_WORDS)


@pytest.fixture(scope="module")
async def ctx(tmp_path_factory):
    config = Config()
    config.browser.isolated = True
    config.browser.workspace = tmp_path_factory.mktemp("workspace")
    async with tabwarden.SessionManager(config) as manager:
        yield ToolContext(manager, "untrusted")


@pytest.mark.browser
async def test_each_page_derived_tool_marks_its_result(ctx, server):
    upload = ctx.manager.config.browser.workspace / "avatar.txt"
    upload.write_text("hello")
    form, second = server.url("/secrets_form.html"), server.url("/second.html")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("browser_navigate", {"url": second}),
        ("browser_navigate", {"url": form}),
        ("browser_back", {}),
        ("browser_forward", {}),
        ("browser_reload", {}),
        ("browser_drag", {"start_ref": "#drag-me", "end_ref": "#drop"}),
        ("browser_snapshot", {}),
        ("browser_get_text", {}),
        ("browser_get_content", {}),
        ("browser_get_images", {}),
        ("browser_click", {"ref": "#save"}),
        ("browser_hover", {"ref": "#hover-target"}),
        ("browser_fill", {"ref": "#name", "value": "x"}),
        ("browser_type", {"text": "y", "ref": "#name"}),
        ("browser_press", {"key": "Tab", "ref": "#name"}),
        ("browser_select", {"ref": "#size", "values": ["m"]}),
        ("browser_check", {"ref": "#agree"}),
        ("browser_scroll", {"direction": "down"}),
        ("browser_act_batch", {"steps": [{"action": "click", "ref": "#save"}]}),
        ("browser_upload_file", {"ref": "#avatar", "paths": [str(upload)]}),
        ("browser_tabs", {}),
        ("browser_console", {}),
        ("browser_network", {}),
        ("browser_evaluate", {"expression": "localStorage.setItem('k', 'v'); document.title"}),
        ("browser_storage", {"action": "get", "kind": "local"}),
        ("browser_downloads", {}),
    ]
    await call_tool(ctx, "browser_navigate", {"url": form})
    receipt = await call_tool(ctx, "browser_click", {"ref": "#alert"})
    assert "Saved your profile" in receipt.text and receipt.untrusted
    answered = await call_tool(ctx, "browser_dialog", {})
    assert "Saved your profile" in answered.text and answered.untrusted
    seen = {"browser_dialog"}
    for name, arguments in calls:
        result = await call_tool(ctx, name, arguments)
        if name in RECEIPTS:  # whether they carry page text: tests/actions/test_receipt_text.py
            assert result.final_text().startswith(MARK) is result.untrusted, name
        else:
            assert result.untrusted, f"{name} returned page content unmarked: {result.text[:300]}"
            assert result.final_text().startswith(MARK + "\n"), name
        seen.add(name)
    tab = await ctx.tab()
    for name, arguments in [
        ("browser_switch_tab", {"tab_id": tab.id}),
        (
            "browser_cdp",
            {"method": "Runtime.evaluate", "params": {"expression": "1"}, "tab_id": tab.id},
        ),
    ]:
        assert (await call_tool(ctx, name, arguments)).untrusted, name
        seen.add(name)
    assert seen == PAGE_DERIVED | RECEIPTS


@pytest.mark.browser
async def test_own_words_stay_unmarked(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
    for name, arguments in [
        ("browser_wait", {"time_ms": 1}),
        ("browser_metrics", {}),
        ("browser_screenshot", {}),
    ]:
        result = await call_tool(ctx, name, arguments)
        assert not result.untrusted and not result.final_text().startswith(MARK), name


async def test_mcp_results_carry_the_mark_in_their_text_and_meta(monkeypatch):
    async def fake(
        ctx: ToolContext, name: str, arguments: dict[str, Any] | None, tools: Any = None
    ) -> ToolResult:
        untrusted = name == "browser_snapshot"
        return ToolResult('- heading "Hi" [ref=e1]', {"tab_id": "t1"}, untrusted=untrusted)

    monkeypatch.setattr(mcp_surface, "call_tool", fake)
    async with Client(build_server(MCPOptions(groups=("all",))), mode="legacy") as client:
        page = await client.call_tool("browser_snapshot", {})
        own = await client.call_tool("browser_metrics", {})
    assert page.structured_content is None and own.structured_content is None  # no schema
    assert page.meta == {UNTRUSTED_META: True} and own.meta == {UNTRUSTED_META: False}
    (block,) = page.content
    assert isinstance(block, TextContent) and block.meta == {UNTRUSTED_META: True}
    assert re.match(re.escape(MARK), block.text)
    (own_block,) = own.content
    assert isinstance(own_block, TextContent) and MARK not in own_block.text
