"""The tools on a Firefox session (``browser.engine: firefox``), through the registry:
the tools it serves work, the others are hidden and refused, and so is a parameter a
Firefox handler cannot honour."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.engines import FIREFOX
from tabwarden.errors import EngineUnsupported, ScriptError, SessionReaped
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
    with pytest.raises(EngineUnsupported) as caught:  # a parameter it cannot honour
        await call_tool(ctx, "browser_storage", {"action": "save_state", "file": "state.json"})
    assert "save_state" in str(caught.value)


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


@pytest.mark.browser
async def test_a_reaped_firefox_session_is_told_once_then_a_new_one_starts(server):
    config = _config()
    config.browser.inactivity_timeout_s = 3600
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "reaped")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/engines.html")})
        first = manager.get_firefox("reaped")
        assert first is not None
        first.last_used -= 7200
        budget = Budget(10)
        while not await manager.reap_idle():
            budget.check("waiting for the session to go idle")
            await budget.sleep(0.05)
        with pytest.raises(SessionReaped) as told:
            await call_tool(ctx, "browser_snapshot", {})
        assert "session reaped was closed after" in str(told.value)
        snap = await call_tool(ctx, "browser_snapshot", {})  # a new Firefox, a blank tab
        assert "about:blank" in snap.final_text()
        assert manager.get_firefox("reaped") not in (None, first)


@pytest.mark.browser
async def test_a_tool_call_after_firefox_died_relaunches_it_and_says_so(server):
    async with tabwarden.SessionManager(_config()) as manager:
        ctx = ToolContext(manager, "crashing")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/engines.html")})
        session = manager.get_firefox("crashing")
        assert session is not None
        tab_id = session.active_tab.id
        profile = session.backend.profile_dir
        os.killpg(session.backend.pid, signal.SIGKILL)
        budget = Budget(10)
        while not session.browser_lost:
            budget.check("waiting for the connection to close")
            await budget.sleep(0.02)
        result = await call_tool(ctx, "browser_tabs", {})
        first_line = result.final_text().split("\n")[0]
        assert "relaunched it" in first_line and f"tab {tab_id} (" in first_line, first_line
        assert manager.get_firefox("crashing") is session and not session.browser_lost
        assert not browser_processes(profile)
        again = await call_tool(ctx, "browser_tabs", {})
        assert "relaunched" not in again.final_text()  # told once


@pytest.mark.browser
async def test_metrics_count_the_sessions_evaluations(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/engines.html")})
    before = (await call_tool(ctx, "browser_metrics", {})).data
    await call_tool(ctx, "browser_evaluate", {"expression": "1 + 1"})
    with pytest.raises(ScriptError):
        await call_tool(ctx, "browser_evaluate", {"expression": "nope()"})
    after = (await call_tool(ctx, "browser_metrics", {})).data
    assert after["evaluations"] == before["evaluations"] + 2
    assert after["evaluate_errors"] == before["evaluate_errors"] + 1
    assert after["evaluate_duration"]["count"] == before["evaluate_duration"]["count"] + 2


@pytest.mark.browser
async def test_the_network_tool_lists_requests_and_redacts_a_secret_header(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/diag_network.html")})
    secret = "Bearer sk-live-0123456789abcdefghijklmnop"
    options = f"{{headers: {{Authorization: '{secret}'}}}}"
    await call_tool(
        ctx,
        "browser_evaluate",
        {"expression": f"fetch('/diag-body?bytes=20&tool=1', {options}).then(r => r.text())"},
    )
    budget = Budget(10)
    while True:
        listed = await call_tool(ctx, "browser_network", {"url": "tool=1"})
        if listed.data["matched"] == 1 and listed.data["requests"][0]["state"] == "finished":
            break
        assert not budget.expired, listed.final_text()
        await budget.sleep(0.05)
    assert re.search(r"r\d+ GET 200 fetch", listed.final_text())
    request_id = listed.data["requests"][0]["id"]
    details = await call_tool(ctx, "browser_network", {"request_id": request_id})
    text = details.final_text()
    assert "0123456789" * 2 in text and "[redacted" in text and secret not in text
    assert secret not in str(details.data)
    with pytest.raises(tabwarden.InvalidArgument):
        await call_tool(ctx, "browser_network", {"type": "nonsense"})


@pytest.mark.browser
async def test_the_downloads_tool_reports_a_download_in_the_workspace(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/files_downloads.html")})
    await call_tool(
        ctx, "browser_evaluate", {"expression": "document.getElementById('script').click()"}
    )
    budget = Budget(15)
    while True:
        listed = await call_tool(ctx, "browser_downloads", {"wait": True, "timeout_ms": 5000})
        done = [d for d in listed.data["downloads"] if d["state"] == "completed"]
        if done:
            break
        assert not budget.expired, listed.final_text()
        await budget.sleep(0.05)
    script = done[0]
    # Firefox makes the name unique itself (run(1).sh when a run.sh is there).
    assert re.fullmatch(r"run(\(\d+\))?\.sh", script["suggested_name"]) and script["executable"]
    assert script["path"].startswith(listed.data["folder"]) and script["size"] > 0
    assert "WARNING: executable" in listed.final_text()


@pytest.mark.browser
async def test_storage_as_a_tool_sets_and_reads_cookies_and_local_storage(ctx, server):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/state_storage.html")})
    await call_tool(ctx, "browser_storage", {"action": "clear", "all": True})
    stored = await call_tool(
        ctx, "browser_storage", {"action": "set", "name": "flavour", "value": "oatmeal"}
    )
    assert stored.data["changed"] == 1 and stored.data["items"][0]["name"] == "flavour"
    await call_tool(
        ctx, "browser_storage", {"action": "set", "kind": "local", "name": "k", "value": "v"}
    )
    got = await call_tool(ctx, "browser_storage", {"kind": "local"})
    assert got.data["items"] == [{"name": "k", "value": "v"}]
    assert got.final_text().startswith(UNTRUSTED_MARK + "\n1 localStorage entries of http")
    seen = await call_tool(ctx, "browser_evaluate", {"expression": "document.cookie"})
    assert seen.data["value"] == "flavour=oatmeal"
    # A value that looks like a secret (a JWT) comes out redacted, as on Chromium.
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    await call_tool(
        ctx, "browser_storage", {"action": "set", "kind": "local", "name": "t", "value": jwt}
    )
    secret = await call_tool(ctx, "browser_storage", {"kind": "local", "name": "t"})
    assert jwt not in secret.final_text() and jwt not in json.dumps(secret.data)
    assert "redacted" in secret.final_text()
    with pytest.raises(EngineUnsupported):
        await call_tool(ctx, "browser_storage", {"action": "save_state"})


@pytest.mark.browser
async def test_emulate_as_a_tool_replies_with_the_state_and_refuses_what_firefox_cannot(
    ctx, server
):
    await call_tool(ctx, "browser_navigate", {"url": server.url("/state_emulation.html")})
    try:
        result = await call_tool(ctx, "browser_emulate", {"width": 420, "height": 360})
        assert result.data["state"]["width"] == 420 and result.data["notes"] == []
        assert "viewport: 420x360 at 1x" in result.final_text()
        size = await call_tool(ctx, "browser_evaluate", {"expression": "innerWidth"})
        assert size.data["value"] == 420
        with pytest.raises(EngineUnsupported) as caught:
            await call_tool(ctx, "browser_emulate", {"cpu_throttling": 4})
        assert "cpu_throttling" in str(caught.value)
        current = await call_tool(ctx, "browser_emulate", {})
        assert (
            current.data["state"]["width"] == 420 and current.data["state"]["cpu_throttling"] == 1
        )
    finally:
        await call_tool(ctx, "browser_emulate", {"reset": True})
