"""Tool calls through the registry against a real Chromium: what every surface runs."""

from __future__ import annotations

import re
import time

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.errors import ConsentRequired, InvalidArgument
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import DEFAULT_GROUPS, call_tool, get_tool, parse_groups, select_tools
from tabwarden.tools.spec import UNTRUSTED_MARK


@pytest.fixture(scope="module")
async def ctx():
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        yield ToolContext(manager, "tools")


@pytest.mark.browser
async def test_navigate_snapshot_click_and_results_state_their_size(ctx, server):
    result = await call_tool(ctx, "browser_navigate", {"url": server.url("/receipts.html")})
    assert "200 OK" in result.final_text() and result.data["title"] == "Receipts"
    snap = await call_tool(ctx, "browser_snapshot", {})
    text = snap.final_text()
    assert text.startswith(UNTRUSTED_MARK + "\n")
    ref = re.search(r'button "Change page" \[ref=(e\d+)\]', text).group(1)
    receipt = await call_tool(ctx, "browser_click", {"ref": ref})
    assert '"Added"' in receipt.final_text()
    assert re.search(r"# [\d,]+ chars$", receipt.final_text())


@pytest.mark.browser
async def test_snapshot_pages_follow_the_cursor_each_page_gives(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/big.html")})
    first = await call_tool(ctx, "browser_snapshot", {"max_chars": 2_000, "cursor": 0})
    cursor = first.data["next_cursor"]
    assert cursor.startswith(first.data["capture"] + ":")
    assert f"call again with cursor={cursor}" in first.final_text()
    second = await call_tool(ctx, "browser_snapshot", {"max_chars": 2_000, "cursor": cursor})
    assert second.data["capture"] == first.data["capture"]
    assert second.data["changed_since_capture"] is False
    again = await call_tool(ctx, "browser_snapshot", {"max_chars": 2_000, "cursor": "0"})
    assert again.data["capture"] != first.data["capture"]
    with pytest.raises(InvalidArgument) as caught:
        await call_tool(ctx, "browser_snapshot", {"cursor": 120})
    assert "not a snapshot cursor" in caught.value.message and "0" in caught.value.hint


@pytest.mark.browser
async def test_screenshot_comes_back_as_an_image(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
    shot = await call_tool(ctx, "browser_screenshot", {"annotate": True})
    assert shot.images and shot.images[0].mime_type == "image/png"
    assert shot.images[0].data[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.browser
async def test_dialog_tool_and_its_alias(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/dialogs.html")})
    snap = (await call_tool(ctx, "browser_snapshot", {})).final_text()
    ref = re.search(r'button "Confirm" \[ref=(e\d+)\]', snap).group(1)
    receipt = await call_tool(ctx, "browser_click", {"ref": ref})
    assert "dialog open: d-" in receipt.final_text()
    answered = await call_tool(ctx, "browser_handle_dialog", {"action": "accept"})
    assert answered.text.startswith("accepted d-") and answered.untrusted


async def test_invalid_arguments_name_the_parameter(ctx):
    with pytest.raises(InvalidArgument) as missing:
        await call_tool(ctx, "browser_click", {})
    assert "ref" in str(missing.value)
    with pytest.raises(InvalidArgument) as wrong:
        await call_tool(ctx, "browser_navigate", {"url": 123})
    assert "url" in str(wrong.value)
    with pytest.raises(InvalidArgument) as extra:
        await call_tool(ctx, "browser_snapshot", {"fulll": True})
    assert "fulll" in str(extra.value)


def test_unknown_and_disabled_tools_say_what_to_do():
    with pytest.raises(InvalidArgument) as unknown:
        get_tool("browser_clik")
    assert "browser_click" in unknown.value.hint
    with pytest.raises(InvalidArgument) as disabled:
        get_tool("browser_evaluate", select_tools(["core"]))
    # The hint names the real ways to turn the group on: the flag, the key, the variable.
    assert disabled.value.hint == (
        "enable its group (devtools): tabwarden mcp --tools core,devtools, or tools.groups: "
        "[core, devtools] in tabwarden.yaml, or TABWARDEN_TOOLS__GROUPS=core,devtools"
    )
    assert Config.model_validate({"tools": {"groups": ["core", "devtools"]}})
    with pytest.raises(InvalidArgument) as alias:
        get_tool("browser_resize", select_tools(["core", "files"]))
    assert alias.value.message == (
        "the tool browser_resize (it is browser_emulate) is not enabled here"
    )
    assert "--tools core,devtools,files" in alias.value.hint
    config = Config()
    config.browser.evaluate_enabled = False
    assert "browser_evaluate" not in {t.name for t in select_tools(["all"], config)}
    with pytest.raises(InvalidArgument):
        parse_groups("core,bogus")
    assert parse_groups("all") == ("core", "actions", "tabs", "diagnostics", "devtools", "files")


@pytest.mark.browser
async def test_attach_needs_consent(ctx):
    endpoint = (await ctx.session()).endpoint.ws_url
    with pytest.raises(ConsentRequired) as caught:
        await call_tool(ctx, "browser_attach", {"cdp_url": endpoint})
    assert "consent=true" in caught.value.hint


async def _poll(ctx, name, arguments, tools, expected, deadline_s=15.0):
    """Call the tool until its text shows ``expected`` (page work finishes on its own time)."""
    deadline = time.monotonic() + deadline_s
    while True:
        text = (await call_tool(ctx, name, arguments, tools)).final_text()
        if expected in text or time.monotonic() > deadline:
            return text


@pytest.mark.browser
async def test_default_tools_show_what_the_snapshot_header_counts(ctx, server):
    """The snapshot header says "console: 1 error · network: 1 HTTP 404"; the default set
    has the tools that show them."""
    default = select_tools(DEFAULT_GROUPS)
    await call_tool(ctx, "browser_navigate", {"url": server.url("/order_form.html")}, default)
    snap = (await call_tool(ctx, "browser_snapshot", {}, default)).final_text()
    ref = re.search(r'button "Check stock" \[ref=(e\d+)\]', snap).group(1)
    await call_tool(ctx, "browser_click", {"ref": ref}, default)
    network = await _poll(ctx, "browser_network", {"status": "404"}, default, "/slow")
    assert "404" in network and "/slow" in network
    console = await _poll(ctx, "browser_console", {"level": "error"}, default, "stock check")
    assert "stock check failed: HTTP 404" in console
    header = (await call_tool(ctx, "browser_snapshot", {}, default)).text.splitlines()[1]
    assert header == "# console: 1 error since last snapshot · network: 1 HTTP 404"


@pytest.mark.browser
async def test_resize_is_emulate_and_find_is_snapshot(ctx, server):
    """browser_resize and browser_find are the names agents reach for: aliases of the tools
    that do it (emulate's width and height, snapshot's find), not second definitions."""
    assert get_tool("browser_resize").name == "browser_emulate"
    assert get_tool("browser_find").name == "browser_snapshot"
    for spec, words in ((get_tool("browser_resize"), "Resize the viewport (width, height)"),
                        (get_tool("browser_find"), 'find="Sign in"')):  # fmt: skip
        assert words in spec.description
    await call_tool(ctx, "browser_navigate", {"url": server.url("/receipts.html")})
    try:
        resized = await call_tool(ctx, "browser_resize", {"width": 800, "height": 600})
        assert resized.text == "viewport: 800x600 at 1x"
        size = await call_tool(
            ctx, "browser_evaluate", {"expression": "[innerWidth, innerHeight].join('x')"}
        )
        assert size.text.startswith("800x600")
    finally:
        await call_tool(ctx, "browser_emulate", {"reset": True})
    found = (await call_tool(ctx, "browser_find", {"find": "change page"})).text.splitlines()
    assert found[0].startswith("# tab ") and '"Receipts"' in found[0]
    assert found[1] == "# 1 line matches 'change page'"
    assert re.fullmatch(r'- button "Change page" \[ref=e\d+\]', found[2])
