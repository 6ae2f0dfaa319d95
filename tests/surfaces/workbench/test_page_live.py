"""The workbench page against the real workbench server: an agent session drives a local
page through the tool registry while a second Chromium, driven by tabwarden itself, opens
the workbench and checks what a person sees and does there."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import tabwarden
from tabwarden.manager import SessionManager
from tabwarden.surfaces.workbench import Workbench, WorkbenchOptions
from tabwarden.tab import Tab
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tests.local_server import LocalServer
from tests.workbench_page import WAIT_S, page_value, ref_in, until_shown

pytestmark = pytest.mark.browser


@dataclass
class Bench:
    manager: SessionManager
    agent: ToolContext
    bench: Workbench
    viewer: Tab
    server: LocalServer
    viewer_session: tabwarden.BrowserSession

    async def call(self, tool: str, **arguments: Any) -> str:
        return (await call_tool(self.agent, f"browser_{tool}", arguments)).text

    async def agent_tab(self) -> Tab:
        return await self.agent.tab()

    async def page(self, expression: str) -> Any:
        """Evaluate in the workbench page."""
        return await page_value(self.viewer, expression)

    async def until(self, expression: str, what: str) -> Any:
        return await until_shown(self.viewer, expression, what)

    async def ref(self, role_and_name: str) -> str:
        return await ref_in(self.viewer, role_and_name)


@pytest_asyncio.fixture(scope="module")
async def bench(server: LocalServer) -> AsyncIterator[Bench]:
    config = tabwarden.load_config().model_copy(deep=True)
    config.browser.isolated = True
    config.browser.headless = True
    async with (
        SessionManager(config) as manager,
        Workbench() as served,
        tabwarden.launch(isolated=True, headless=True, name="workbench-viewer") as viewer,
    ):
        served.watch_manager(manager)
        agent = ToolContext(manager, "agent-one")
        await call_tool(agent, "browser_navigate", {"url": server.url("/workbench_target.html")})
        viewer_tab = await viewer.current_tab()
        await viewer_tab.navigate(f"{served.url}#/s/agent-one")
        yield Bench(manager, agent, served, viewer_tab, server, viewer)


async def element_box(tab: Tab, selector: str) -> dict[str, float]:
    """An element's box in the agent's page, in viewport CSS px."""
    value = (
        await tab.evaluate(
            f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
            " return {x: r.left, y: r.top, w: r.width, h: r.height}; })()"
        )
    ).value
    assert isinstance(value, dict)
    return value


async def test_the_session_list_shows_a_card_for_the_live_session(bench: Bench) -> None:
    await bench.page("location.hash = '#/'")
    card = await bench.until(
        "document.querySelector('[data-testid=session-card][data-session=\"agent-one\"]')"
        " && document.querySelector('[data-testid=session-card]').innerText",
        "the session card",
    )
    assert "agent-one" in card
    assert "1 tab" in card
    await bench.page("location.hash = '#/s/agent-one'")
    await bench.until("window.__workbench.frames > 0", "a frame of the session")


async def test_each_drawn_frame_is_counted_and_answered(bench: Bench) -> None:
    await bench.until("window.__workbench.frames > 0", "a frame")
    first = await bench.page("window.__workbench.lastShownSeq")
    await bench.call("scroll", direction="down")
    await bench.until(f"window.__workbench.lastShownSeq > {first}", "a newer frame")
    meta = await bench.page("window.__workbench.lastFrameMeta")
    viewport = (await (await bench.agent_tab()).evaluate("[innerWidth, innerHeight]")).value
    assert [meta["deviceWidth"], meta["deviceHeight"]] == viewport
    live = await bench.page("window.__workbench.liveRect()")
    assert live["width"] / live["height"] == pytest.approx(viewport[0] / viewport[1], rel=0.01)


async def test_the_agents_boxes_lie_on_the_elements_it_saw_even_scrolled(bench: Bench) -> None:
    tab = await bench.agent_tab()
    await tab.evaluate("scrollTo(0, 600)")
    snapshot = await bench.call("snapshot")
    lower_ref = next(
        line.split("[ref=", 1)[1].split("]", 1)[0]
        for line in snapshot.splitlines()
        if '"Lower button"' in line
    )
    await bench.until(
        "window.__workbench.lastFrameMeta && window.__workbench.lastFrameMeta.scrollOffsetY === 600"
        f" && window.__workbench.overlayBoxes().some((b) => b.ref === {lower_ref!r})",
        "the boxes of the scrolled page",
    )
    expected = await element_box(tab, "#lower")
    live = await bench.page("window.__workbench.liveRect()")
    meta = await bench.page("window.__workbench.lastFrameMeta")
    scale = live["width"] / meta["deviceWidth"]
    boxes = await bench.page("window.__workbench.overlayBoxes()")
    box = next(b for b in boxes if b["ref"] == lower_ref)
    assert box["left"] == pytest.approx(live["left"] + expected["x"] * scale, abs=2)
    assert box["top"] == pytest.approx(live["top"] + expected["y"] * scale, abs=2)
    assert box["width"] == pytest.approx(expected["w"] * scale, abs=2)
    assert box["height"] == pytest.approx(expected["h"] * scale, abs=2)
    # Hovering a box tells what the agent saw there.
    centre = (box["left"] + box["width"] / 2, box["top"] + box["height"] / 2)
    await bench.viewer.cdp(
        "Input.dispatchMouseEvent", {"type": "mouseMoved", "x": centre[0], "y": centre[1]}
    )
    tooltip = await bench.until(
        "!document.querySelector('[data-testid=overlay-tooltip]').hidden"
        " && document.querySelector('[data-testid=overlay-tooltip]').innerText",
        "the box's tooltip",
    )
    assert "button" in tooltip and "Lower button" in tooltip and lower_ref in tooltip
    # The toggle hides the boxes, and brings them back.
    await bench.viewer.click(await bench.ref('button "What the agent sees"'))
    await bench.until("window.__workbench.overlayBoxes().every((b) => b.width === 0)", "no boxes")
    await bench.viewer.click(await bench.ref('button "What the agent sees"'))
    await bench.until(
        f"window.__workbench.overlayBoxes().some((b) => b.ref === {lower_ref!r} && b.width > 0)",
        "the boxes again",
    )
    await tab.evaluate("scrollTo(0, 0)")


async def test_an_agents_click_is_drawn_and_listed_in_the_timeline(bench: Bench) -> None:
    snapshot = await bench.call("snapshot")
    top_ref = next(
        line.split("[ref=", 1)[1].split("]", 1)[0]
        for line in snapshot.splitlines()
        if '"Top button"' in line
    )
    await bench.call("click", ref=top_ref)
    mark = await bench.until(
        f"[...document.querySelectorAll('[data-testid=action-mark]')]"
        f".map((m) => m.dataset.ref).find((r) => r === {top_ref!r})",
        "the click's mark",
    )
    assert mark == top_ref
    entry = await bench.until(
        "[...document.querySelectorAll('[data-testid=timeline-entry]')]"
        ".find((e) => e.dataset.tool.endsWith('click') && e.dataset.state === 'ok')"
        "?.dataset.callId",
        "the click in the timeline",
    )
    await bench.page(
        f"document.querySelector('[data-testid=timeline-entry][data-call-id=\"{entry}\"]').click()"
    )
    receipt = await bench.until(
        "document.querySelector('[data-testid=call-receipt]').textContent", "the receipt"
    )
    assert "Top button" in receipt


async def test_a_pending_prompt_is_answered_from_the_page(bench: Bench) -> None:
    tab = await bench.agent_tab()
    await tab.evaluate("document.getElementById('ask').click()")
    await bench.until(
        "!document.querySelector('[data-testid=dialog-banner]').hidden", "the pending prompt"
    )
    assert await bench.page("document.querySelector('[data-testid=dialog-prompt]').value") == "Ada"
    await bench.viewer.fill(await bench.ref('textbox "Prompt answer"'), "Grace")
    await bench.viewer.click(await bench.ref('button "Accept"'))
    await bench.until(
        "document.querySelector('[data-testid=dialog-banner]').hidden", "the prompt closed"
    )
    answer = (await tab.evaluate("document.getElementById('answer').textContent")).value
    assert answer == "answer: Grace"
    closed_by = await bench.until(
        "document.querySelector('[data-testid=recent-dialog]')?.dataset.closedBy",
        "the closed prompt among recent dialogs",
    )
    assert closed_by == "user"


async def test_a_person_takes_over_types_into_the_page_and_hands_back(bench: Bench) -> None:
    tab = await bench.agent_tab()
    await tab.evaluate("document.getElementById('typed').value = ''")
    await bench.viewer.click(await bench.ref('button "Take over"'))
    await bench.until(
        "!document.querySelector('[data-testid=takeover-banner]').hidden", "the takeover banner"
    )
    live = await bench.ref('"Live view"')
    # The field sits at the middle of the page's viewport: a click on the middle of the
    # live view lands on it.
    await bench.viewer.click(live)
    await bench.viewer.type("hi there", ref=live)
    deadline = time.monotonic() + WAIT_S
    while (await tab.evaluate("document.getElementById('typed').value")).value != "hi there":
        assert time.monotonic() < deadline, "the typed text never reached the page"
        await asyncio.sleep(0.05)
    await bench.page(
        "(() => { const data = new DataTransfer(); data.setData('text/plain', ', pasted');"
        " document.querySelector('[data-testid=live-stage]').dispatchEvent("
        "new ClipboardEvent('paste', {clipboardData: data, bubbles: true})); })()"
    )
    while (await tab.evaluate("document.getElementById('typed').value")).value != (
        "hi there, pasted"
    ):
        assert time.monotonic() < deadline, "the pasted text never reached the page"
        await asyncio.sleep(0.05)
    await bench.viewer.click(await bench.ref('button "Hand back"'))
    await bench.until(
        "document.querySelector('[data-testid=takeover-banner]').hidden", "control handed back"
    )


async def test_the_network_drawer_filters_and_shows_a_requests_details(bench: Bench) -> None:
    await bench.page("document.querySelector('[data-testid=diag-tab-network]').click()")
    await bench.until(
        "document.querySelectorAll('[data-testid=network-row]').length > 1", "the requests"
    )
    await bench.viewer.fill(await bench.ref('searchbox "Filter"'), "from=workbench")
    rows = await bench.until(
        "[...document.querySelectorAll('[data-testid=network-row]')].map((r) => r.innerText)",
        "the filtered requests",
    )
    assert len(rows) == 1
    assert "404" in rows[0]
    await bench.page("document.querySelector('[data-testid=network-row]').click()")
    detail = await bench.until(
        "!document.querySelector('[data-testid=network-detail]').hidden"
        " && !document.querySelector('[data-testid=network-detail]').innerText.includes('Loading')"
        " && document.querySelector('[data-testid=network-detail]').innerText",
        "the request's details",
    )
    assert "from=workbench" in detail


async def test_a_person_allows_an_attach_request_from_the_consent_modal(bench: Bench) -> None:
    async with tabwarden.launch(isolated=True, headless=True, name="someones-browser") as owner:
        await owner.new_tab(bench.server.url("/index.html"))
        assert owner.endpoint is not None
        port = owner.endpoint.ws_url.split(":")[2].split("/")[0]
        attacher = ToolContext(bench.manager, "agent-two")
        attaching = asyncio.create_task(
            call_tool(
                attacher,
                "browser_attach",
                {"cdp_url": f"http://127.0.0.1:{port}", "timeout_ms": 30_000},
            )
        )
        try:
            await bench.until(
                "!document.querySelector('[data-testid=consent-modal]').hidden", "the consent modal"
            )
            tabs = await bench.page(
                "[...document.querySelectorAll('[data-testid=consent-tab]')]"
                ".map((t) => t.innerText).join(' ')"
            )
            assert "/index.html" in tabs
            await bench.viewer.click(await bench.ref('button "Allow"'))
            result = await asyncio.wait_for(attaching, WAIT_S)
            assert result.data["tabs"] >= 1
            await bench.until(
                "document.querySelector('[data-testid=consent-modal]').hidden", "the modal closed"
            )
        finally:
            attaching.cancel()
            await attacher.close()


async def test_a_screenshot_with_a_box_and_a_note_is_saved(bench: Bench) -> None:
    await bench.viewer.click(await bench.ref('button "Screenshot with note"'))
    await bench.until(
        "!document.querySelector('[data-testid=screenshot-modal]').hidden", "the screenshot modal"
    )
    await bench.viewer.fill(await bench.ref('textbox "Note"'), "This button is too small")
    left, top, width, height = await bench.page(
        "(() => { const r = document.querySelector('[data-testid=screenshot-canvas]')"
        ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()"
    )
    start, end = (left + width * 0.1, top + height * 0.1), (left + width * 0.4, top + height * 0.3)
    mouse = "Input.dispatchMouseEvent"
    await bench.viewer.cdp(mouse, {"type": "mouseMoved", "x": start[0], "y": start[1]})
    press = {"button": "left", "clickCount": 1}
    await bench.viewer.cdp(mouse, {"type": "mousePressed", "x": start[0], "y": start[1], **press})
    await bench.viewer.cdp(
        mouse, {"type": "mouseMoved", "x": end[0], "y": end[1], "button": "left", "buttons": 1}
    )
    await bench.viewer.cdp(mouse, {"type": "mouseReleased", "x": end[0], "y": end[1], **press})
    await bench.viewer.click(await bench.ref('button "Save"'))
    shown = await bench.until(
        "!document.querySelector('[data-testid=screenshot-path]').hidden"
        " && document.querySelector('[data-testid=screenshot-path] code').textContent",
        "the saved path",
    )
    saved = Path(shown)
    assert saved.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert saved.with_suffix(".txt").read_text(encoding="utf-8").strip() == (
        "This button is too small"
    )
    # The box was drawn onto the image: its pixels differ from the frame's.
    drawn = await bench.page(
        "(() => { const c = document.querySelector('[data-testid=screenshot-canvas]');"
        " const x = Math.round(c.width * 0.1), y = Math.round(c.height * 0.2);"
        " return Array.from(c.getContext('2d').getImageData(x - 1, y, 3, 1).data); })()"
    )
    assert any(drawn[i] > 200 and drawn[i + 1] < 120 for i in range(0, len(drawn), 4)), drawn
    await bench.viewer.click(await bench.ref('button "Close"'))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_the_page_reconnects_and_says_when_its_token_is_refused(bench: Bench) -> None:
    page = await bench.viewer_session.new_tab()
    options = WorkbenchOptions(port=_free_port(), token="first-token")
    session = await bench.agent.session()
    status = "document.querySelector('[data-testid=connection-status]').dataset.state"

    async def until(expression: str, what: str) -> Any:
        deadline = time.monotonic() + WAIT_S
        while not (value := (await page.evaluate(expression)).value):
            assert time.monotonic() < deadline, f"the workbench never showed {what}"
            await asyncio.sleep(0.05)
        return value

    try:
        async with Workbench(options) as first:
            first.watch_session(session)
            await page.navigate(f"{first.url}#/s/agent-one")
            await until("window.__workbench.frames > 0", "a frame")
        await until(f"{status} === 'closed'", "the connection lost")
        seen = (await page.evaluate("window.__workbench.frames")).value
        async with Workbench(options) as again:
            again.watch_session(session)
            await until(f"{status} === 'open'", "the connection back")
            await bench.call("scroll", direction="down")
            await until(f"window.__workbench.frames > {seen}", "frames again, unasked")
        options.token = "another-token"
        async with Workbench(options):
            await until(f"{status} === 'refused'", "the token refused")
            hidden = await page.evaluate(
                "document.querySelector('[data-testid=auth-error]').hidden"
            )
            assert hidden.value is False
    finally:
        await page.close()


async def test_the_live_view_follows_the_agent_to_the_tab_it_switches_to(bench: Bench) -> None:
    await bench.until("window.__workbench.frames > 0", "a frame")
    first = (await bench.agent_tab()).id
    await bench.call("evaluate", expression=f"window.open({bench.server.url('/index.html')!r})")
    tabs = await bench.until(
        "document.querySelectorAll('[data-testid=tab-strip-tab]').length === 2"
        " && [...document.querySelectorAll('[data-testid=tab-strip-tab]')]"
        ".map((t) => t.dataset.tabId)",
        "the popup in the tab strip",
    )
    popup = next(t for t in tabs if t != first)
    assert await bench.page(
        f"!!document.querySelector('[data-tab-id=\"{popup}\"] [data-testid=tab-opener]')"
    )
    await bench.call("switch_tab", tab_id=popup)
    await bench.until(
        f"document.querySelector('[data-testid=tab-strip-tab][aria-selected=true]').dataset.tabId"
        f" === {popup!r} && document.querySelector('[data-testid=address-url]').value"
        ".endsWith('/index.html')",
        "the agent's new tab watched",
    )
    seen = await bench.page("window.__workbench.frames")
    await bench.call("evaluate", expression="document.body.append('a change to paint')")
    await bench.until(f"window.__workbench.frames > {seen}", "frames of the new tab")
    await bench.call("close_tab", tab_id=popup)
    await bench.call("switch_tab", tab_id=first)
    await bench.until(
        "document.querySelectorAll('[data-testid=tab-strip-tab]').length === 1", "one tab again"
    )


async def test_an_executable_download_is_flagged_in_the_drawer(bench: Bench) -> None:
    await bench.call("navigate", url=bench.server.url("/files_downloads.html"))
    await bench.call("evaluate", expression="document.getElementById('setup').click()")
    await bench.page("document.querySelector('[data-testid=diag-tab-downloads]').click()")
    row = await bench.until(
        "document.querySelector('[data-testid=download-row][data-executable=true]')?.innerText",
        "the executable download",
    )
    assert "setup.exe" in row
    assert "executable" in row
    colour = await bench.page(
        "getComputedStyle(document.querySelector('[data-testid=download-row]')).color"
    )
    normal = await bench.page("getComputedStyle(document.body).color")
    assert colour != normal


async def test_the_page_says_when_the_watched_session_ends(bench: Bench) -> None:
    brief = ToolContext(bench.manager, "brief-agent")
    await call_tool(brief, "browser_navigate", {"url": bench.server.url("/index.html")})
    page = await bench.viewer_session.new_tab()
    try:
        await page.navigate(f"{bench.bench.url}#/s/brief-agent")
        deadline = time.monotonic() + WAIT_S
        while not (await page.evaluate("window.__workbench.frames > 0")).value:
            assert time.monotonic() < deadline, "no frame of the brief session"
            await asyncio.sleep(0.05)
        await bench.manager.close("brief-agent")
        while not (
            ended := (
                await page.evaluate(
                    "!document.querySelector('[data-testid=session-closed]').hidden"
                    " && document.querySelector('[data-testid=session-closed]').innerText"
                )
            ).value
        ):
            assert time.monotonic() < deadline + WAIT_S, "the page never said the session ended"
            await asyncio.sleep(0.05)
        assert "ended" in ended
    finally:
        await page.close()
