"""browser_storage and browser_emulate through the tool registry, as every surface calls them."""

from __future__ import annotations

import json

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.errors import InvalidArgument
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool, select_tools
from tabwarden.tools.spec import UNTRUSTED_MARK

PAGE = "/state_storage.html"
# A JWT ({"alg":"HS256","typ":"JWT"} . {"sub":"1234567890","name":"John Doe"} . signature).
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
async def ctx(workspace):
    config = Config()
    config.browser.isolated = True
    config.browser.workspace = workspace
    async with tabwarden.SessionManager(config) as manager:
        yield ToolContext(manager, "state-tools")


def test_the_tools_are_in_their_groups_not_in_core():
    core = {t.name for t in select_tools(["core"])}
    assert "browser_storage" not in core and "browser_emulate" not in core
    assert "browser_storage" in {t.name for t in select_tools(["diagnostics"])}
    assert "browser_emulate" in {t.name for t in select_tools(["devtools"])}


@pytest.mark.browser
async def test_storage_tool_round_trip_marks_page_values_untrusted(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url(PAGE)})
    await call_tool(
        ctx, "browser_storage", {"action": "set", "kind": "local", "name": "mode", "value": "x"}
    )
    got = await call_tool(ctx, "browser_storage", {"kind": "local", "name": "mode"})
    text = got.final_text()
    assert got.untrusted and text.startswith(UNTRUSTED_MARK + "\n")
    assert "- mode=x" in text and got.data["items"] == [{"name": "mode", "value": "x"}]
    cookie = await call_tool(
        ctx, "browser_storage", {"action": "set", "name": "c", "value": "1", "same_site": "Lax"}
    )
    assert "SameSite=Lax" in cookie.final_text()
    with pytest.raises(InvalidArgument) as wrong:
        await call_tool(ctx, "browser_storage", {"kind": "indexeddb"})
    assert "kind" in str(wrong.value)


@pytest.mark.browser
async def test_a_jwt_in_local_storage_comes_out_redacted(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url(PAGE)})
    await call_tool(
        ctx,
        "browser_storage",
        {"action": "set", "kind": "local", "name": "session", "value": JWT},
    )
    got = await call_tool(ctx, "browser_storage", {"kind": "local"})
    assert JWT not in got.final_text() and JWT not in json.dumps(got.data)
    assert "redacted" in got.final_text()


@pytest.mark.browser
async def test_save_state_tool_writes_into_the_workspace(ctx, server, workspace):
    await call_tool(ctx, "browser_navigate", {"url": server.url(PAGE)})
    saved = await call_tool(ctx, "browser_storage", {"action": "save_state", "file": "tool"})
    path = workspace / "tabwarden-output" / "state" / "tool.json"
    assert str(path) in saved.final_text() and path.is_file()
    loaded = await call_tool(
        ctx, "browser_storage", {"action": "load_state", "file": "tabwarden-output/state/tool.json"}
    )
    assert loaded.final_text().startswith("loaded ")


@pytest.mark.browser
async def test_emulate_tool_sets_and_reports_the_state(ctx, server):
    current = await call_tool(ctx, "browser_emulate", {})
    assert current.final_text().startswith("no emulation")
    set_ = await call_tool(
        ctx, "browser_emulate", {"device": "pixel-8", "timezone": "Asia/Tokyo", "network": "4g"}
    )
    text = set_.final_text()
    assert "device: pixel-8" in text and "timezone: Asia/Tokyo" in text and "network: 4g" in text
    assert set_.data["state"]["width"] == 412
    await call_tool(ctx, "browser_navigate", {"url": server.url("/state_emulation.html")})
    width = await call_tool(ctx, "browser_evaluate", {"expression": "innerWidth"})
    assert width.data["value"] == 412
    with pytest.raises(InvalidArgument) as unknown:
        await call_tool(ctx, "browser_emulate", {"device": "nokia-3310"})
    assert "iphone-15" in unknown.value.hint
    with pytest.raises(InvalidArgument) as network:
        await call_tool(ctx, "browser_emulate", {"network": "5g"})
    assert "network" in str(network.value)
    reset = await call_tool(ctx, "browser_emulate", {"reset": True})
    assert reset.final_text().startswith("no emulation")
