"""The tools on a Firefox session (``browser.engine: firefox``), through the registry:
the tools it serves work, the others are hidden and refused, and so is a parameter a
Firefox handler cannot honour."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.engines import FIREFOX
from tabwarden.errors import EngineUnsupported
from tabwarden.tools.context import ToolContext
from tabwarden.tools.firefox import FIREFOX_HANDLERS
from tabwarden.tools.registry import call_tool, select_tools
from tabwarden.tools.spec import UNTRUSTED_MARK
from tests.conftest import browser_processes


def _config() -> Config:
    config = Config()
    config.browser.isolated = True
    config.browser.engine = "firefox"
    return config


def test_a_firefox_session_lists_only_the_tools_it_serves():
    listed = {t.name for t in select_tools(["all"], _config())}
    assert listed == set(FIREFOX_HANDLERS)
    assert "browser_cdp" not in listed and "browser_navigate" in listed
    chromium = {t.name for t in select_tools(["all"], Config())}
    assert listed < chromium


def test_every_served_tool_is_declared_done_on_firefox():
    for tool in FIREFOX_HANDLERS:
        assert FIREFOX[tool].supported, tool


@pytest.fixture(scope="module")
async def ctx() -> AsyncIterator[ToolContext]:
    async with tabwarden.SessionManager(_config()) as manager:
        yield ToolContext(manager, "firefox-tools")


@pytest.mark.browser
async def test_navigate_snapshot_click_dialog_and_evaluate_as_tools(ctx, server):
    result = await call_tool(ctx, "browser_navigate", {"url": server.url("/engines.html")})
    assert "200 OK" in result.final_text() and result.data["title"] == "Engines"
    snap = await call_tool(ctx, "browser_snapshot", {})
    text = snap.final_text()
    assert text.startswith(UNTRUSTED_MARK + "\n")
    ref = re.search(r'button "Confirm" \[ref=(e\d+)\]', text).group(1)
    clicked = await call_tool(ctx, "browser_click", {"ref": ref})
    assert "dialog open: d-" in clicked.final_text()
    assert clicked.data["action"] == "click" and clicked.data["dialog"]["type"] == "confirm"
    assert clicked.data["pending_dialogs"] == [clicked.data["dialog"]]  # as on Chromium
    answered = await call_tool(ctx, "browser_dialog", {"action": "accept"})
    assert answered.final_text().startswith(UNTRUSTED_MARK + "\naccepted d-")
    title = await call_tool(ctx, "browser_evaluate", {"expression": "document.title"})
    assert title.data["value"] == "confirm true"
    shot = await call_tool(ctx, "browser_screenshot", {})
    assert shot.images and shot.images[0].mime_type == "image/png"
    listed = await call_tool(ctx, "browser_tabs", {})
    assert "[active]" in listed.final_text()


@pytest.mark.browser
async def test_a_tool_or_parameter_firefox_does_not_do_is_refused(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/engines.html")})
    with pytest.raises(EngineUnsupported):
        await call_tool(ctx, "browser_cdp", {"method": "Browser.getVersion"})
    with pytest.raises(EngineUnsupported) as caught:
        await call_tool(ctx, "browser_screenshot", {"full_page": True})
    assert "full_page=True" in str(caught.value)


@pytest.mark.browser
async def test_input_tools_select_check_scroll_upload_wait_and_batch(ctx, server, tmp_path):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/engines_input.html")})
    text = (await call_tool(ctx, "browser_snapshot", {})).final_text()

    def ref(pattern: str) -> str:
        return re.search(pattern + r".*?\[ref=(e\d+)\]", text).group(1)

    chosen = await call_tool(
        ctx, "browser_select", {"ref": ref('combobox "Colour"'), "values": ["g"]}
    )
    assert (
        chosen.data["action"] == "select"
        and chosen.data["detail"] == 'selected "Green" (value "g")'
    )
    checked = await call_tool(ctx, "browser_check", {"ref": ref('checkbox "Agree"')})
    assert checked.data["detail"] == "checked"
    clicked = await call_tool(
        ctx, "browser_click", {"ref": ref('button "Clicks"'), "click_count": 2}
    )
    assert clicked.data["detail"] == "2 clicks"
    scrolled = await call_tool(
        ctx, "browser_scroll", {"ref": ref("Notes"), "direction": "into_view"}
    )
    assert scrolled.data["detail"] == "scrolled into view"
    upload = tmp_path / "tool.txt"
    upload.write_text("x")
    (await ctx.firefox()).config.files.upload_dirs = [tmp_path]  # read at each call
    attached = await call_tool(
        ctx, "browser_upload_file", {"ref": ref('filechooser "Attachment"'), "paths": [str(upload)]}
    )
    assert attached.data["detail"] == "attached tool.txt"
    waited = await call_tool(ctx, "browser_wait", {"text": "bottom", "timeout_ms": 10_000})
    assert waited.final_text().startswith("text 'bottom' appeared after ")
    batch = await call_tool(
        ctx,
        "browser_act_batch",
        {"steps": [{"action": "uncheck", "ref": ref('checkbox "Agree"')}]},
    )
    assert [step["detail"] for step in batch.data["steps"]] == ["unchecked"]


@pytest.mark.browser
async def test_closing_the_tools_session_ends_firefox(server):
    async with tabwarden.SessionManager(_config()) as manager:
        context = ToolContext(manager, "closing")
        await call_tool(context, "browser_navigate", {"url": server.url("/engines.html")})
        session = await context.firefox()
        profile = session.backend.profile_dir
        assert browser_processes(profile)
        await call_tool(context, "browser_close", {})
        assert manager.firefox_names() == []
    assert not browser_processes(profile)


@pytest.mark.browser
async def test_an_idle_firefox_session_is_closed_but_not_while_a_call_runs(server):
    config = _config()
    config.browser.inactivity_timeout_s = 3600
    async with tabwarden.SessionManager(config) as manager:
        session = await manager.firefox("idle")
        tab = session.active_tab
        loading = asyncio.ensure_future(tab.navigate(server.url("/slow?ms=800")))
        budget = Budget(5)
        while not session.busy:
            budget.check("waiting for the call to start")
            await budget.sleep(0.01)
        session.last_used -= 7200  # idle on paper, but a call is running
        assert await manager.reap_idle() == []
        await loading
        session.last_used -= 7200
        profile = session.backend.profile_dir
        # The page's own requests (a favicon) may still be judged by the policy a moment.
        budget = Budget(10)
        while not (reaped := await manager.reap_idle()):
            budget.check("waiting for the session to go idle")
            await budget.sleep(0.05)
        assert reaped == ["idle"]
        assert session.closed and manager.firefox_names() == []
        assert not browser_processes(profile)
