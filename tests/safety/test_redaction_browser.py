"""Secrets planted in a real page never come out of a tool call: every tool result and
error passes through the registry's redactor (tests/pages/secrets.html)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import InvalidURL, NavigationTimeout
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tabwarden.tools.spec import ToolResult

PLANTED = {
    "openai": "sk-proj-T3stKeyAbcdefghijklmnopqrstuvwx0123",
    "jwt_text": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0YWJ3YXJkZW4ifQ",
    "jwt_global": "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiYm9iIiwiZXhwIjo5OTk5fQ",
    "github": "ghp_T3stT0kenAbcdefghijklmnopqrstuvwxyz12",
    "user_secret": "PLANETARY-ORBIT-7731",
    "bearer": "Zq8vT3stBearer0123456789",
    "slack": "xoxb-123456789012-abcdefghijklmnop",
    "aws": "AKIAT3STKEY0123ABCD",
    "api_header": "k3y-T3st-0123456789",
    "storage_token": "9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c",
    "storage_shape": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MAbcXYZ",
    "frame": "sk-ant-api03-T3stFrameKeyAbcdefghijklmnop0123",
}


def assert_clean(result: ToolResult | str) -> str:
    """No planted secret in the text (or in the data, as JSON); returns the text."""
    if isinstance(result, ToolResult):
        seen = result.final_text() + json.dumps(result.data, default=str)
        text = result.final_text()
    else:
        seen = text = result
    for name, secret in PLANTED.items():
        assert secret not in seen, f"{name} leaked: {seen[:2000]}"
    return text


def ref_of(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'{role} "{re.escape(name)}" \[ref=(e\d+)\]', snapshot)
    assert found, snapshot
    return found.group(1)


@pytest.fixture(scope="module")
async def ctx(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secrets")
    secrets = folder / "agent.env"
    secrets.write_text("# the user's own\nexport PLANET_CODE='PLANETARY-ORBIT-7731'\n")
    config = Config()
    config.browser.isolated = True
    config.browser.workspace = folder
    config.safety.secrets_file = secrets
    async with tabwarden.SessionManager(config) as manager:
        yield ToolContext(manager, "redaction")


@pytest.fixture(scope="module")
async def page(ctx, server, other_origin) -> str:
    url = server.url(f"/secrets.html?child={other_origin.base}")
    await call_tool(ctx, "browser_navigate", {"url": url})
    return url


@pytest.mark.browser
async def test_snapshot_page_text_and_input_values(ctx, page):
    snap = await call_tool(ctx, "browser_snapshot", {"full": True})
    text = assert_clean(snap)
    assert "[redacted:openai-key]" in text and "[redacted:jwt]" in text
    assert "[redacted:github-token]" in text  # the input's value
    assert "[secret:PLANET_CODE]" in text
    assert "Forgot your password? Reset it from the sign-in page." in text
    for tool in ("browser_get_text", "browser_get_content"):
        result = await call_tool(ctx, tool, {})
        assert "[secret:PLANET_CODE]" in assert_clean(result), tool


@pytest.mark.browser
async def test_console_output(ctx, page):
    snap = (await call_tool(ctx, "browser_snapshot", {})).text
    await call_tool(ctx, "browser_click", {"ref": ref_of(snap, "button", "Log")})
    console = await call_tool(ctx, "browser_console", {"level": ["error"]})
    text = assert_clean(console)
    assert "sign-in failed" in text and "[redacted:" in text


@pytest.mark.browser
async def test_dialog_text_in_receipt_snapshot_header_and_answer(ctx, page):
    snap = (await call_tool(ctx, "browser_snapshot", {})).text
    receipt = await call_tool(ctx, "browser_click", {"ref": ref_of(snap, "button", "Alert")})
    assert "dialog open" in assert_clean(receipt)
    header = assert_clean(await call_tool(ctx, "browser_snapshot", {}))
    assert "[redacted:slack-token]" in header
    answered = await call_tool(ctx, "browser_dialog", {"action": "accept"})
    assert "your Slack token is [redacted:slack-token]" in assert_clean(answered)


@pytest.mark.browser
async def test_evaluate_results_in_the_page_and_in_a_cross_origin_frame(ctx, page):
    result = await call_tool(ctx, "browser_evaluate", {"expression": "window.sessionJwt"})
    assert "[redacted:jwt]" in assert_clean(result)
    assert result.data["value"] == "[redacted:jwt]"
    nested = await call_tool(
        ctx,
        "browser_evaluate",
        {"expression": "({user: 'bob', storage: {...localStorage}})"},
    )
    assert_clean(nested)
    assert nested.data["value"]["storage"]["theme"] == "dark"

    session = await ctx.session()
    tab = await ctx.tab()
    budget = Budget(10)
    while not [f for f in session.state(tab).frame_tree if f.is_oopif]:
        budget.check("waiting for the cross-origin frame")
        await budget.sleep(0.05)
    frame = next(f for f in session.state(tab).frame_tree if f.is_oopif)
    in_frame = await call_tool(
        ctx, "browser_evaluate", {"expression": "window.frameSecret", "frame_id": frame.frame_id}
    )
    assert "[redacted:anthropic-key]" in assert_clean(in_frame)


@pytest.mark.browser
async def test_cdp_results(ctx, page):
    tab = await ctx.tab()
    reply = await call_tool(
        ctx,
        "browser_cdp",
        {
            "method": "Runtime.evaluate",
            "params": {
                "expression": "[document.getElementById('key').textContent, window.sessionJwt]",
                "returnByValue": True,
            },
            "tab_id": tab.id,
        },
    )
    assert "[redacted:openai-key]" in assert_clean(reply)
    assert reply.data["result"]["result"]["value"][1] == "[redacted:jwt]"


@pytest.mark.browser
async def test_error_messages(ctx, server):
    query = "token=abc123secretvalue&code=PLANETARY-ORBIT-7731"
    with pytest.raises(NavigationTimeout) as timed_out:
        await call_tool(
            ctx,
            "browser_navigate",
            {"url": server.url(f"/slow?ms=3000&{query}"), "timeout_ms": 300},
        )
    with pytest.raises(InvalidURL) as invalid:
        await call_tool(ctx, "browser_navigate", {"url": f"gopher://u:pw12@host/?{query}"})
    for caught in (timed_out, invalid):
        message = str(caught.value)
        assert "abc123secretvalue" not in message and "PLANETARY-ORBIT-7731" not in message
        assert "token=[redacted:token]&code=[secret:PLANET_CODE]" in message, message
    assert "u:[redacted:password]@host" in str(invalid.value)


@pytest.mark.browser
async def test_network_urls_and_headers(ctx, page, server, other_origin):
    await call_tool(ctx, "browser_navigate", {"url": page})
    snap = (await call_tool(ctx, "browser_snapshot", {})).text
    await call_tool(ctx, "browser_click", {"ref": ref_of(snap, "button", "Call the API")})
    budget = Budget(10)
    while True:
        listing = await call_tool(ctx, "browser_network", {"url": "status/404"})
        entries = listing.data.get("entries") or listing.data.get("requests") or []
        if entries and any(str(e.get("status")) == "404" for e in entries):
            break
        budget.check("waiting for the API call to be logged")
        await budget.sleep(0.05)
    assert "[redacted:" in assert_clean(listing)
    request_id = next(e for e in entries if str(e.get("status")) == "404")["id"]
    detail = await call_tool(ctx, "browser_network", {"request_id": request_id})
    assert "[redacted:" in assert_clean(detail)


@pytest.mark.browser
async def test_local_storage_values_by_key_and_by_shape(ctx, page):
    await call_tool(ctx, "browser_navigate", {"url": page})
    stored = await call_tool(ctx, "browser_storage", {"action": "get", "kind": "local"})
    text = assert_clean(stored)
    assert "auth_token" in text and "dark" in text


def test_the_page_plants_what_the_tests_look_for():
    page = (Path(__file__).parents[1] / "pages" / "secrets.html").read_text()
    frame = (Path(__file__).parents[1] / "pages" / "secrets_frame.html").read_text()
    for name, secret in PLANTED.items():
        assert secret in page or secret in frame, name
